import { test } from "node:test";
import assert from "node:assert/strict";
import { createFusion, corroborationRrf, graphRrf, lmScore, rrf, listsFromPapers, type FacetLists } from "./index";

const lists: FacetLists = {
  problems: [
    { paper: 0, score: -1 },
    { paper: 1, score: -0.5 },
    { paper: 2, score: -2 },
  ],
  methods: [
    { paper: 2, score: -0.1 },
    { paper: 1, score: -3 },
  ],
};

test("createFusion dispatches to each rule and excludes an in-corpus query", () => {
  assert.deepEqual(createFusion("rrf").fuse(lists, { query: 0 }), rrf(lists, { exclude: 0 }));
  const weightOf = (_f: string, _q: number, d: number): number => (d === 1 ? 0.5 : 0);
  assert.deepEqual(createFusion("graph-rrf", { weightOf }).fuse(lists, { query: 0 }), graphRrf(lists, { query: 0, weightOf }));
  const facetScore = (): number => 0.25;
  assert.deepEqual(createFusion("corroboration", { facetScore }).fuse(lists), corroborationRrf(lists, { facetScore }));
  assert.deepEqual(createFusion("lm-score", { topN: 2 }).fuse(lists), lmScore(lists, { topN: 2 }));
  assert.equal(createFusion("lm-score").name, "lm-score");
});

test("graph-rrf needs the query", () => {
  assert.throws(() => createFusion("graph-rrf", { weightOf: () => 1 }).fuse(listsFromPapers({ problems: [1] })), /query/);
});
