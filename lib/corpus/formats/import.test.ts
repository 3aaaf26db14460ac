import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createTestDb, testProvider, type TestDb } from "@/lib/db/testing";
import { getPaperDetail } from "../browse";
import { importCorpus } from "../import";
import { CorpusFormatError, readCorpus } from "../read";
import { useFixtureDir } from "./testing";

// Each import format into a real store (SQLite, or PostgreSQL with GRAFT_TEST_PG_URL): papers
// and citations written, a second import of the same file writes nothing, and an input with
// one bad record writes nothing at all.

const BIB = `@inproceedings{vaswani2017attention,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Kaiser, {\\L}ukasz},
  booktitle = {NeurIPS}, year = {2017},
  abstract = {We propose the {Transformer}, based solely on attention.},
}
@article{mueller2019, title = {{\\"U}ber Sprachmodelle}, author = {M{\\"u}ller, J{\\"o}rg}, journal = {TACL}, year = {801}}
`;

const RIS = ["TY  - JOUR", "TI  - Übersetzung", "AU  - García, Ana", "PY  - 2021", "AB  - Ein Abstract.", "ID  - garcia2021", "ER  - ", ""].join("\n");

const work = (id: string, refs: string[], abstract: string | null) =>
  JSON.stringify({
    id: `https://openalex.org/${id}`,
    title: `Work ${id}`,
    publication_year: 2020,
    authorships: [{ author: { display_name: "Zoë Ødegård" } }],
    referenced_works: refs.map((r) => `https://openalex.org/${r}`),
    abstract_inverted_index: abstract === null ? null : Object.fromEntries(abstract.split(" ").map((w, i) => [w, [i]])),
  });
const OPENALEX = [work("W1", ["W2", "W3", "W404"], "first work"), work("W2", ["W3"], "second work"), work("W3", [], null)].join("\n") + "\n";

const ARXIV =
  JSON.stringify({
    id: "2101.00001",
    title: "On $\\alpha$-smoothing",
    abstract: "  Text.\n",
    authors: "A. Garc\\'ia",
    categories: "cs.CL",
    versions: [{ version: "v1", created: "Fri, 1 Jan 2021 10:00:00 GMT" }],
    update_date: "2021-01-02",
  }) + "\n";

async function counts(t: TestDb) {
  const [papers, citations, maxUpdated] = await Promise.all([t.db.paper.count(), t.db.citation.count(), t.db.paper.aggregate({ _max: { updatedAt: true } })]);
  return { papers, citations, maxUpdated: maxUpdated._max.updatedAt?.toISOString() ?? null };
}

describe(`import formats into the store (${testProvider})`, { concurrency: false }, () => {
  const dir = useFixtureDir("graft-formats-import-");
  let t: TestDb;
  before(async () => {
    t = await createTestDb();
  });
  after(async () => {
    await t.cleanup();
  });

  const cases = [
    { corpus: "bib", name: "library.bib", content: BIB, papers: 2, citations: 0, withoutAbstract: 1, notices: 1 },
    { corpus: "ris", name: "library.ris", content: RIS, papers: 1, citations: 0, withoutAbstract: 0, notices: 0 },
    { corpus: "openalex", name: "works.jsonl", content: OPENALEX, papers: 3, citations: 3, withoutAbstract: 1, notices: 1 },
    { corpus: "arxiv", name: "arxiv-metadata-oai-snapshot.json", content: ARXIV, papers: 1, citations: 0, withoutAbstract: 0, notices: 0 },
  ];

  for (const c of cases) {
    test(`${c.corpus}: imported, then the same file again writes nothing`, async () => {
      const file = dir.write(c.name, c.content);
      const first = await importCorpus(t.db, await readCorpus(file), { corpus: c.corpus, source: file });
      assert.deepEqual(first.papers, { created: c.papers, updated: 0, unchanged: 0 });
      assert.equal(first.citations.total, c.citations);
      assert.equal(first.withoutAbstract, c.withoutAbstract);
      assert.equal(first.notices.length, c.notices);
      const before = await counts(t);
      const again = await importCorpus(t.db, await readCorpus(file), { corpus: c.corpus, source: file });
      assert.deepEqual(again.papers, { created: 0, updated: 0, unchanged: c.papers });
      assert.deepEqual(again.citations, { created: 0, deleted: 0, total: c.citations });
      assert.deepEqual(await counts(t), before);
    });
  }

  test("s2: a dataset directory imported, then again: nothing written", async () => {
    const line = (v: unknown) => JSON.stringify(v) + "\n";
    dir.write(
      "s2/papers.jsonl",
      line({ corpusid: 1, title: "One", year: 2020, venue: "ACL", authors: [{ name: "A" }] }) +
        line({ corpusid: 2, title: "Two", year: 2021, venue: "", authors: [] }),
    );
    dir.write("s2/abstracts.jsonl", line({ corpusid: 2, abstract: "Second." }));
    dir.write("s2/citations.jsonl", line({ citingcorpusid: 2, citedcorpusid: 1 }) + line({ citingcorpusid: 2, citedcorpusid: 77 }));
    const first = await importCorpus(t.db, await readCorpus(`${dir.root}/s2`), { corpus: "s2" });
    assert.deepEqual([first.papers.created, first.citations.total, first.withoutAbstract], [2, 1, 1]);
    const before = await counts(t);
    const again = await importCorpus(t.db, await readCorpus(`${dir.root}/s2`), { corpus: "s2" });
    assert.deepEqual(again.papers, { created: 0, updated: 0, unchanged: 2 });
    assert.deepEqual(again.citations, { created: 0, deleted: 0, total: 1 });
    assert.deepEqual(await counts(t), before);
  });

  test("what the store holds: decoded text, the year left out, citations between imported works", async () => {
    const m = await getPaperDetail(t.db, "bib", "mueller2019");
    assert.equal(m?.title, "Über Sprachmodelle");
    assert.equal(m?.year, null);
    assert.deepEqual(m?.authors, ["Jörg Müller"]);
    const w1 = await getPaperDetail(t.db, "openalex", "W1");
    assert.equal(w1?.abstract, "first work");
    assert.deepEqual(w1?.references.map((r) => r.externalId).sort(), ["W2", "W3"]);
  });

  test("all-or-nothing: a changed file with one bad record is refused and the store is untouched", async () => {
    const before = await counts(t);
    const file = dir.write("library.bib", BIB.replace("Attention Is All You Need", "Attention Is All You Need, Revised") + "@misc{broken, year = {2020}}\n");
    await assert.rejects(readCorpus(file), (err: unknown) => {
      assert.ok(err instanceof CorpusFormatError);
      assert.deepEqual(err.issues, [{ file: "library.bib", line: 8, message: '"title" is missing' }]);
      return true;
    });
    assert.deepEqual(await counts(t), before);
    assert.equal((await getPaperDetail(t.db, "bib", "vaswani2017attention"))?.title, "Attention Is All You Need");
  });
});
