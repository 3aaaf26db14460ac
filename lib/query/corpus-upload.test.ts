import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { importCorpus } from "@/lib/corpus/import";
import { readCorpus } from "@/lib/corpus/read";
import { useFixtureDir } from "@/lib/corpus/formats/testing";
import { createTestDb, testProvider, type TestDb } from "@/lib/db/testing";
import type { ApiErrorBody } from "@/lib/http";
import { type CorpusUploadResult, handleCorpusUpload } from "./corpus-upload";

// The admin's corpus upload (POST /api/admin/corpora/import) on the example files of each format
// (docs/examples/import, the files the README's `graft import` examples read): a multipart
// request in, JSON out, against a real store (SQLite, or PostgreSQL with GRAFT_TEST_PG_URL).

const EXAMPLES = path.join(import.meta.dirname, "../../docs/examples/import");
const example = (name: string) => ({ name: path.basename(name), bytes: new Uint8Array(readFileSync(path.join(EXAMPLES, name))) });

type Upload = { name: string; bytes: Uint8Array<ArrayBuffer> | string };

function request(files: Upload[], fields: Record<string, string>): Request {
  const form = new FormData();
  for (const f of files) form.append("file", new File([f.bytes], f.name));
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return new Request("http://graft.test/api/admin/corpora/import", { method: "POST", body: form });
}

async function store(t: TestDb) {
  const [papers, citations, corpora, maxUpdated] = await Promise.all([
    t.db.paper.count(),
    t.db.citation.count(),
    t.db.corpus.count(),
    t.db.paper.aggregate({ _max: { updatedAt: true } }),
  ]);
  return { papers, citations, corpora, maxUpdated: maxUpdated._max.updatedAt?.toISOString() ?? null };
}

