import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Facet } from "@/lib/corpus";
import type { FacetCsr } from "./csr";
import { csrOf as csrOfRows, type RowEdge, SPLIT_SCORES } from "./csr-testing";
import { type EdgeRow, edgeRowCount, edgeRowSlices } from "./edge-rows";

const csrOf = (rows: RowEdge[][]): FacetCsr => csrOfRows(rows, SPLIT_SCORES);

// Three papers (store ids 11, 22, 33); "results" has no CSR and yields nothing.
const facets: Partial<Record<Facet, FacetCsr>> = {
  // "methods" is listed before "problems" to show rows follow FACETS order, not key order.
  methods: csrOf([[[2, 0.3]], [], [[0, 0.7]]]),
  problems: csrOf([
    [
      [1, 0.9],
      [2, 0.5],
    ],
    [[0, 0.8]],
    [],
  ]),
  contributions: csrOf([[], [[2, 0.25]], [[1, 0.125]]]),
};
const ids = [11, 22, 33];
const f32 = (x: number) => Math.fround(x);
const row = (facet: Facet, s: number, t: number, rank: number, w: number): EdgeRow => [7, facet, s, t, rank, f32(w), f32(w * 0.9), f32(w * 0.1)];
const expected: EdgeRow[] = [
  row("problems", 11, 22, 1, 0.9),
  row("problems", 11, 33, 2, 0.5),
  row("problems", 22, 11, 1, 0.8),
  row("methods", 11, 33, 1, 0.3),
  row("methods", 33, 11, 1, 0.7),
  row("contributions", 22, 33, 1, 0.25),
  row("contributions", 33, 22, 1, 0.125),
];

describe("edgeRowSlices", () => {
  it("yields every CSR edge once, by facet, source and rank, with store ids and the CSR's float32 values", () => {
    assert.equal(edgeRowCount(facets), expected.length);
    assert.deepEqual([...edgeRowSlices(7, facets, ids, 1000)].flat(), expected);
  });

  it("cuts the same rows into slices of at most `step`, the last one short", () => {
    for (const step of [1, 2, 3, 7, 8]) {
      const slices = [...edgeRowSlices(7, facets, ids, step)];
      assert.deepEqual(
        slices.map((s) => s.length),
        Array.from({ length: Math.ceil(expected.length / step) }, (_, i) => Math.min(step, expected.length - i * step)),
        `step ${step}`,
      );
      assert.deepEqual(slices.flat(), expected, `step ${step}`);
    }
  });

  it("yields no slice for a graph without edges", () => {
    assert.equal(edgeRowCount({}), 0);
    assert.deepEqual([...edgeRowSlices(7, {}, ids, 10)], []);
    assert.deepEqual([...edgeRowSlices(7, { problems: csrOf([[], [], []]) }, ids, 10)], []);
  });
});
