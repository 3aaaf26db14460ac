import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { FusedResult } from "@/lib/fusion";
import { referenceIndex } from "./citation-expansion";
import { HYBRID, hybridRetriever } from "./hybrid";
import { RERANK_MODEL } from "./rerank-model";
import {
  authorKey,
  citedByCounts,
  citersIndex,
  fitRerankModel,
  learnedRerank,
  citedByPerYear,
  papersByAuthor,
  NEWER_OF,
  RERANK_FEATURES,
  rerankFeatures,
  rerankScore,
  type RerankEvidence,
} from "./rerank";

const col = (name: (typeof RERANK_FEATURES)[number]) => RERANK_FEATURES.indexOf(name);
const fused = (papers: number[]): FusedResult[] =>
  papers.map((paper, i) => ({ paper, score: 1 / (60 + i + 1), provenance: [{ facet: "methods", rank: i + 1, weight: 1 }] }));

describe("rerankFeatures", () => {
  // 0 → 2, 1 → 2, 3 → 2, 3 → 4: node 2 is cited three times, node 4 once.
  const references = referenceIndex(5, [
    [0, 2],
    [1, 2],
    [3, 2],
    [3, 4],
  ]);
  const ev = (queryNode: number | null): RerankEvidence => ({
    bm25: [
      { doc: 0, score: 4 },
      { doc: 1, score: 2 },
    ],
    tfidf: [{ doc: 2, score: 0.5 }],
    references,
    citedBy: citedByCounts(references),
    citers: citersIndex(references),
    queryNode,
    queryVectors: { methods: [new Float32Array([1, 0])] },
    vectorsOf: (f, node) => (f === "methods" ? [new Float32Array([node === 2 ? 0.6 : 0, 0.8])] : []),
    seeds: 50,
    queryAuthors: ["José Gómez", "A. N. Other"],
    paper: (node) => ({ authors: node === 2 ? ["jose gomez", "Someone Else"] : [], year: [2015, 2016, 2012, 2018, 2010][node] }),
    queryYear: null,
    citedByYear: new Float32Array(5),
    // Node 3 (citing 2 and 4) is by the query's first author; node 1 (citing 2) by its second.
    papersByAuthor: papersByAuthor([{ authors: [] }, { authors: ["A. N. Other"] }, { authors: [] }, { authors: ["Jose Gomez"] }, { authors: [] }]),
    hidden: new Set(),
    queryTokens: new Set(["parsing", "neural"]),
    titleTokens: (node) => (node === 2 ? ["neural", "parsing", "model", "study"] : []),
    encoder: { cosine: (node) => [0.1, 0.2, 0.8, 0.4, 0.3][node], best: 0.8 },
  });

  it("reads the text encoder's cosine, raw, over the corpus's best, and for newer papers only", () => {
    // Seeds 0 (2015) and 1 (2016): median year 2016; node 2 is from 2012, node 3 from 2018.
    const [two, three] = rerankFeatures(fused([2, 3]), ev(null));
    assert.equal(two[col("encoder")], 0.8);
    assert.equal(two[col("encoderRel")], 1);
    assert.equal(two[col("encoderNewer")], 0);
    assert.equal(three[col("encoder")], 0.4);
    assert.equal(three[col("encoderRel")], 0.5);
    assert.equal(three[col("encoderNewer")], 0.4);
    const none = rerankFeatures(fused([2]), { ...ev(null), encoder: null })[0];
    assert.deepEqual([none[col("encoder")], none[col("encoderRel")], none[col("encoderNewer")]], [0, 0, 0]);
  });

  it("repeats the evidence for newer candidates in their own columns (0 for the others)", () => {
    // Reference year 2016 (the seeds' median): node 3 (2018) is newer, node 2 (2012) is not.
    const [two, three] = rerankFeatures(fused([2, 3]), ev(null));
    for (const [name, parent] of Object.entries(NEWER_OF)) {
      assert.equal(two[col(name as (typeof RERANK_FEATURES)[number])], 0, name);
      assert.equal(three[col(name as (typeof RERANK_FEATURES)[number])], three[col(parent)], name);
    }
    assert.ok(three[col("encoderRelNewer")] > 0);
  });

  it("counts the seeds that cite a candidate and their squared, normalised BM25 votes", () => {
    const [two, four] = rerankFeatures(fused([2, 4]), ev(null));
    assert.equal(two[col("seedCiters")], Math.log1p(2));
    assert.equal(two[col("seedVote")], 1); // (4/4)² + (2/4)², the largest vote
    assert.equal(four[col("seedVote")], 0);
    assert.equal(two[col("tfidf")], 0.5);
    assert.ok(Math.abs(two[col("dense")] - 0.6) < 1e-6);
    assert.equal(four[col("dense")], 0);
    assert.equal(two[col("methods")], 1);
    assert.equal(four[col("methods")], 1 / Math.sqrt(2));
  });

  it("votes for the papers citing the seeds (later work) and measures years from the seeds' median without a query year", () => {
    // Node 3 cites seed 0 and node 4 cites seeds 0 and 1: both are later work of the query's neighbours.
    const refs = referenceIndex(5, [
      [3, 0],
      [4, 0],
      [4, 1],
    ]);
    const later = { ...ev(null), references: refs, citedBy: citedByCounts(refs), citers: citersIndex(refs) };
    const [three, four, two] = rerankFeatures(fused([3, 4, 2]), later);
    assert.equal(four[col("laterVote")], 1); // (4/4)² + (2/4)², the largest
    assert.equal(three[col("laterVote")], 1 / 1.25);
    assert.equal(four[col("laterSeeds")], Math.log1p(2));
    assert.equal(two[col("laterVote")], 0);
    // Seeds 0 (2015) and 1 (2016): median 2016 (upper middle); node 3 is from 2018, node 2 from 2012.
    assert.equal(three[col("yearDelta")], 2);
    assert.equal(three[col("newer")], 1);
    assert.equal(two[col("yearDelta")], -4);
    assert.equal(two[col("newer")], 0);
    // A query year, when known, is the reference instead.
    const [threeKnown] = rerankFeatures(fused([3]), { ...later, queryYear: 2019 });
    assert.equal(threeKnown[col("yearDelta")], -1);
    assert.equal(threeKnown[col("newer")], 0);
  });

  it("normalises a candidate's citations by its year's mean", () => {
    const perYear = citedByPerYear(new Int32Array([4, 0, 2, 1]), (n) => [2015, 2015, 2016, 2016][n]);
    assert.deepEqual(perYear, Float32Array.from([2, 0, 4 / 3, 2 / 3]));
  });

  it("leaves the query's own citations out of a candidate's citation count", () => {
    // Node 3 is the query (an evaluation's excluded paper): its citations of 2 and 4 are its gold.
    const [two, four] = rerankFeatures(fused([2, 4]), ev(3));
    assert.equal(two[col("citedBy")], Math.log1p(2));
    assert.equal(four[col("citedBy")], 0);
    const [twoOpen] = rerankFeatures(fused([2]), ev(null));
    assert.equal(twoOpen[col("citedBy")], Math.log1p(3));
  });

  it("counts the authors a candidate shares with the query", () => {
    const [two, four] = rerankFeatures(fused([2, 4]), ev(null));
    assert.equal(two[col("sharedAuthors")], 1, "names match without case or accents");
    assert.equal(four[col("sharedAuthors")], 0);
    assert.equal(authorKey("Gómez,  J."), "gomez j");
  });

  it("counts the corpus papers by the query's authors that cite a candidate, the query's own node and hidden papers aside", () => {
    const [two, four] = rerankFeatures(fused([2, 4]), ev(null));
    assert.equal(two[col("authorsCite")], 2, "node 3 (first author) and node 1 (second author)");
    assert.equal(four[col("authorsCite")], 1);
    const [twoAsQuery] = rerankFeatures(fused([2]), ev(3));
    assert.equal(twoAsQuery[col("authorsCite")], 1, "the query's own citations are its gold");
    const [twoHidden] = rerankFeatures(fused([2]), { ...ev(null), hidden: new Set([1]) });
    assert.equal(twoHidden[col("authorsCite")], 1);
  });

  it("counts co-citations with the head's first results, leaving the query's own citations out", () => {
    // 2 and 4 are cited together by node 3 only.
    const [, four] = rerankFeatures(fused([2, 4]), ev(null));
    assert.equal(four[col("coCited")], Math.log1p(1));
    const [, fourAsQuery] = rerankFeatures(fused([2, 4]), ev(3));
    assert.equal(fourAsQuery[col("coCited")], 0);
  });

  it("counts co-citations with the lexical seeds, leaving the query's own and hidden papers' citations out", () => {
    // Seed 4 is cited by node 3, which also cites node 2: 2 is co-cited with the first seed.
    const seeded = (queryNode: number | null, hidden: number[] = []): RerankEvidence => ({
      ...ev(queryNode),
      bm25: [{ doc: 4, score: 1 }],
      hidden: new Set(hidden),
    });
    const [two, four] = rerankFeatures(fused([2, 4]), seeded(null));
    assert.equal(two[col("coCitedSeeds")], Math.log1p(1));
    assert.equal(four[col("coCitedSeeds")], 0, "a seed is not co-cited with itself");
    assert.equal(rerankFeatures(fused([2]), seeded(3))[0][col("coCitedSeeds")], 0);
    assert.equal(rerankFeatures(fused([2]), seeded(null, [3]))[0][col("coCitedSeeds")], 0);
  });

  it("measures the share of a candidate's title words that the query uses", () => {
    const [two, four] = rerankFeatures(fused([2, 4]), ev(null));
    assert.equal(two[col("titleMatch")], 0.5); // "neural" and "parsing" of 4 title words
    assert.equal(four[col("titleMatch")], 0, "no title words: no match");
  });
});