describe(`POST /api/admin/corpora/import (${testProvider})`, { concurrency: false }, () => {
  const dir = useFixtureDir("graft-corpus-upload-");
  let t: TestDb;
  before(async () => {
    t = await createTestDb();
  });
  after(async () => {
    await t.cleanup();
  });

  const upload = async (files: Upload[], fields: Record<string, string>, maxBytes?: number) => {
    const res = await handleCorpusUpload(request(files, fields), t.db, { maxBytes });
    return { status: res.status, body: (await res.json()) as unknown };
  };

  // Counted by hand from the example files: papers, those without an abstract, citations between them.
  const cases = [
    { format: "bibtex", files: ["zotero.bib"], papers: 3, withoutAbstract: 1, citations: 0 },
    { format: "ris", files: ["mendeley.ris"], papers: 3, withoutAbstract: 1, citations: 0 },
    { format: "openalex", files: ["openalex-works.jsonl"], papers: 3, withoutAbstract: 1, citations: 2 },
    { format: "arxiv", files: ["arxiv-metadata.json"], papers: 3, withoutAbstract: 0, citations: 0 },
    { format: "s2", files: ["s2/papers.jsonl", "s2/abstracts.jsonl", "s2/citations.jsonl"], papers: 3, withoutAbstract: 1, citations: 2 },
  ];

  for (const c of cases) {
    test(`${c.format}: detected, imported into a new corpus; the same upload again adds nothing`, async () => {
      const corpus = `up-${c.format}`;
      const files = c.files.map(example);
      const first = await upload(files, { corpus, format: "detect" });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const r = first.body as CorpusUploadResult;
      assert.equal(r.corpus, corpus);
      assert.equal(r.newCorpus, true);
      assert.equal(r.format, c.format);
      assert.deepEqual(r.papers, { created: c.papers, updated: 0, unchanged: 0 });
      assert.equal(r.alreadyPresent, 0);
      assert.equal(r.withoutAbstract, c.withoutAbstract);
      assert.equal(r.citations.total, c.citations);
      assert.equal(r.corpusPapers, c.papers);
      // Imported papers carry no facets: extraction is the next step, then the graph build.
      assert.equal(r.papersWithoutFacets, c.papers);
      assert.deepEqual(
        r.nextSteps.map((s) => s.command),
        [`npm run graft -- extract --corpus ${corpus}`, `npm run graft -- build --stage graph --corpus ${corpus}`],
      );
      assert.equal((await t.db.corpus.findUniqueOrThrow({ where: { name: corpus } })).source, `upload: ${files.map((f) => f.name).join(", ")}`);

      const before = await store(t);
      const again = await upload(files, { corpus, format: c.format });
      assert.equal(again.status, 200);
      const a = again.body as CorpusUploadResult;
      assert.equal(a.newCorpus, false);
      assert.deepEqual(a.papers, { created: 0, updated: 0, unchanged: c.papers });
      assert.equal(a.alreadyPresent, c.papers);
      assert.deepEqual(a.citations, { created: 0, deleted: 0, total: c.citations });
      assert.deepEqual(await store(t), before);
    });
  }

  test("one implementation: the upload stores what `graft import` (readCorpus + importCorpus) stores", async () => {
    const file = path.join(EXAMPLES, "zotero.bib");
    await importCorpus(t.db, await readCorpus(file), { corpus: "cli-bib" });
    const rows = async (corpus: string) =>
      (
        await t.db.paper.findMany({
          where: { corpus: { name: corpus } },
          select: { externalId: true, title: true, abstract: true, year: true, venue: true, authors: true, facetStatus: true },
          orderBy: { externalId: "asc" },
        })
      ).map((p) => JSON.stringify(p));
    assert.deepEqual(await rows("up-bibtex"), await rows("cli-bib"));
    assert.equal((await rows("up-bibtex")).length, 3);
  });

  test("a malformed file is refused with file:line issues and nothing is written", async () => {
    const before = await store(t);
    const broken =
      readFileSync(path.join(EXAMPLES, "zotero.bib"), "utf8") + "\n@misc{broken, year = {2020}}\n@article{vaswani2017attention, title = {Again}}\n";
    const lines = broken.split("\n");
    const brokenLine = lines.findIndex((l) => l.startsWith("@misc{broken")) + 1;
    const dupLine = lines.findIndex((l) => l.startsWith("@article{vaswani2017attention")) + 1;
    const res = await upload([{ name: "my library.bib", bytes: broken }], { corpus: "up-broken" });
    assert.equal(res.status, 400);
    const { error } = res.body as ApiErrorBody;
    assert.equal(error.code, "invalid_request");
    assert.match(error.message, /^my library\.bib has 2 problems; nothing was imported\.$/);
    const first = lines.findIndex((l) => l.startsWith("@inproceedings{vaswani2017attention")) + 1;
    assert.deepEqual(error.issues, [
      { path: `my library.bib:${brokenLine}`, message: '"title" is missing' },
      { path: `my library.bib:${dupLine}`, message: `duplicate id "vaswani2017attention" (first on line ${first})` },
    ]);
    assert.deepEqual(await store(t), before);
    assert.equal(await t.db.corpus.count({ where: { name: "up-broken" } }), 0);

    // Into an existing corpus, too: a refused file changes none of its papers.
    const changed = broken.replace("Attention Is All You Need", "Attention Is All You Need, Revised");
    assert.equal((await upload([{ name: "zotero.bib", bytes: changed }], { corpus: "up-bibtex" })).status, 400);
    assert.deepEqual(await store(t), before);
  });

  test("with skipInvalid the bad records are skipped and listed; the rest is imported", async () => {
    const text = "@article{good, title = {A Good Paper}, year = {2020}}\n@misc{bad, year = {2020}}\n";
    const res = await upload([{ name: "mixed.bib", bytes: text }], { corpus: "up-skip", skipInvalid: "on" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const r = res.body as CorpusUploadResult;
    assert.equal(r.papers.created, 1);
    assert.equal(r.skipped.count, 1);
    assert.match(r.skipped.lines[0], /^mixed\.bib:2: /);
  });

  test("a format the file does not hold is refused; an unknown format or a bad corpus name fails zod with its field", async () => {
    const ris = await upload([example("mendeley.ris")], { corpus: "up-wrong", format: "bibtex" });
    assert.equal(ris.status, 400);
    assert.equal(await t.db.corpus.count({ where: { name: "up-wrong" } }), 0);

    const unknown = await upload([example("zotero.bib")], { corpus: "up-x", format: "endnote" });
    assert.equal(unknown.status, 400);
    assert.deepEqual(
      (unknown.body as ApiErrorBody).error.issues?.map((i) => i.path),
      ["format"],
    );
    const name = await upload([example("zotero.bib")], { corpus: "no spaces/allowed" });
    assert.equal(name.status, 400);
    assert.deepEqual(
      (name.body as ApiErrorBody).error.issues?.map((i) => i.path),
      ["corpus"],
    );
    const missing = await upload([example("zotero.bib")], {});
    assert.equal(missing.status, 400);
  });

  test("a file whose format cannot be told names the file, not the server's temp path", async () => {
    const res = await upload([{ name: "notes.txt", bytes: "just some notes\n" }], { corpus: "up-notes" });
    assert.equal(res.status, 400);
    const { error } = res.body as ApiErrorBody;
    assert.match(error.message, /notes\.txt/);
    assert.doesNotMatch(error.message, /graft-import-/);
    assert.match(error.message, /pick its format in the form/);
  });

  test("size limit → 413 too_large naming the CLI; no file → 400; not multipart → 415", async () => {
    const big = await upload([example("zotero.bib")], { corpus: "up-big" }, 100);
    assert.equal(big.status, 413);
    const e = (big.body as ApiErrorBody).error;
    assert.equal(e.code, "too_large");
    assert.match(e.message, /more than the 100 bytes it may be/);
    assert.match(e.message, /npm run graft -- import <file> --corpus up-big/);

    const none = await upload([], { corpus: "up-none" });
    assert.equal(none.status, 400);
    assert.match((none.body as ApiErrorBody).error.message, /no "file" field/);

    const json = await handleCorpusUpload(
      new Request("http://graft.test/api/admin/corpora/import", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }),
      t.db,
    );
    assert.equal(json.status, 415);
    assert.equal(await t.db.corpus.count({ where: { name: { in: ["up-big", "up-none"] } } }), 0);
  });

  test("a gzipped Graft JSONL papers file is read as the CLI reads it", async () => {
    const { gzipSync } = await import("node:zlib");
    const line = (v: unknown) => JSON.stringify(v) + "\n";
    const jsonl = line({ id: "p1", title: "One", abstract: "First.", year: 2020 }) + line({ id: "p2", title: "Two", abstract: "", year: 2021 });
    const file = dir.write("papers.jsonl.gz", gzipSync(jsonl));
    const res = await upload([{ name: "papers.jsonl.gz", bytes: new Uint8Array(readFileSync(file)) }], { corpus: "up-graft" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const r = res.body as CorpusUploadResult;
    assert.equal(r.format, "graft");
    assert.deepEqual([r.papers.created, r.withoutAbstract], [2, 1]);
  });
});
