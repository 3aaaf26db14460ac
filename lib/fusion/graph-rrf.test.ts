import { test } from "node:test";
import assert from "node:assert/strict";
import type { FacetCsr } from "@/lib/graph";
import { csrWeightOf, graphRrf } from "./graph-rrf";
import { listsFromPapers } from "./types";

const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≉ ${b}`);

/** A one-row CSR: paper 0's edges only (weights are exact in float32). */
function csr(targets: number[], weights: number[]): FacetCsr {
  const numPapers = 5;
  const offsets = new Int32Array(numPapers + 1).fill(targets.length);
  offsets[0] = 0;
  const f32 = Float32Array.from(weights);
  return { numPapers, offsets, targets: Int32Array.from(targets), weights: f32, facetScores: f32, citationScores: new Float32Array(targets.length) };
}

test("graph-RRF: edge-weighted reciprocal ranks, unsupported candidates and facets drop out", () => {
  const weightOf = csrWeightOf({ problems: csr([1, 3], [0.75, 0.5]), methods: csr([3], [0.625]) });
  const lists = listsFromPapers({ problems: [1, 2, 3], methods: [3, 1], results: [2] });
  // q = 0. problems: w(0,1)=0.75 r1, w(0,2)=0 r2, w(0,3)=0.5 r3; methods: w(0,3)=0.625 r1, w(0,1)=0 r2;
  // results has no graph → w = 0.
  //   3: 0.5/63 + 0.625/61 ≈ 0.0177726      1: 0.75/61 ≈ 0.0122951 (methods not credited)
  //   2: 0 everywhere → excluded
  const out = graphRrf(lists, { query: 0, weightOf });
  assert.deepEqual(
    out.map((r) => r.paper),
    [3, 1],
  );
  close(out[0].score, 0.5 / 63 + 0.625 / 61);
  close(out[1].score, 0.75 / 61);
  assert.deepEqual(out[0].provenance, [
    { facet: "problems", rank: 3, weight: 0.5 },
    { facet: "methods", rank: 1, weight: 0.625 },
  ]);
  assert.deepEqual(
    out[1].provenance.map((p) => p.facet),
    ["problems"],
  );
});

test("graph-RRF never returns the query, whatever weightOf says", () => {
  const out = graphRrf(listsFromPapers({ problems: [0, 4] }), { query: 0, weightOf: () => 1 });
  assert.deepEqual(
    out.map((r) => r.paper),
    [4],
  );
  // 4 keeps its rank 2 (the query occupies rank 1 of the decoded list): 1/62.
  close(out[0].score, 1 / 62);
});

test("graph-RRF with unit weights is plain RRF", () => {
  const lists = listsFromPapers({ problems: [1, 2], results: [2, 3] });
  const out = graphRrf(lists, { query: 9, weightOf: () => 1 });
  assert.deepEqual(
    out.map((r) => r.paper),
    [2, 1, 3],
  );
  close(out[0].score, 1 / 62 + 1 / 61);
});