describe("fitRerankModel and learnedRerank", () => {
  // Gold candidates have a high seedVote and sit low in the fused order.
  const queries = Array.from({ length: 30 }, (_, q) => {
    const rows = Array.from({ length: 10 }, (_, i) =>
      RERANK_FEATURES.map((f) => (f === "seedVote" ? (i === 7 || i === 9 ? 1 : 0) : f === "fusedRank" ? 1 / Math.log2(2 + i) : ((q * 7 + i * 3) % 5) / 5)),
    );
    return { rows, labels: rows.map((_, i) => (i === 7 || i === 9 ? 1 : 0)) };
  });

  it("learns a positive weight for a feature that separates gold, and moves gold to the top", () => {
    const model = fitRerankModel(queries, { depth: 10 });
    assert.ok(model.weights[col("seedVote")] > 0.5, `seedVote weight ${model.weights[col("seedVote")]}`);
    const order = learnedRerank(fused([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), queries[0].rows, model);
    assert.deepEqual(new Set(order.slice(0, 2).map((r) => r.paper)), new Set([7, 9]));
    // Below the model's depth the fused order stands, and nothing is lost.
    assert.deepEqual(
      order.slice(10).map((r) => r.paper),
      [10, 11],
    );
    assert.equal(new Set(order.map((r) => r.paper)).size, 12);
  });

  it("is deterministic and scores with the standardisation it was fitted with", () => {
    const a = fitRerankModel(queries, { depth: 10 });
    const b = fitRerankModel(queries, { depth: 10 });
    assert.deepEqual(a, b);
    const row = queries[0].rows[7];
    const manual = a.weights.reduce((s, w, j) => s + (w * (row[j] - a.mean[j])) / a.scale[j], a.bias);
    assert.equal(rerankScore(a, row), manual);
  });
});

describe("the shipped model", () => {
  it("reads today's features, in their order (those left out of the fit absent)", () => {
    assert.ok(RERANK_MODEL, "a fitted model ships with the default retriever");
    const known = RERANK_MODEL.features.map((f) => (RERANK_FEATURES as readonly string[]).indexOf(f));
    assert.ok(
      known.every((j) => j >= 0),
      `unknown features: ${RERANK_MODEL.features.join(", ")}`,
    );
    assert.deepEqual(
      known,
      [...known].sort((a, b) => a - b),
    );
    for (const xs of [RERANK_MODEL.mean, RERANK_MODEL.scale, RERANK_MODEL.weights, ...(RERANK_MODEL.hidden?.weights ?? [])])
      assert.equal(xs.length, RERANK_MODEL.features.length);
    const units = RERANK_MODEL.hidden;
    if (units) assert.ok(units.bias.length === units.weights.length && units.out.length === units.weights.length);
    assert.ok(RERANK_MODEL.scale.every((x) => x > 0));
  });

  it("reads no item vectors, so a pasted paper's items are never embedded with the build's embedder on the request path", () => {
    assert.ok(!RERANK_MODEL?.features.includes("dense"));
    assert.equal(hybridRetriever().readsItemVectors, false);
    assert.equal(hybridRetriever({ ...HYBRID, generativeWeight: 1 }).readsItemVectors, true);
  });
});
