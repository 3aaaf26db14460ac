import assert from "node:assert/strict";
import { it } from "node:test";
import { coverage, type RankedRows } from "./coverage";

function rows(lists: number[][]): RankedRows {
  const offsets = new Int32Array(lists.length + 1);
  lists.forEach((l, p) => (offsets[p + 1] = offsets[p] + l.length));
  return { numPapers: lists.length, offsets, targets: Int32Array.from(lists.flat()) };
}

it("counts papers with an incoming edge in some facet, per K", () => {
  const problems = rows([[1, 2], [0], [], [1]]);
  const methods = rows([[], [], [3, 0], []]);
  const [k1, k2] = coverage({ problems, methods }, [1, 2]);
  // K=1: problems reaches {1, 0}, methods {3}: 3 of 4.
  assert.equal(k1.covered, 3);
  assert.equal(k1.share, 0.75);
  assert.equal(k1.edges, 4);
  assert.deepEqual(k1.perFacet.problems, { covered: 2, share: 0.5, edges: 3 });
  // K=2 adds 2 (problems) and 0 (methods): everyone.
  assert.equal(k2.share, 1);
  assert.equal(k2.edges, 6);
  assert.deepEqual(k2.perFacet.methods, { covered: 2, share: 0.5, edges: 2 });
});

it("refuses a K larger than the rows were built with", () => {
  assert.throws(() => coverage({ results: rows([[1], [0]]) }, [10, 20, 50], 20), /exceeds/);
});
