import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { mulberry32 } from "@/lib/random";
import { citationScoreOf, citationScores, storedCitationRows } from "./citation-score";
import { fitLexicalModel, LexicalIndex, lexicalVector, packLexicalItems } from "./lexical";
import { maxSimFacetScore, packFacetItems } from "./maxsim";
import {
  COSINE,
  DEFAULT_ITEM_SIMILARITY,
  edgeWeightFor,
  itemSimilaritySpec,
  MIX_EDGE_WEIGHT,
  mixedFacetEdges,
  mixScore,
  parseItemSimilarity,
  similarityOfParams,
} from "./similarity";
import { MaxSimEngine, prepareFacetBlocks } from "./maxsim-engine";
import { facetTopK, mixedQueryTopK } from "./topk";

const close = (a: number, b: number, eps = 1e-5): void => assert.ok(Math.abs(a - b) < eps, `${a} ≉ ${b}`);

const WORDS = "translation neural machine entity recognition tagger sentiment review parsing dependency graph attention corpus bilingual lexicon tweets".split(
  " ",
);

/** n papers, each with 0-3 items: a text and a unit vector per item. */
function corpus(seed: number, n: number, dim: number): { texts: string[][]; vectors: Float32Array[][] } {
  const rand = mulberry32(seed);
  const texts: string[][] = [];
  const vectors: Float32Array[][] = [];
  for (let p = 0; p < n; p++) {
    const count = p === 4 ? 0 : 1 + Math.floor(rand() * 3);
    texts.push(
      Array.from({ length: count }, () => Array.from({ length: 2 + Math.floor(rand() * 4) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ")),
    );
    vectors.push(
      Array.from({ length: count }, () => {
        const v = Float32Array.from({ length: dim }, () => rand() * 2 - 1);
        const norm = Math.hypot(...v);
        return v.map((x) => x / norm);
      }),
    );
  }
  return { texts, vectors };
}

describe("item similarity specs", () => {
  it("parses cosine, mix and mix:λ, and prints them back", () => {
    assert.deepEqual(parseItemSimilarity("cosine"), COSINE);
    assert.deepEqual(parseItemSimilarity("mix"), { kind: "mix", lexicalWeight: 0.5 });
    assert.deepEqual(parseItemSimilarity(" MIX:0.3 "), { kind: "mix", lexicalWeight: 0.3 });
    assert.equal(itemSimilaritySpec(parseItemSimilarity("mix:1")), "mix:1");
    assert.equal(itemSimilaritySpec(COSINE), "cosine");
    for (const bad of ["mix:", "mix:1.5", "mix:-0.1", "mix:x", "bm25", ""]) assert.throws(() => parseItemSimilarity(bad), /similarity must be/, bad);
    assert.equal(DEFAULT_ITEM_SIMILARITY.kind, "mix");
  });

  it("reads a build's parameters: builds made before the option are cosine", () => {
    assert.deepEqual(similarityOfParams({}), COSINE);
    assert.deepEqual(similarityOfParams({ similarity: "mix:0.25" }), { kind: "mix", lexicalWeight: 0.25 });
  });

  it("gives a mix build the edge weights tuned for it, a cosine build the paper's", () => {
    assert.deepEqual(edgeWeightFor(DEFAULT_ITEM_SIMILARITY), MIX_EDGE_WEIGHT);
    assert.deepEqual(edgeWeightFor(COSINE), { alpha: 0.75, beta: 0.25 });
    assert.deepEqual(edgeWeightFor(COSINE, 0.5), { alpha: 0.5, beta: 0.5 });
    assert.deepEqual(edgeWeightFor(DEFAULT_ITEM_SIMILARITY, 0.6, 0.1), { alpha: 0.6, beta: 0.1 });
  });

  it("mixes the two scores linearly", () => {
    assert.equal(mixScore(0, 0.8, 0.1), 0.8);
    assert.equal(mixScore(1, 0.8, 0.1), 0.1);
    close(mixScore(0.25, 0.8, 0.4), 0.7);
  });
});

describe("mixed s_f: graph edges and ephemeral insertion", () => {
  let engine: MaxSimEngine;
  before(async () => {
    engine = await MaxSimEngine.create({ threads: 1 });
  });
  after(async () => {
    await engine.release();
  });

  const n = 50;
  const { texts, vectors } = corpus(11, n, 8);
  const dense = packFacetItems(vectors, 8);
  const model = fitLexicalModel(texts.flat());
  const index = new LexicalIndex(packLexicalItems(model, texts));
  const rand = mulberry32(5);
  const refs = Array.from({ length: n }, (_, p) => Array.from({ length: p < 2 ? 0 : 1 + Math.floor(rand() * 3) }, () => Math.floor(rand() * p)));
  const cites = citationScores(refs);
  const lambda = 0.4;
  const sMix = (a: number, b: number) => mixScore(lambda, maxSimFacetScore(vectors[a], vectors[b]), index.pairScore(a, b));

  it("ranks w = α·s_mix + β·c exactly when the candidate lists hold every paper", async () => {
    const k = 5;
    const wide = n - 1;
    const lists = await facetTopK(dense, { k: wide, citations: storedCitationRows(cites), chunkItems: 20 });
    const csr = mixedFacetEdges(
      { cosine: lists.neighbours, linked: lists.linked, lexical: index.allPairsTopK(wide), dense, index, citations: storedCitationRows(cites) },
      { k, lexicalWeight: lambda },
    );
    for (let a = 0; a < n; a++) {
      const w = Array.from({ length: n }, (_, b) => (b === a ? -Infinity : 0.75 * sMix(a, b) + 0.25 * citationScoreOf(cites, a, b)));
      const want = Array.from(w.keys())
        .sort((x, y) => w[y] - w[x] || x - y)
        .slice(0, k);
      const row = Array.from(csr.targets.subarray(csr.offsets[a], csr.offsets[a + 1]));
      assert.equal(row.length, k, `paper ${a}`);
      row.forEach((b, i) => {
        const e = csr.offsets[a] + i;
        close(csr.weights[e], w[want[i]]);
        close(csr.facetScores[e], sMix(a, b));
        close(csr.citationScores[e], citationScoreOf(cites, a, b), 1e-6);
      });
    }
  });

  it("with short candidate lists, keeps the pool's best and scores every edge exactly", async () => {
    const lists = await facetTopK(dense, { k: 4, citations: storedCitationRows(cites) });
    const csr = mixedFacetEdges(
      { cosine: lists.neighbours, linked: lists.linked, lexical: index.allPairsTopK(4), dense, index, citations: storedCitationRows(cites) },
      { k: 3, lexicalWeight: lambda },
    );
    for (let a = 0; a < n; a++) {
      for (let e = csr.offsets[a]; e < csr.offsets[a + 1]; e++) {
        const b = csr.targets[e];
        assert.notEqual(b, a);
        close(csr.weights[e], 0.75 * sMix(a, b) + 0.25 * citationScoreOf(cites, a, b));
        if (e > csr.offsets[a]) assert.ok(csr.weights[e] <= csr.weights[e - 1]);
      }
    }
  });

  it("inserts an unseen paper with the same s_f as the build's edges", async () => {
    const blocks = prepareFacetBlocks(dense, 16);
    // Corpus paper 9 sent as an unseen paper (its node excluded): every candidate is scored as its edges are.
    const query = { vectors: vectors[9], lexical: texts[9].map((t) => lexicalVector(model, t)) };
    const got = await mixedQueryTopK(engine, blocks, dense, index, query, { k: 6, lexicalWeight: lambda, candidates: n, exclude: 9 });
    const s = Array.from({ length: n }, (_, b) => (b === 9 ? -Infinity : sMix(9, b)));
    const want = Array.from(s.keys())
      .sort((x, y) => s[y] - s[x] || x - y)
      .slice(0, 6);
    assert.equal(got.targets.length, 6);
    got.targets.forEach((b, i) => {
      close(got.scores[i], s[want[i]]);
      close(got.scores[i], sMix(9, b));
    });
    // A query with items but no known term still ranks by the cosine part.
    const plain = await mixedQueryTopK(
      engine,
      blocks,
      dense,
      index,
      { vectors: vectors[9], lexical: vectors[9].map(() => lexicalVector(model, "zebra")) },
      { k: 3, lexicalWeight: lambda, candidates: 10 },
    );
    plain.targets.forEach((b, i) => close(plain.scores[i], (1 - lambda) * maxSimFacetScore(vectors[9], vectors[b])));
  });
});
