import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PaperGraph } from "@/lib/graph";
import { csrOf } from "@/lib/graph/csr-testing";
import { denseGraphRetrieve, rrf, walkFacet } from "./walk";

// Six papers:  0 —.9— 1 —.8— 3 —.5— 5,  0 —.5— 2 —.7— 4,  1 —.6→ 2.
// Weights are powers of two over 8 or 10 so products are exact enough to compare with 1e-6.
const g = csrOf([
  [
    [1, 0.9],
    [2, 0.5],
  ],
  [
    [0, 0.9],
    [3, 0.8],
    [2, 0.6],
  ],
  [
    [4, 0.7],
    [0, 0.5],
  ],
  [
    [1, 0.8],
    [5, 0.5],
  ],
  [[2, 0.7]],
  [[3, 0.5]],
]);

function asPairs(list: { papers: Int32Array; scores: Float64Array }): [number, number][] {
  return Array.from(list.papers, (p, i) => [p, Math.round(list.scores[i] * 1e6) / 1e6]);
}

describe("walkFacet", () => {
  it("keeps the best multiplicative path over two hops, query excluded", () => {
    // 2: direct .5 < via 1 .9×.6 = .54; 4 only via 2's hop-1 score: .5×.7.
    assert.deepEqual(asPairs(walkFacet(g, 0)), [
      [1, 0.9],
      [3, 0.72],
      [2, 0.54],
      [4, 0.35],
    ]);
  });

  it("follows hops 1 and 3", () => {
    assert.deepEqual(asPairs(walkFacet(g, 0, { hops: 1 })), [
      [1, 0.9],
      [2, 0.5],
    ]);
    // Hop 3 improves 4 through 2's better score (.54×.7) and reaches 5 (.72×.5).
    assert.deepEqual(asPairs(walkFacet(g, 0, { hops: 3 })), [
      [1, 0.9],
      [3, 0.72],
      [2, 0.54],
      [4, 0.378],
      [5, 0.36],
    ]);
  });

  it("respects fanout and the cap", () => {
    assert.deepEqual(asPairs(walkFacet(g, 0, { fanout: 1 })), [[1, 0.9]]);
    assert.deepEqual(asPairs(walkFacet(g, 0, { cap: 2 })), [
      [1, 0.9],
      [3, 0.72],
    ]);
  });

  it("can sum paths instead", () => {
    assert.deepEqual(asPairs(walkFacet(g, 0, { combine: "sum" })), [
      [2, 1.04],
      [1, 0.9],
      [3, 0.72],
      [4, 0.35],
    ]);
  });

  it("starts from ephemeral edges for an out-of-corpus query", () => {
    // Ties (.5) go to the lower paper index.
    assert.deepEqual(asPairs(walkFacet(g, { targets: [3, 4], weights: [1, 0.5] })), [
      [3, 1],
      [1, 0.8],
      [4, 0.5],
      [5, 0.5],
      [2, 0.35],
    ]);
    assert.deepEqual(asPairs(walkFacet(g, { targets: [3], weights: [1], exclude: 1 })), [
      [3, 1],
      [5, 0.5],
    ]);
  });
});

describe("rrf", () => {
  it("ranks by Σ 1/(60 + rank) and records provenance", () => {
    const fused = rrf({ problems: [1, 2, 3], methods: [2, 4], results: [], contributions: [3, 1] });
    assert.deepEqual(
      fused.map((r) => r.paper),
      [1, 2, 3, 4],
    );
    assert.equal(fused[0].score, 1 / 61 + 1 / 62);
    assert.equal(fused[1].score, fused[0].score); // tie broken by paper index
    assert.equal(fused[2].score, 1 / 63 + 1 / 61);
    // Plain RRF weighs every credited facet 1 (the shared fusion result shape carries w_f).
    assert.deepEqual(fused[2].provenance, [
      { facet: "problems", rank: 3, weight: 1 },
      { facet: "contributions", rank: 1, weight: 1 },
    ]);
    assert.deepEqual(fused[3].provenance, [{ facet: "methods", rank: 2, weight: 1 }]);
    assert.equal(fused[3].score, 1 / 62);
  });

  it("truncates to topN and honours k", () => {
    const fused = rrf({ methods: [5, 6, 7] }, { k: 1, topN: 2 });
    assert.deepEqual(
      fused.map((r) => [r.paper, r.score]),
      [
        [5, 1 / 2],
        [6, 1 / 3],
      ],
    );
  });
});

describe("denseGraphRetrieve", () => {
  it("walks each facet and fuses the lists", () => {
    const other = csrOf([[[5, 1]], [], [], [], [], [[4, 0.5]]]);
    const graph: PaperGraph = { numPapers: 6, k: 3, facets: { problems: g, methods: other } };
    const { results, perFacet } = denseGraphRetrieve(graph, 0);
    assert.deepEqual(Array.from(perFacet.methods?.papers ?? []), [5, 4]);
    // 4: problems rank 4 + methods rank 2; 1: problems rank 1; 5: methods rank 1.
    assert.deepEqual(
      results.map((r) => r.paper),
      [4, 1, 5, 3, 2],
    );
    assert.deepEqual(
      results[0].provenance.map((p) => p.facet),
      ["problems", "methods"],
    );
  });
});
