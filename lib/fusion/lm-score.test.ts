import { test } from "node:test";
import assert from "node:assert/strict";
import { lmScore } from "./lm-score";
import type { FacetLists } from "./types";

const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≉ ${b}`);

const lists: FacetLists = {
  problems: [
    { paper: 1, score: Math.log(0.5) },
    { paper: 2, score: Math.log(0.25) },
    { paper: 1, score: Math.log(0.125) },
    { paper: 1, score: Math.log(0.25) },
  ],
  methods: [
    { paper: 2, score: Math.log(0.5) },
    { paper: 3, score: Math.log(0.25) },
  ],
};

test("lm-score: sum over views of each view's identifier probability", () => {
  // max within a view: 1 = .5; 2 = .25 (problems) + .5 (methods) = .75; 3 = .25.
  const out = lmScore(lists);
  assert.deepEqual(
    out.map((r) => r.paper),
    [2, 1, 3],
  );
  close(out[0].score, 0.75);
  close(out[1].score, 0.5);
  close(out[2].score, 0.25);
  assert.deepEqual(
    out[0].provenance.map((p) => [p.facet, p.rank]),
    [
      ["problems", 2],
      ["methods", 1],
    ],
  );
  close(out[0].provenance[1].weight, 0.5);
});

test("lm-score within-view sum adds every identifier of the paper", () => {
  // 1 = .5 + .125 + .25 = .875 > 2 = .75.
  const out = lmScore(lists, { withinView: "sum" });
  assert.deepEqual(
    out.map((r) => r.paper),
    [1, 2, 3],
  );
  close(out[0].score, 0.875);
});

test("lm-score takes probabilities as given and needs a score on every candidate", () => {
  const out = lmScore(
    {
      results: [
        { paper: 4, score: 0.2 },
        { paper: 5, score: 0.3 },
      ],
    },
    { logProb: false },
  );
  assert.deepEqual(
    out.map((r) => [r.paper, r.score]),
    [
      [5, 0.3],
      [4, 0.2],
    ],
  );
  assert.throws(() => lmScore({ results: [{ paper: 4 }] }), /no model score/);
});
