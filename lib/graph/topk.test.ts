import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { buildCitationIndex, CitationRowScanner, citationScoreOf, citationScores, storedCitationRows } from "./citation-score";
import { maxSimFacetScore, maxSimOneToMany, numPapersOf, packFacetItems, type PackedFacetItems } from "./maxsim";
import { MaxSimEngine, prepareFacetBlocks } from "./maxsim-engine";
import { bruteForceFacetTopK, buildFacetEdges, buildPaperGraph, ephemeralEdges, facetTopK, queryFacetTopK } from "./topk";
import type { RankedNeighbours } from "./topk-accumulator";
import { mulberry32 } from "@/lib/random";

const rng = mulberry32;

function unit(rand: () => number, dim: number): Float32Array {
  const v = Float32Array.from({ length: dim }, () => rand() * 2 - 1);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** Papers with 1..maxItems items, plus some 1-item and 5-item papers guaranteed. */
function randomCorpus(seed: number, n: number, dim: number): Float32Array[][] {
  const rand = rng(seed);
  return Array.from({ length: n }, (_, p) => {
    const count = p % 7 === 0 ? 1 : p % 7 === 1 ? 5 : 1 + Math.floor(rand() * 5);
    return Array.from({ length: count }, () => unit(rand, dim));
  });
}

/** Same neighbours and scores, allowing an order swap only where two scores are within float error. */
function assertSameTopK(got: RankedNeighbours, want: RankedNeighbours): void {
  assert.deepEqual(Array.from(got.offsets), Array.from(want.offsets));
  for (let p = 0; p < want.numPapers; p++) {
    for (let e = want.offsets[p]; e < want.offsets[p + 1]; e++) {
      assert.ok(Math.abs(got.scores[e] - want.scores[e]) < 1e-5, `paper ${p} rank ${e - want.offsets[p]}: ${got.scores[e]} vs ${want.scores[e]}`);
      if (got.targets[e] !== want.targets[e]) {
        const j = Array.from(want.targets.subarray(want.offsets[p], want.offsets[p + 1])).indexOf(got.targets[e]);
        assert.ok(j >= 0 && Math.abs(want.scores[want.offsets[p] + j] - got.scores[e]) < 1e-5, `paper ${p}: ${got.targets[e]} is not a near-tie`);
      }
    }
  }
}

describe("facetTopK (onnxruntime) against brute force", () => {
  let engine: MaxSimEngine;
  before(async () => {
    engine = await MaxSimEngine.create();
  });
  after(async () => {
    await engine.release();
  });

  it("is exact on random data mixing 1-item and 5-item papers, over many blocks", async () => {
    const items = packFacetItems(randomCorpus(7, 260, 24));
    const want = bruteForceFacetTopK(items, 12);
    // Small chunks force diagonal and off-diagonal blocks between every item-count group.
    const { neighbours, stats } = await facetTopK(items, { k: 12, chunkItems: 40, engine });
    assert.ok(stats.blocks > 20);
    assertSameTopK(neighbours, want);
    for (let p = 0; p < 260; p++) {
      const row = Array.from(neighbours.targets.subarray(neighbours.offsets[p], neighbours.offsets[p + 1]));
      assert.ok(!row.includes(p), "self-pair");
    }
  });

  it("does not pad: a 1-item paper scores exactly against a 5-item paper", async () => {
    const e = (i: number): Float32Array => Float32Array.from({ length: 8 }, (_, j) => (i === j ? 1 : 0));
    // p0 = {e0}; p1 = {e0, e1, e2, e3, e4}: s = ((1 + (1 + 0 + 0 + 0 + 0)/5)/2 + 1)/2 = 0.8.
    const papers = [[e(0)], [e(0), e(1), e(2), e(3), e(4)], [e(5)], [e(6), e(7)]];
    const { neighbours } = await facetTopK(packFacetItems(papers), { k: 3, engine });
    assert.equal(neighbours.targets[neighbours.offsets[0]], 1);
    assert.ok(Math.abs(neighbours.scores[neighbours.offsets[0]] - 0.8) < 1e-6);
    assert.ok(Math.abs(neighbours.scores[neighbours.offsets[1]] - maxSimFacetScore(papers[1], papers[0])) < 1e-6);
  });

  it("handles k above a chunk's size and papers without items", async () => {
    const corpus = randomCorpus(11, 30, 6);
    corpus[4] = [];
    const items = packFacetItems(corpus, 6);
    const want = bruteForceFacetTopK(items, 40);
    const { neighbours } = await facetTopK(items, { k: 40, chunkItems: 9, engine });
    assertSameTopK(neighbours, want);
    assert.equal(neighbours.offsets[5] - neighbours.offsets[4], 0);
    assert.equal(neighbours.offsets[1] - neighbours.offsets[0], 28); // everyone but itself and paper 4
  });

  it("scores an ephemeral query like an indexed paper", async () => {
    const corpus = randomCorpus(3, 90, 16);
    const items = packFacetItems(corpus);
    const blocks = prepareFacetBlocks(items, 50);
    const query = randomCorpus(99, 1, 16)[0];
    const got = await queryFacetTopK(engine, blocks, query, 10);
    const all = maxSimOneToMany(query, items);
    const order = Array.from(all.keys())
      .sort((a, b) => all[b] - all[a] || a - b)
      .slice(0, 10);
    assert.deepEqual(Array.from(got.targets), order);
    got.scores.forEach((s, i) => assert.ok(Math.abs(s - all[order[i]]) < 1e-5));
    const self = await queryFacetTopK(engine, blocks, corpus[5], 10, 5);
    assert.ok(!Array.from(self.targets).includes(5));
    const edges = await ephemeralEdges(engine, blocks, query, { k: 10 });
    assert.deepEqual(Array.from(edges.targets), order);
    edges.weights.forEach((w, i) => assert.ok(Math.abs(w - 0.75 * all[order[i]]) < 1e-5));
  });
});

describe("buildFacetEdges", () => {
  it("is the exact top-k by edge weight over all pairs, citation-only neighbours included", async () => {
    const n = 120;
    const k = 5;
    const corpus = randomCorpus(5, n, 12);
    corpus[3] = []; // a paper without items: s = 0 with everyone, edges only through citations
    const items: PackedFacetItems = packFacetItems(corpus, 12);
    const rand = rng(17);
    const refs = Array.from({ length: n }, (_, p) => Array.from({ length: p === 0 ? 0 : 1 + Math.floor(rand() * 4) }, () => Math.floor(rand() * p)));
    const cites = citationScores(refs);
    // Small chunks: linked pairs fall in diagonal and off-diagonal blocks.
    const lists = await facetTopK(items, { k, citations: storedCitationRows(cites), chunkItems: 30 });
    assert.ok(lists.stats.linkedPairs > 0);
    const csr = buildFacetEdges(lists, { k });
    let citationOnly = 0;
    for (let a = 0; a < n; a++) {
      const w = Array.from({ length: n }, (_, b) =>
        b === a ? -Infinity : 0.75 * maxSimFacetScore(corpus[a], corpus[b]) + 0.25 * citationScoreOf(cites, a, b),
      );
      const want = Array.from(w.keys())
        .sort((x, y) => w[y] - w[x] || x - y)
        .slice(0, k);
      const row = Array.from(csr.targets.subarray(csr.offsets[a], csr.offsets[a + 1]));
      assert.equal(row.length, k);
      row.forEach((b, i) => {
        assert.ok(Math.abs(csr.weights[csr.offsets[a] + i] - w[want[i]]) < 1e-5, `paper ${a} rank ${i}`);
        assert.ok(Math.abs(csr.facetScores[csr.offsets[a] + i] - maxSimFacetScore(corpus[a], corpus[b])) < 1e-5);
        assert.ok(Math.abs(csr.citationScores[csr.offsets[a] + i] - citationScoreOf(cites, a, b)) < 1e-6);
        if (!Array.from(lists.neighbours.targets.subarray(lists.neighbours.offsets[a], lists.neighbours.offsets[a + 1])).includes(b)) citationOnly++;
      });
    }
    assert.ok(citationOnly > 0, "the test data should exercise citation-only edges");
    // Streaming citation rows give the same graph.
    const streamed = buildFacetEdges(await facetTopK(items, { k, citations: new CitationRowScanner(buildCitationIndex(refs)) }), { k });
    assert.deepEqual(Array.from(streamed.targets), Array.from(csr.targets));
    assert.deepEqual(Array.from(streamed.citationScores), Array.from(csr.citationScores));
  });

  it("builds a whole typed graph", async () => {
    const p = packFacetItems(randomCorpus(1, 40, 8));
    const m = packFacetItems(randomCorpus(2, 40, 8));
    const { graph, facets } = await buildPaperGraph({ methods: m, problems: p }, null, { k: 4 });
    assert.equal(graph.numPapers, numPapersOf(p));
    assert.deepEqual(Object.keys(graph.facets), ["problems", "methods"]);
    assert.deepEqual(
      facets.map((f) => f.facet),
      ["problems", "methods"],
    );
    assert.equal(graph.facets.methods?.targets.length, 40 * 4);
    assert.ok(graph.facets.methods?.citationScores.every((c) => c === 0));
  });
});
