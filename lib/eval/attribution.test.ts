import assert from "node:assert/strict";
import { test } from "node:test";
import { graphRrf, csrWeightOf, listsFromPapers, rrf } from "@/lib/fusion";
import type { PaperGraph } from "@/lib/graph";
import { csrOf } from "@/lib/graph/csr-testing";
import { attributionOf, edgeListPairFacets, graphPairFacets } from "./attribution";

// problems: 0→1, 2→0; methods: 0→2, 3→0; results: 1→0.
const graph: PaperGraph = {
  numPapers: 4,
  k: 2,
  facets: {
    problems: csrOf([[[1, 0.5]], [], [[0, 0.5]], []]),
    methods: csrOf([[[2, 0.5]], [], [], [[0, 0.25]]]),
    results: csrOf([[], [[0, 0.75]], [], []]),
  },
};

test("graph reference: the facets of edges between the pair, either direction", () => {
  const ref = graphPairFacets(graph)(0);
  assert.deepEqual(Object.fromEntries([...ref].sort((a, b) => a[0] - b[0])), {
    1: ["problems", "results"],
    2: ["problems", "methods"],
    3: ["methods"],
  });
  assert.deepEqual([...graphPairFacets(graph)(3)], [[0, ["methods"]]]);
});

test("graph-RRF's in-corpus credit is always within the reference; plain RRF's is not", () => {
  // Lists of query 0: problems [1, 3], methods [2, 1], results [3].
  const lists = listsFromPapers({ problems: [1, 3], methods: [2, 1], results: [3] });
  const reference = graphPairFacets(graph)(0);
  const g = graphRrf(lists, { query: 0, weightOf: csrWeightOf(graph) });
  // graph-RRF credits 1 via problems, 2 via methods (3 has no out-edge from 0: dropped).
  const ga = attributionOf([{ results: g, reference }]);
  assert.equal(ga.precision, 1);
  assert.equal(ga.pairs, 2);
  // RRF credits 1: {problems, methods}; 3: {problems, results}; 2: {methods}.
  // Reference: 1 {problems, results}, 3 {methods}, 2 {problems, methods} → correct 1 + 0 + 1 of 5 credits.
  const ra = attributionOf([{ results: rrf(lists, { exclude: 0 }), reference }]);
  assert.equal(ra.pairs, 3);
  assert.ok(Math.abs(ra.precision - 2 / 5) < 1e-12);
  assert.ok(Math.abs(ra.subsetShare - 1 / 3) < 1e-12);
  assert.equal(ra.perFacet.methods.credited, 2);
  assert.equal(ra.perFacet.methods.correct, 1);
  // Only the top k pairs count.
  assert.equal(attributionOf([{ results: rrf(lists, { exclude: 0 }), reference }], 1).pairs, 1);
});

test("edge-list reference from per-facet targets", () => {
  const ref = edgeListPairFacets({ problems: { targets: [4, 5] }, results: { targets: Int32Array.from([5]) } });
  assert.deepEqual(
    [...ref],
    [
      [4, ["problems"]],
      [5, ["problems", "results"]],
    ],
  );
});
