import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { testProvider } from "@/lib/db/testing";
import { FACETS } from "@/lib/corpus";
import { repoRoot } from "@/lib/paths";
import { HAND_CORPUS, handItem, useHandGraphStore } from "@/lib/retrieve/testing";
import type { MultiSeedResult, RelatedResult } from "@/lib/query";
import { runMain } from "../testing";

// `graft query` as a user runs it against the hand-made graph build: through the CLI's main()
// in this process (exit code, stdout, stderr), and as a subprocess where the process itself is
// what is tested (standard input, its own settings). A process start costs ~1.5 s of imports.

describe(`graft query (${testProvider})`, { concurrency: false }, () => {
  const t = useHandGraphStore("graft-cli-query-");
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-cli-query-files-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const savedUrl = process.env.DATABASE_URL;
  before(() => {
    process.env.DATABASE_URL = t.databaseUrl;
  });
  after(() => {
    if (savedUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = savedUrl;
  });

  async function graft(...args: string[]) {
    const r = await runMain(["query", "--corpus", HAND_CORPUS, ...args]);
    return { code: r.code, stdout: r.stdout, stderr: r.stderr };
  }

  function graftWithStdin(stdin: string, ...args: string[]) {
    return spawnGraft(stdin, {}, ...args);
  }

  function spawnGraft(stdin: string, extraEnv: Record<string, string>, ...args: string[]) {
    const r = spawnSync(process.execPath, ["--import", "tsx", path.join(repoRoot, "lib/cli/main.ts"), "query", "--corpus", HAND_CORPUS, ...args], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: t.databaseUrl, GRAFT_DATA_ROOT: t.dataRoot, CI: "1", ...extraEnv },
      encoding: "utf8",
      input: stdin,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  test("--paper-id: ranked results with provenance and per-facet lists (--json), and a table", async () => {
    // The default (hybrid, fusion auto → RRF), as the explorer and the API answer it.
    const d = await graft("--paper-id", "H0", "--k", "5", "--json");
    assert.equal(d.code, 0, d.stderr);
    const byDefault = JSON.parse(d.stdout) as RelatedResult;
    assert.equal(byDefault.retriever, "hybrid");
    assert.equal(byDefault.requestedFusion, "auto");
    assert.equal(byDefault.fusion, "rrf");
    assert.ok(byDefault.results.length > 0 && !byDefault.results.some((x) => x.externalId === "H0"));

    const r = await graft("--paper-id", "H0", "--k", "5", "--json", "--retriever", "dense-graph", "--fusion", "graph-rrf");
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as RelatedResult;
    assert.equal(out.query.externalId, "H0");
    assert.equal(out.fusion, "graph-rrf");
    assert.ok(out.results.length > 0);
    assert.ok(out.results.every((x) => x.facets.length > 0 && x.facets.every((f) => f.rank >= 1 && f.weight > 0 && f.evidence !== null)));
    assert.ok(out.perFacet.problems.length > 0);
    const human = await graft("--paper-id", "H0", "--k", "5", "--retriever", "dense-graph", "--fusion", "graph-rrf");
    assert.equal(human.code, 0);
    assert.match(human.stdout, new RegExp(`1 +${out.results[0].externalId}`));
  });

  test("--file with a JSON record: an unseen paper, with the fusion that ran", async () => {
    const file = path.join(dir, "paper.json");
    writeFileSync(file, JSON.stringify({ title: "Unseen", facets: Object.fromEntries(FACETS.map((f) => [f, [handItem(f, 0)]])) }));
    const r = await graft("--file", file, "--json", "--fusion", "corroboration-rrf");
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as RelatedResult;
    assert.equal(out.query.source, "record");
    assert.equal(out.query.inGraph, false);
    assert.equal(out.fusion, "corroboration-rrf");
    assert.ok(out.results.length > 0);
  });

  test("--candidates: a file of ids re-ranked, k all of them, the unreached ones said apart", async () => {
    const file = path.join(dir, "reading-list.txt");
    writeFileSync(file, "# my reading list\nH4\nH2, H1\n\nH2\n");
    const r = await graft("--paper-id", "H0", "--candidates", file, "--retriever", "dense-graph", "--fusion", "rrf", "--json");
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as RelatedResult;
    assert.deepEqual(out.results.map((x) => x.externalId).sort(), ["H1", "H2", "H4"]);
    assert.equal(out.candidates?.given, 3);
    const human = await graft("--paper-id", "H0", "--candidates", file, "--retriever", "dense-graph", "--fusion", "rrf");
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /Re-ranked 3 of 3 candidates/);
    const missing = await graft("--paper-id", "H0", "--candidates", path.join(dir, "nope.txt"));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--candidates: cannot read/);
  });

  test("--batch: one JSON line per input line, bad lines as file:line: reason, the others still run", async () => {
    const file = path.join(dir, "batch.jsonl");
    const record = { id: "mine-1", title: "Unseen", facets: Object.fromEntries(FACETS.map((f) => [f, [handItem(f, 0)]])) };
    writeFileSync(
      file,
      [JSON.stringify({ paperId: "H0" }), "", JSON.stringify(record), "{not json", JSON.stringify({ paperId: "NOPE" }), JSON.stringify({ paperId: "H1" })].join(
        "\n",
      ),
    );
    const r = await graft("--batch", file, "--k", "3", "--retriever", "dense-graph", "--fusion", "rrf");
    assert.equal(r.code, 2, r.stderr);
    const out = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { line: number; id: string | null; result?: RelatedResult; error?: string });
    assert.deepEqual(
      out.map((o) => o.line),
      [1, 3, 4, 5, 6],
    );
    // Each answer is what a single query with the same options gives.
    const single = JSON.parse((await graft("--paper-id", "H0", "--k", "3", "--retriever", "dense-graph", "--fusion", "rrf", "--json")).stdout) as RelatedResult;
    assert.deepEqual(
      out[0].result?.results.map((x) => x.externalId),
      single.results.map((x) => x.externalId),
    );
    assert.equal(out[0].result?.results.length, 3);
    assert.equal(out[1].id, "mine-1");
    assert.equal(out[1].result?.query.source, "record");
    assert.equal(out[1].result?.fusion, "rrf");
    assert.ok((out[1].result?.results.length ?? 0) > 0);
    assert.match(out[2].error ?? "", new RegExp(`batch\\.jsonl:4: not valid JSON`));
    assert.match(out[3].error ?? "", /batch\.jsonl:5: no paper "NOPE"/);
    assert.equal(out[4].result?.query.externalId, "H1");
    assert.match(r.stderr, /batch\.jsonl:4: not valid JSON/);
    assert.match(r.stderr, /batch\.jsonl:5: /);
    assert.match(r.stderr, /2 of the lines of .*batch\.jsonl failed/);

    const good = path.join(dir, "good.jsonl");
    writeFileSync(good, `${JSON.stringify({ paperId: "H2" })}\n`);
    const ok = await graft("--batch", good, "--k", "2");
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout.trim().split("\n").length, 1);
    const missing = await graft("--batch", path.join(dir, "nope.jsonl"));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--batch: cannot read/);
  });

  test("--paper-id A,B: several seeds fused, seeds never returned, provenance per seed", async () => {
    const r = await graft("--paper-id", "H0,H2", "--k", "5", "--retriever", "dense-graph", "--fusion", "rrf", "--json");
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as MultiSeedResult;
    assert.deepEqual(
      out.seeds.map((s) => s.externalId),
      ["H0", "H2"],
    );
    assert.ok(out.results.length > 0);
    assert.ok(out.results.every((p) => !["H0", "H2"].includes(p.externalId) && p.seeds.length > 0));
    const human = await graft("--paper-id", "H0,H2", "--k", "5", "--retriever", "dense-graph", "--fusion", "rrf");
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /2 seeds \(S1 H0, S2 H2\)/);
    assert.match(human.stdout, new RegExp(`1 +${out.results[0].externalId} .*S\\d#\\d`));
    const missing = await graft("--paper-id", "H0,NOPE");
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no paper "NOPE"/);
  });

  test("--direction: each result says earlier or later work against the paper's year; the option keeps one kind", async () => {
    const ask = (...extra: string[]) => graft("--paper-id", "H0", "--k", "5", "--retriever", "dense-graph", "--fusion", "graph-rrf", ...extra);
    const all = JSON.parse((await ask("--json")).stdout) as RelatedResult;
    assert.deepEqual(all.query.year, { value: 2018, source: "paper" }, "H0's own year");
    for (const r of all.results) assert.equal(r.direction, r.year! < 2018 ? "earlier" : r.year! > 2018 ? "later" : "neither", r.externalId);
    const kinds = new Set(all.results.map((r) => r.direction));
    assert.ok(kinds.has("earlier") && kinds.has("later"), "the hand graph reaches both");
    for (const d of ["earlier", "later"] as const) {
      const run = await ask("--direction", d, "--json");
      assert.equal(run.code, 0, run.stderr);
      const only = JSON.parse(run.stdout) as RelatedResult;
      assert.ok(only.results.length > 0);
      assert.ok(
        only.results.every((r) => r.direction === d),
        `${d}: ${only.results.map((r) => r.direction)}`,
      );
    }
    const human = await ask();
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /measured from the paper's year, 2018/);
    const later = all.results.find((r) => r.direction === "later")!;
    assert.match(human.stdout, new RegExp(`${later.externalId} +${later.year} +later `));
    const bad = await ask("--direction", "sideways");
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /direction must be one of: both, earlier, later/);
  });

  test('--text -: the paper\'s text is read from standard input (not taken as the text "-"), within the upload limit', () => {
    // The reader's own count of characters proves which text arrived: "-" alone would be 1.
    const short = graftWithStdin("Too short to be a paper.", "--text", "-");
    assert.equal(short.code, 2);
    assert.match(short.stderr, /only 24 characters, fewer than the 100 needed/);
    const big = spawnGraft("x".repeat(4096), { GRAFT_MAX_UPLOAD_MB: "0.001" }, "--text", "-");
    assert.equal(big.code, 2);
    assert.match(big.stderr, /The text on standard input is .* more than the 1 KB limit/);
  });

  test("bad input exits 2 with the reason", async () => {
    const both = await graft("--paper-id", "H0", "--text", "x");
    assert.equal(both.code, 2);
    assert.match(both.stderr, /exactly one of --paper-id, --file, --text or --batch/);
    const short = path.join(dir, "short.txt");
    writeFileSync(short, "Too short to be a paper.");
    const s = await graft("--file", short);
    assert.equal(s.code, 2);
    assert.match(s.stderr, /fewer than the 100 needed/);
    const missing = await graft("--file", path.join(dir, "nope.pdf"));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read/);
    const graftRetriever = await graft("--paper-id", "H0", "--retriever", "graft");
    assert.equal(graftRetriever.code, 2);
    assert.match(graftRetriever.stderr, /needs a trained .*model/);
  });
});
