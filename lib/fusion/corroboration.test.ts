import { test } from "node:test";
import assert from "node:assert/strict";
import type { Facet } from "@/lib/corpus";
import type { FacetCsr } from "@/lib/graph";
import { corroboration, corroborationRrf, csrFacetRow, type FacetRow } from "./corroboration";
import { listsFromPapers } from "./types";

const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≉ ${b}`);

// Asymmetric s_f (dyadic values, exact in float32); every other pair is 0.
const S: Partial<Record<Facet, Record<string, number>>> = {
  problems: { "1,2": 0.375, "2,1": 0.625, "1,3": 0.25 },
  methods: { "2,3": 0.5, "1,2": 0.25 },
};
const facetScore = (f: Facet, a: number, b: number): number => S[f]?.[`${a},${b}`] ?? 0;
// Paper 4 is decoded but related to nobody.
const lists = listsFromPapers({ problems: [1, 2, 3, 4], methods: [3, 2] });

test("corr_f sums pairwise maxima over the other retrieved candidates", () => {
  // C = {1, 2, 3, 4} (union of the lists).
  // problems: corr(1) = max(.375,.625) + max(.25,0) + 0 = 0.875; corr(2) = .625 + 0 + 0 = 0.625;
  //           corr(3) = .25; corr(4) = 0.
  const p = corroboration("problems", [1, 2, 3, 4], [1, 2, 3, 4], { facetScore });
  assert.deepEqual(
    [...p],
    [
      [1, 0.875],
      [2, 0.625],
      [3, 0.25],
      [4, 0],
    ],
  );
  // methods: corr(2) = max(s(2,1), s(1,2)) + max(s(2,3), s(3,2)) = .25 + .5 = 0.75 — paper 1 corroborates
  // although methods did not retrieve it; corr(3) = 0.5.
  const m = corroboration("methods", [3, 2], [1, 2, 3, 4], { facetScore });
  assert.deepEqual(
    [...m],
    [
      [3, 0.5],
      [2, 0.75],
    ],
  );
});

test("corroboration RRF: corr_f replaces w_f; uncorroborated candidates drop out", () => {
  // 2: .625/62 (problems r2) + .75/62 (methods r2) = 1.375/62 ≈ 0.022177
  // 1: .875/61 (problems r1)                      ≈ 0.014344
  // 3: .25/63 (problems r3) + .5/61 (methods r1)  ≈ 0.012165
  // 4: corr = 0 → excluded
  const out = corroborationRrf(lists, { facetScore });
  assert.deepEqual(
    out.map((r) => r.paper),
    [2, 1, 3],
  );
  close(out[0].score, 0.625 / 62 + 0.75 / 62);
  close(out[1].score, 0.875 / 61);
  close(out[2].score, 0.25 / 63 + 0.5 / 61);
  assert.deepEqual(out[0].provenance, [
    { facet: "problems", rank: 2, weight: 0.625 },
    { facet: "methods", rank: 2, weight: 0.75 },
  ]);
  // Facet pool: methods' C is {3, 2}, so corr_m(2) = 0.5 and 2 scores (.625 + .5)/62.
  close(corroborationRrf(lists, { facetScore, pool: "facet" })[0].score, 0.625 / 62 + 0.5 / 62);
});

test("the sparse-row path equals the pairwise one", () => {
  const rows: FacetRow = (f, a) => {
    const entries = Object.entries(S[f] ?? {}).filter(([key]) => Number(key.split(",")[0]) === a);
    return { targets: entries.map(([key]) => Number(key.split(",")[1])), scores: entries.map(([, v]) => v) };
  };
  assert.deepEqual(corroborationRrf(lists, { facetRow: rows }), corroborationRrf(lists, { facetScore }));
  assert.throws(() => corroborationRrf(lists, {}), /exactly one/);
  assert.throws(() => corroborationRrf(lists, { facetScore, facetRow: rows }), /exactly one/);
});

test("csrFacetRow reads s_f rows from the stored graph", () => {
  // problems graph over 5 papers: 1→2 (.375), 2→1 (.625), 1→3 (.25).
  const offsets = Int32Array.from([0, 0, 2, 3, 3, 3]);
  const g: FacetCsr = {
    numPapers: 5,
    offsets,
    targets: Int32Array.from([2, 3, 1]),
    weights: Float32Array.from([0.5, 0.5, 0.5]),
    facetScores: Float32Array.from([0.375, 0.25, 0.625]),
    citationScores: new Float32Array(3),
  };
  const corr = corroboration("problems", [1, 2, 3, 4], [1, 2, 3, 4], { facetRow: csrFacetRow({ problems: g }) });
  assert.deepEqual(
    [...corr],
    [
      [1, 0.875],
      [2, 0.625],
      [3, 0.25],
      [4, 0],
    ],
  );
  // With w_f instead: pairs {1,2} and {1,3} weigh .5 each → corr(1) = 1.
  assert.equal(corroboration("problems", [1], [1, 2, 3], { facetRow: csrFacetRow({ problems: g }, "weights") }).get(1), 1);
});
