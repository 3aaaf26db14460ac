import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createTestDb, testProvider, type TestDb } from "@/lib/db/testing";
import { listPapers, paperListQuery } from "./browse";
import { useFixtureDir } from "./formats/testing";
import { importCorpus } from "./import";
import { readCorpus } from "./read";

// Issue 28, finding 8: "%" and "_" in a title search are text, not SQL wildcards; BibTeX's "<"
// and ">" stay "<" and ">" (the parser's OT1 reading made them "¡" and "¿").

const BIB = `@article{lt2020,
  title = {Bounds for x < y and a > b in <i>Cascades</i>},
  author = {Lee, Ann},
  year = {2020},
  abstract = {We show that p < 0.05 holds for $n > 3$.}
}
@article{es2021,
  title = {¡Hola! Spanish questions: ¿qué?},
  author = {García, Ana},
  year = {2021}
}
`;

describe("BibTeX keeps < and >", () => {
  const dir = useFixtureDir("graft-bib-lt-");
  test("text and math comparisons, markup tags removed; a title with real ¡ ¿ is untouched", async () => {
    const corpus = await readCorpus(dir.write("lt.bib", BIB));
    assert.deepEqual(
      corpus.papers.map((p) => [p.title, p.abstract]),
      [
        ["Bounds for x < y and a > b in Cascades", "We show that p < 0.05 holds for n>3."],
        ["¡Hola! Spanish questions: ¿qué?", ""],
      ],
    );
  });
});

describe(`title search: % and _ are literal (${testProvider})`, { concurrency: false }, () => {
  let t: TestDb;
  const paper = (externalId: string, title: string) => ({
    externalId,
    title,
    abstract: "An abstract.",
    fullText: null,
    year: 2020,
    venue: null,
    authors: [],
    split: null,
    facets: null,
  });
  before(async () => {
    t = await createTestDb();
    const files = { papers: "papers.jsonl", citations: null, queries: null, queryGold: null };
    const papers = [paper("a", "100% recall"), paper("b", "1000 recalls"), paper("c", "snake_case names"), paper("d", "snakescase names")];
    await importCorpus(t.db, { files, papers, citations: [], queries: [], queryGold: [], skipped: [] }, { corpus: "w" });
  });
  after(async () => {
    await t.cleanup();
  });

  const titles = async (q: string, page = 1, pageSize = 20) => {
    const r = await listPapers(t.db, paperListQuery.parse({ corpus: "w", q, page: String(page), pageSize: String(pageSize) }));
    return { total: r.total, titles: r.items.map((p) => p.title) };
  };

  test("'100%' finds the title with 100%, not 1000; 'e_c' finds snake_case, not snakescase", async () => {
    assert.deepEqual(await titles("100%"), { total: 1, titles: ["100% recall"] });
    assert.deepEqual(await titles("e_c"), { total: 1, titles: ["snake_case names"] });
    assert.deepEqual(await titles("_"), { total: 1, titles: ["snake_case names"] });
  });

  test("plain text searches and paging are as before", async () => {
    assert.deepEqual((await titles("recall")).total, 2);
    assert.deepEqual(await titles("names", 2, 1), { total: 2, titles: ["snakescase names"] });
  });
});
