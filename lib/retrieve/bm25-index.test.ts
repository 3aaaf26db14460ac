import { test } from "node:test";
import assert from "node:assert/strict";
import { tokenize } from "@/lib/text";
import { Bm25Index } from "./bm25-index";

const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≉ ${b}`);

test("tokenize: lowercase alphanumeric runs, optional stopwords", () => {
  assert.deepEqual(tokenize("The Graph-RRF, v2 fusion!"), ["the", "graph", "rrf", "v2", "fusion"]);
  assert.deepEqual(tokenize("The Graph-RRF, v2 fusion!", { stopwords: true }), ["graph", "rrf", "v2", "fusion"]);
  assert.deepEqual(tokenize("Café naïve", { stopwords: new Set(["café"]) }), ["naïve"]);
  assert.deepEqual(tokenize("a bc d", { minLength: 2 }), ["bc"]);
});

// N = 3, lengths 3, 2, 4 → avgdl = 3.
const docs = [
  ["graph", "neural", "retrieval"],
  ["graph", "fusion"],
  ["neural", "neural", "ranking", "model"],
];
// rank-bm25 idf: df = 1 → ln(2.5/1.5) = ln(5/3) ≈ 0.5108; df = 2 (graph, neural) → ln(1.5/2.5) < 0,
// floored to ε·mean idf = 0.25 · (4·ln(5/3) − 2·ln(5/3)) / 6 = ln(5/3)/12 ≈ 0.04257.
const L = Math.log(5 / 3);
// Norms k1·(1 − b + b·|D|/avgdl), k1 = 1.5, b = 0.75: d0 1.5·(.25 + .75) = 1.5, d1 1.125, d2 1.875.

test("BM25 (rank-bm25 Okapi defaults) matches the hand computation", () => {
  const index = new Bm25Index(docs);
  assert.equal(index.avgdl, 3);
  close(index.idf("ranking"), L);
  close(index.idf("graph"), L / 12);
  // [neural, ranking]:
  //   d0: neural tf 1 → (L/12)·1·2.5/(1 + 1.5) = L/12 ≈ 0.04257
  //   d2: neural tf 2 → (L/12)·2·2.5/(2 + 1.875); ranking tf 1 → L·2.5/(1 + 1.875); sum ≈ 0.49913
  //   d1 has neither term and is not returned.
  const hits = index.search(["neural", "ranking"], 10);
  assert.deepEqual(
    hits.map((h) => h.doc),
    [2, 0],
  );
  close(hits[0].score, ((L / 12) * 5) / 3.875 + (L * 2.5) / 2.875);
  close(hits[1].score, L / 12);
  // [graph, fusion]: d1 = (L/12 + L)·2.5/(1 + 1.125) ≈ 0.65105; d0 = L/12.
  const g = index.search(["graph", "fusion"], 1);
  assert.deepEqual(
    g.map((h) => h.doc),
    [1],
  );
  close(g[0].score, ((L / 12 + L) * 2.5) / 2.125);
  const all = index.scores(["graph", "fusion"]);
  close(all[0], L / 12);
  assert.equal(all[2], 0);
  assert.deepEqual(
    index.search(["graph", "fusion"], 5, { exclude: 1 }).map((h) => h.doc),
    [0],
  );
  assert.deepEqual(index.search(["unknown"], 5), []);
});

test("BM25 lucene idf and custom k1/b", () => {
  // df = 2 → ln(1 + 1.5/2.5) = ln 1.6; k1 = 1.2, b = 0 → norm 1.2 everywhere.
  const index = new Bm25Index(docs, { idf: "lucene", k1: 1.2, b: 0 });
  close(index.idf("graph"), Math.log(1.6));
  close(index.scores(["neural"])[2], (Math.log(1.6) * 2 * 2.2) / (2 + 1.2));
});

test("BM25 fromTexts tokenises documents and queries alike", () => {
  const { index, tokenize: tok } = Bm25Index.fromTexts(["Graph neural retrieval", "Graph fusion!", "Neural, neural ranking model"]);
  assert.deepEqual(
    index.search(tok("NEURAL ranking"), 2).map((h) => h.doc),
    [2, 0],
  );
});

test("BM25 over documents tokenised on demand: each read once, the same scores as token lists", () => {
  const texts = ["Graph neural retrieval", "Graph fusion!", "Neural, neural ranking model", ""];
  const reads: number[] = [];
  const lazy = new Bm25Index({ length: texts.length, at: (d) => (reads.push(d), tokenize(texts[d])) }, { idf: "lucene", k1: 1.2 });
  const eager = new Bm25Index(
    texts.map((t) => tokenize(t)),
    { idf: "lucene", k1: 1.2 },
  );
  assert.deepEqual(reads, [0, 1, 2, 3]);
  for (const q of [["neural"], ["graph", "ranking", "neural"], ["absent"]]) {
    assert.deepEqual(lazy.scores(q), eager.scores(q));
    assert.deepEqual(lazy.search(q, 10), eager.search(q, 10));
  }
  assert.equal(lazy.avgdl, 9 / 4);
});
