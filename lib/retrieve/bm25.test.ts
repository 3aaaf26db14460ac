import assert from "node:assert/strict";
import { test } from "node:test";
import { bm25Index, bm25Ranking, titleAndFacets } from "./bm25";

const paper = (title: string, problems: string[], methods: string[] = []) => ({ title, facets: { problems, methods, results: [], contributions: [] } });
const corpus = [
  paper("Neural machine translation", ["translation quality"]),
  paper("Named entity recognition", ["tagging entities in tweets"]),
  paper("Sentiment of reviews", ["polarity"], ["lexicon features"]),
];
const search = bm25Index(corpus.map((p) => titleAndFacets(p.title, p.facets)));
const papers = (text: string, n: number, skip: number[] = []) => bm25Ranking(search, text, n, new Set(skip)).map((c) => c.paper);

test("titleAndFacets: the title, then every facet's items in facet order", () => {
  assert.equal(titleAndFacets(corpus[2].title, corpus[2].facets), "Sentiment of reviews polarity lexicon features");
  assert.equal(titleAndFacets("Only a title", {}), "Only a title");
});

test("BM25 over title and facets finds the lexical match, skips the query and drops function words", () => {
  const q = paper("Entity tagging", ["entities in clinical notes"]);
  assert.deepEqual(papers(titleAndFacets(q.title, q.facets), 2), [1]);
  assert.deepEqual(papers(titleAndFacets(corpus[0].title, corpus[0].facets), 5, [0]), []);
  // "of" and "in" are stopwords: they match nothing.
  assert.deepEqual(papers("of in the", 5), []);
});

test("bm25Ranking keeps n papers after skipping, scores descending", () => {
  const hits = bm25Ranking(search, "translation entities reviews", 2, new Set([0]));
  assert.equal(hits.length, 2);
  assert.ok(!hits.some((h) => h.paper === 0));
  assert.ok(hits[0].score >= hits[1].score);
});
