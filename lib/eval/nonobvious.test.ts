import assert from "node:assert/strict";
import { test } from "node:test";
import { citationCounts, combineFacetScores, mostCitedNonObvious, nonObviousBaseRate, nonObviousRow, nonObviousStats, rankByCitations } from "./nonobvious";

const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≉ ${b}`);

// Two queries over a 10-paper corpus.
// q0: retrieved [1, 2, 3, 4], obvious {1, 2}, gold {2, 4, 7} → non-obvious 3, 4; correct 2 (obvious), 4 (non-obvious).
// q1: retrieved [5, 6, 5], obvious {5}, gold {6, 8}        → 5 counted once; non-obvious 6; correct 6 (non-obvious).
const runs = [
  { retrieved: [1, 2, 3, 4], obvious: new Set([1, 2]), gold: new Set([2, 4, 7]) },
  { retrieved: [5, 6, 5], obvious: new Set([5]), gold: new Set([6, 8]) },
];

test("non-obvious shares and precision are micro-averaged over pairs", () => {
  const s = nonObviousStats(runs, 20);
  assert.equal(s.retrieved, 6);
  assert.equal(s.nonObvious, 3);
  close(s.nonObviousShare, 3 / 6);
  assert.equal(s.correct, 3);
  assert.equal(s.correctNonObvious, 2);
  close(s.correctNonObviousShare, 2 / 3);
  close(s.nonObviousPrecision, 2 / 3);
  // The cutoff applies before counting: top-2 of q0 is {1, 2} (both obvious), of q1 {5, 6}.
  const s2 = nonObviousStats(runs, 2);
  assert.equal(s2.retrieved, 4);
  assert.equal(s2.nonObvious, 1);
  assert.equal(s2.correctNonObvious, 1);
});

test("base rate counts every non-obvious candidate of every query", () => {
  // q0: gold outside obvious {4, 7} = 2 over 10 − 2 = 8 candidates; q1: {6, 8} = 2 over 9.
  close(nonObviousBaseRate(runs, 10), 4 / 17);
});

test("popularity control: most-cited papers outside the obvious set, ties by index", () => {
  // refs: 0 cites 3, 4; 1 cites 3, 4; 2 cites 3; 5 cites 6 → counts 3:3, 4:2, 6:1.
  const counts = citationCounts([[3, 4], [3, 4, 4], [3], [], [], [6], [], [], [], []]);
  assert.deepEqual([...counts], [0, 0, 0, 3, 2, 0, 1, 0, 0, 0]);
  const byCount = rankByCitations(counts);
  assert.deepEqual([...byCount.slice(0, 4)], [3, 4, 6, 0]);
  assert.deepEqual([...mostCitedNonObvious(counts, new Set([3]), 3, byCount)], [4, 6, 0]);
});

test("lift and popularity ratio divide the method's non-obvious precision", () => {
  const s = nonObviousStats(runs, 20);
  const control = nonObviousStats([{ retrieved: [3, 9], obvious: new Set(), gold: new Set([3]) }], 20); // precision 1/2
  const row = nonObviousRow(s, 0.1, control);
  close(row.citationLift, 2 / 3 / 0.1);
  close(row.popularityRatio, 2 / 3 / 0.5);
});

test("combineFacetScores ranks papers by their best facet score", () => {
  const obvious = combineFacetScores(
    [
      { targets: [1, 2, 3], scores: [0.9, 0.5, 0.4] },
      { targets: [3, 4], scores: [0.95, 0.6] },
    ],
    3,
  );
  // best: 3 → .95, 1 → .9, 4 → .6, 2 → .5
  assert.deepEqual([...obvious].sort(), [1, 3, 4]);
});
