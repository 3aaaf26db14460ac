import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { repoRoot } from "@/lib/paths";
import { runMain } from "./testing";

// The CLI as a user runs it, on its own DATABASE_URL: main() in this process (exit code, stdout,
// stderr), and a subprocess where the process itself is tested (its settings, its output streams).
const dir = mkdtempSync(path.join(os.tmpdir(), "graft-cli-"));
const env = { ...process.env, DATABASE_URL: `file:${path.join(dir, "cli.db")}`, CI: "1" };

async function graft(...args: string[]) {
  const r = await runMain(args);
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
}

function spawnGraft(...args: string[]) {
  return graftWith({}, ...args);
}

function graftWith(extra: Record<string, string>, ...args: string[]) {
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join(repoRoot, "lib/cli/main.ts"), ...args], {
    cwd: repoRoot,
    env: { ...env, ...extra },
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("graft CLI", { concurrency: false }, () => {
  const savedUrl = process.env.DATABASE_URL;
  before(() => {
    process.env.DATABASE_URL = env.DATABASE_URL;
  });
  after(() => {
    if (savedUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = savedUrl;
    rmSync(dir, { recursive: true, force: true });
  });

  test("every command has --help", async () => {
    for (const cmd of [[], ["import"], ["db", "migrate"], ["corpus", "sample"], ["corpus", "stats"], ["papers", "search"]]) {
      const r = await graft(...cmd, "--help");
      assert.equal(r.code, 0, `${cmd.join(" ")} --help`);
      assert.match(r.stdout, /Usage: graft/);
    }
  });

  test("migrate, import a small corpus as JSON, and browse it", async () => {
    assert.equal((await graft("db", "migrate")).code, 0);
    const corpus = path.join(dir, "tiny");
    const papers = [
      { id: "A", title: "Attention pooling", year: 2019, facets: { problems: ["p"], methods: ["m"], results: ["r"], contributions: ["c"] } },
      { id: "B", title: "Beam search revisited", year: 2020 },
    ];
    rmSync(corpus, { recursive: true, force: true });
    mkdirSync(corpus);
    writeFileSync(path.join(corpus, "papers.jsonl"), papers.map((p) => JSON.stringify(p)).join("\n"));
    writeFileSync(path.join(corpus, "citations.tsv"), "citing\tcited\nB\tA\n");
    const r = await graft("import", corpus, "--corpus", "tiny", "--json");
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.deepEqual(summary.papers, { created: 2, updated: 0, unchanged: 0 });
    assert.equal(summary.citations.total, 1);
    const found = JSON.parse((await graft("papers", "search", "beam", "--corpus", "tiny", "--json")).stdout);
    assert.deepEqual(
      found.items.map((p: { externalId: string }) => p.externalId),
      ["B"],
    );
    const shown = JSON.parse((await graft("papers", "show", "A", "--corpus", "tiny", "--json")).stdout);
    assert.deepEqual(
      shown.facets.methods.map((i: { text: string }) => i.text),
      ["m"],
    );
  });

  test("a bad setting exits 2 with one line naming the variable (no stack, even with GRAFT_DEBUG)", async () => {
    const r = graftWith({ GRAFT_MAX_PDF_PAGES: "ten", GRAFT_DEBUG: "1" }, "corpus", "list");
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'graft: GRAFT_MAX_PDF_PAGES="ten": expected a whole number ≥ 1\n');
  });

  test("bad input exits 2 with a line-numbered message and writes nothing", async () => {
    const bad = path.join(dir, "bad.jsonl");
    writeFileSync(bad, `{"id": "X", "title": "ok"}\n{"id": "Y"}\n`);
    const r = await graft("import", bad, "--corpus", "bad");
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.jsonl:2: .*title/);
    const list = JSON.parse((await graft("corpus", "list", "--json")).stdout) as { name: string }[];
    assert.ok(!list.some((c) => c.name === "bad"));
  });

  test("--skip-invalid imports the valid lines and lists each skipped one as file:line: reason", async () => {
    const mixed = path.join(dir, "mixed.jsonl");
    writeFileSync(
      mixed,
      [`{"id": null, "title": "a"}`, `{"id": "G1", "title": "Good"}`, `{"id": null, "title": "b"}`, `{"id": null, "title": "c"}`, "", `{"id": "G2"}`].join(
        "\n",
      ),
    );
    // A subprocess: what lands on its stdout and stderr (not a terminal) is what this checks.
    const r = spawnGraft("import", mixed, "--corpus", "mixed", "--skip-invalid");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /skipped lines 5/);
    assert.match(r.stdout, /mixed\.jsonl:1, 3-4: skipped invalid line: "id" must be a non-empty string, got null/);
    assert.match(r.stdout, /mixed\.jsonl:6: skipped invalid line: .*title/);
    assert.match(r.stdout, /mixed\.jsonl:5: blank line/);
    // Not a terminal: progress comes as plain lines on stderr, never on stdout.
    assert.match(r.stderr, /^import mixed: reading and validating lines · \d+ s elapsed$/m);
    assert.doesNotMatch(r.stdout, /elapsed/);
  });

  test("import --format: a BibTeX export, told apart by its name; papers without abstract counted, a year 801 listed with its line", async () => {
    const bib = path.join(dir, "library.bib");
    writeFileSync(bib, `@article{a, title = {{\\"U}ber Modelle}, year = {2019}, abstract = {Text.}}\n@book{b, title = {Dialogues}, year = {801}}\n`);
    const r = await graft("import", bib, "--corpus", "bib");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /imported .*library\.bib \(BibTeX\) into corpus "bib"/);
    assert.match(r.stdout, /papers +2 new/);
    assert.match(r.stdout, /1 paper without abstract/);
    assert.match(r.stdout, /library\.bib:2: year 801 is outside 1000–2100: imported without a year/);
    const shown = JSON.parse((await graft("papers", "show", "a", "--corpus", "bib", "--json")).stdout) as { title: string };
    assert.equal(shown.title, "Über Modelle");
    const again = JSON.parse((await graft("import", bib, "--corpus", "bib", "--format", "bibtex", "--json")).stdout) as {
      papers: unknown;
      withoutAbstract: number;
    };
    assert.deepEqual(again.papers, { created: 0, updated: 0, unchanged: 2 });
    assert.equal(again.withoutAbstract, 1);
    const wrong = await graft("import", bib, "--corpus", "bib", "--format", "ris");
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /library\.bib:1: not a RIS line/);
    const unknown = await graft("import", bib, "--format", "endnote");
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--format: format must be one of: graft, bibtex, ris, openalex, s2, arxiv/);
  });

  test("bad flags exit 2 and name the flag", async () => {
    const r = await graft("papers", "search", "--year-from", "abc", "--corpus", "tiny");
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--year-from/);
    const unknown = await graft("papers", "show", "NOPE", "--corpus", "tiny");
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no paper "NOPE"/);
    const noCorpus = await graft("papers", "search", "--corpus", "missing");
    assert.equal(noCorpus.code, 2);
    assert.match(noCorpus.stderr, /no corpus named "missing"/);
  });
});
