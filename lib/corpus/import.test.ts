import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { createTestDb, testProvider, type TestDb } from "@/lib/db/testing";
import { getPaperDetail, listPapers, paperListQuery } from "./browse";
import { importCorpus } from "./import";
import { defaultCorpusPath } from "./paths";
import { CorpusFormatError, readCorpus } from "./read";

// Integration tests of the importer against a real store (SQLite by default, PostgreSQL
// when GRAFT_TEST_PG_URL is set): the demo corpus, idempotent re-import, and rejection of
// corrupted copies with nothing written.

const demo = defaultCorpusPath();
const haveDemo = existsSync(path.join(demo, "papers.jsonl"));

async function storeCounts(t: TestDb) {
  const [corpora, papers, items, citations] = await Promise.all([t.db.corpus.count(), t.db.paper.count(), t.db.facetItem.count(), t.db.citation.count()]);
  return { corpora, papers, items, citations };
}

function tmpCorpus(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-corpus-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

const tiny = {
  "papers.jsonl": [
    {
      id: "A",
      title: "Alpha",
      abstract: "a",
      year: 2019,
      venue: "ACL",
      authors: ["X"],
      split: "train",
      facets: { problems: ["p1"], methods: ["m1", "m2"], results: ["r1"], contributions: ["c1"] },
    },
    {
      id: "B",
      title: "Beta",
      abstract: "b",
      year: 2020,
      venue: "EMNLP",
      authors: [],
      split: "test",
      facets: { problems: ["p2"], methods: ["m3"], results: ["r2"], contributions: ["c2"] },
    },
  ]
    .map((p) => JSON.stringify(p))
    .join("\n"),
  "citations.tsv": "citing\tcited\nB\tA\n",
};

describe(`import (${testProvider})`, { concurrency: false }, () => {
  let t: TestDb;
  before(async () => {
    t = await createTestDb();
  });
  after(async () => {
    await t.cleanup();
  });

  test("imports the demo corpus with every paper, facet item and citation", { skip: !haveDemo && "demo corpus not found" }, async () => {
    const input = await readCorpus(demo);
    const summary = await importCorpus(t.db, input, { corpus: "demo" });
    assert.equal(summary.papers.created, 3081);
    assert.equal(summary.queries.created, 212);
    assert.equal(summary.citations.total, 14581);
    assert.equal(summary.queryGold.total, 424);
    const expectedItems = [...input.papers, ...input.queries].reduce((n, p) => n + Object.values(p.facets ?? {}).reduce((m, l) => m + (l?.length ?? 0), 0), 0);
    assert.equal(summary.facetItems.total, expectedItems);
    assert.equal(await t.db.paper.count({ where: { role: "corpus", facetStatus: "imported" } }), 3081);

    // The browse API sees what was imported.
    const europarl = await listPapers(t.db, paperListQuery.parse({ corpus: "demo", q: "europarl" }));
    assert.ok(europarl.items.some((p) => p.title.startsWith("Europarl: A Parallel Corpus")));
    const id = europarl.items[0].externalId;
    const detail = await getPaperDetail(t.db, "demo", id);
    assert.ok(detail);
    assert.ok(detail.facets.methods.length > 0);
    assert.equal(detail.citedBy.length, input.citations.filter((c) => c.cited === id).length, "cited-by list matches the citations file");
  });

  test("re-importing the same corpus changes nothing", { skip: !haveDemo && "demo corpus not found" }, async () => {
    const before = await storeCounts(t);
    const maxUpdated = await t.db.paper.aggregate({ _max: { updatedAt: true } });
    const summary = await importCorpus(t.db, await readCorpus(demo), { corpus: "demo" });
    assert.deepEqual(summary.papers, { created: 0, updated: 0, unchanged: 3081 });
    assert.deepEqual(summary.queries, { created: 0, updated: 0, unchanged: 212 });
    assert.equal(summary.facetItems.written, 0);
    assert.equal(summary.citations.created + summary.citations.deleted, 0);
    assert.deepEqual(await storeCounts(t), before);
    assert.deepEqual(await t.db.paper.aggregate({ _max: { updatedAt: true } }), maxUpdated);
  });

  test("re-import updates changed papers and facets in place", async () => {
    const dir = tmpCorpus(tiny);
    try {
      await importCorpus(t.db, await readCorpus(dir), { corpus: "tiny" });
      const changed = tiny["papers.jsonl"].replace('"title":"Beta"', '"title":"Beta v2"').replace('"m3"', '"m3 revised"');
      writeFileSync(path.join(dir, "papers.jsonl"), changed);
      writeFileSync(path.join(dir, "citations.tsv"), "citing\tcited\n");
      const s = await importCorpus(t.db, await readCorpus(dir), { corpus: "tiny" });
      assert.deepEqual(s.papers, { created: 0, updated: 1, unchanged: 1 });
      assert.equal(s.facetItems.deleted, 4, "B's four items are replaced");
      assert.equal(s.citations.deleted, 1);
      const b = await getPaperDetail(t.db, "tiny", "B");
      assert.equal(b?.title, "Beta v2");
      assert.deepEqual(
        b?.facets.methods.map((i) => i.text),
        ["m3 revised"],
      );
      assert.equal(await t.db.paper.count({ where: { corpus: { name: "tiny" } } }), 2, "no duplicates");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a corrupted corpus is rejected with line numbers and nothing is written", { skip: !haveDemo && "demo corpus not found" }, async () => {
    const lines = readFileSync(path.join(demo, "papers.jsonl"), "utf8").trimEnd().split("\n");
    const broken = [...lines];
    broken[9] = broken[9].slice(0, 40); // truncated JSON on line 10
    broken[19] = JSON.stringify({ ...JSON.parse(lines[19]), title: undefined }); // missing title, line 20
    broken[29] = JSON.stringify({ ...JSON.parse(lines[29]), facets: { problems: ["x"], findings: ["y"] } }); // unknown facet, line 30
    broken.push(lines[0]); // duplicate id, last line
    const dir = tmpCorpus({
      "papers.jsonl": broken.join("\n") + "\n",
      "citations.tsv": readFileSync(path.join(demo, "citations.tsv"), "utf8") + "E17-1117\tNOPE-1\n",
    });
    const before = await storeCounts(t);
    try {
      const err = await readCorpus(dir).then(
        () => assert.fail("expected a CorpusFormatError"),
        (e: unknown) => e,
      );
      assert.ok(err instanceof CorpusFormatError);
      const where = err.issues.map((i) => `${i.file}:${i.line}`);
      assert.ok(where.includes("papers.jsonl:10"), "malformed JSON");
      assert.ok(where.includes("papers.jsonl:20"), "missing title");
      assert.ok(where.includes("papers.jsonl:30"), "unknown facet");
      assert.ok(where.includes(`papers.jsonl:${broken.length}`), "duplicate id");
      assert.ok(
        err.issues.some((i) => i.file === "citations.tsv" && /NOPE-1/.test(i.message)),
        "citation to an unknown id",
      );
      assert.match(err.message, /papers\.jsonl:30: .*findings/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.deepEqual(await storeCounts(t), before);
  });

  test("a failure while writing rolls the whole import back", async () => {
    const dir = tmpCorpus(tiny);
    const before = await storeCounts(t);
    try {
      const input = await readCorpus(dir);
      await assert.rejects(
        importCorpus(t.db, input, {
          corpus: "rollback",
          onProgress: (p) => {
            if (p.phase === "citations") throw new Error("disk full (simulated)");
          },
        }),
        /disk full/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.deepEqual(await storeCounts(t), before);
    assert.equal(await t.db.corpus.count({ where: { name: "rollback" } }), 0);
  });

  test("a plain papers file (no facets, no citations) keeps facets already stored", async () => {
    const dir = tmpCorpus(tiny);
    try {
      await importCorpus(t.db, await readCorpus(dir), { corpus: "plain" });
      const plainDir = mkdtempSync(path.join(os.tmpdir(), "graft-plain-"));
      mkdirSync(plainDir, { recursive: true });
      const file = path.join(plainDir, "more.jsonl");
      writeFileSync(
        file,
        [
          { id: "A", title: "Alpha", abstract: "a", year: 2019, venue: "ACL", authors: ["X"] },
          { id: "C", title: "Gamma" },
        ]
          .map((p) => JSON.stringify(p))
          .join("\n"),
      );
      const s = await importCorpus(t.db, await readCorpus(file), { corpus: "plain" });
      assert.equal(s.papers.created, 1);
      assert.equal(s.citations.total, 1, "citations untouched without a citations file");
      const a = await getPaperDetail(t.db, "plain", "A");
      assert.equal(a?.facets.methods.length, 2, "A keeps its imported facets");
      rmSync(plainDir, { recursive: true, force: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test("new papers written in several multi-row batches keep every field and get Prisma's timestamps", async () => {
    const papers = Array.from({ length: 11 }, (_, i) => ({
      id: `P${i}`,
      title: i === 3 ? "Überschrift: «quotes» 'and' \"more\"" : `Paper ${i}`,
      abstract: i % 2 ? `abstract ${i}` : "",
      year: i % 3 ? 2000 + i : null,
      venue: i % 4 ? "ACL" : null,
      authors: i % 2 ? ["A. Author", "B. Ö"] : [],
    }));
    const dir = mkdtempSync(path.join(os.tmpdir(), "graft-batches-"));
    const file = path.join(dir, "papers.jsonl");
    try {
      writeFileSync(
        file,
        papers
          .slice(0, 7)
          .map((p) => JSON.stringify(p))
          .join("\n"),
      );
      const before = Date.now();
      // batchSize 1: new papers go in 4 per statement, so 7 papers take two statements.
      const first = await importCorpus(t.db, await readCorpus(file), { corpus: "batches", batchSize: 1 });
      assert.equal(first.papers.created, 7);
      writeFileSync(file, papers.map((p) => JSON.stringify(p)).join("\n"));
      const second = await importCorpus(t.db, await readCorpus(file), { corpus: "batches", batchSize: 1 });
      assert.deepEqual(second.papers, { created: 4, updated: 0, unchanged: 7 });
      const rows = await t.db.paper.findMany({ where: { corpus: { name: "batches" } }, orderBy: { id: "asc" } });
      assert.deepEqual(
        rows.map((r) => ({ id: r.externalId, title: r.title, abstract: r.abstract, year: r.year, venue: r.venue, authors: JSON.parse(r.authors) })),
        papers,
      );
      for (const r of rows) {
        assert.equal(r.titleSearch, r.title.toLowerCase());
        assert.equal(r.role, "corpus");
        assert.equal(r.facetStatus, "none");
        assert.ok(r.createdAt instanceof Date && r.createdAt.getTime() >= before - 1000 && r.createdAt.getTime() <= Date.now() + 1000);
        assert.equal(r.updatedAt.getTime(), r.createdAt.getTime());
      }
      const third = await importCorpus(t.db, await readCorpus(file), { corpus: "batches" });
      assert.deepEqual(third.papers, { created: 0, updated: 0, unchanged: 11 }, "a third import writes nothing");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
