import { test } from "node:test";
import assert from "node:assert/strict";
import {
  aggregateRecall,
  attributionPairs,
  attributionPrecision,
  bootstrapCi,
  recallAtK,
  recallAtKWithCi,
  recallCounts,
  recallTable,
  seededRandom,
  type QueryRun,
} from "./metrics";

const runs: QueryRun[] = [
  { retrieved: [1, 9, 2, 8, 3], gold: [1, 2, 3, 4] }, // 4 gold
  { retrieved: [5, 6], gold: new Set([5]) }, // 1 gold
  { retrieved: [7, 7, 8], gold: [7, 8] }, // duplicate 7 counts once
  { retrieved: [1], gold: [] }, // no gold: adds nothing to micro, skipped by macro
];

test("recall@k is micro-averaged: pooled hits over pooled gold", () => {
  // @2: hits 1 (1) + 1 (5) + 1 (7 once) = 3 over 4 + 1 + 2 = 7 gold → 3/7.
  assert.equal(recallAtK(runs, 2), 3 / 7);
  // Macro would be (1/4 + 1 + 1/2) / 3 = 7/12: the small-gold queries weigh more.
  assert.equal(recallAtK(runs, 2, "macro"), (0.25 + 1 + 0.5) / 3);
  // @5: 3 (1, 2, 3) + 1 + 2 = 6 / 7.
  assert.equal(recallAtK(runs, 5), 6 / 7);
  assert.deepEqual(recallCounts(runs[0], 0), { hits: 0, gold: 4 });
  assert.deepEqual(recallTable(runs), { 5: 6 / 7, 10: 6 / 7, 20: 6 / 7, 50: 6 / 7 });
  assert.equal(aggregateRecall([]), 0);
  assert.throws(() => recallAtK(runs, -1));
});

test("bootstrap CI is seeded, deterministic and brackets the estimate", () => {
  const random = seededRandom(7);
  // Per-query recall varies: gold of 1-5 papers with 0..gold hits.
  const many: QueryRun[] = Array.from({ length: 200 }, (_, q) => {
    const g = 1 + Math.floor(random() * 5);
    const gold = Array.from({ length: g }, (_, i) => q * 10 + i);
    const hits = Math.floor(random() * (g + 1));
    return { retrieved: [...gold.slice(0, hits), -1, -2], gold };
  });
  const a = recallAtKWithCi(many, 20, { seed: 42 });
  const b = recallAtKWithCi(many, 20, { seed: 42 });
  assert.deepEqual(a, b);
  assert.equal(a.estimate, recallAtK(many, 20));
  assert.ok(a.lower < a.estimate && a.estimate < a.upper, JSON.stringify(a));
  assert.ok(a.upper - a.lower < 0.2);
  assert.equal(a.resamples, 1000);
  assert.notDeepEqual(recallAtKWithCi(many, 20, { seed: 43 }), a);
});

test("bootstrap CI collapses when every query has the same recall", () => {
  // Each query finds 1 of its 2 gold papers: every resample's micro recall is exactly 1/2.
  const same: QueryRun[] = Array.from({ length: 10 }, (_, q) => ({ retrieved: [2 * q], gold: [2 * q, 2 * q + 1] }));
  assert.deepEqual(recallAtKWithCi(same, 5, { resamples: 50 }), { estimate: 0.5, lower: 0.5, upper: 0.5, level: 0.95, resamples: 50 });
  // Interval endpoints interpolate the sorted resample statistics (numpy's "linear").
  const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ci = bootstrapCi([0, 1], mean, { resamples: 500, seed: 1 });
  assert.equal(ci.estimate, 0.5);
  assert.equal(ci.lower, 0);
  assert.equal(ci.upper, 1);
});

test("attribution precision: micro over pairs, per facet, subset share", () => {
  const report = attributionPrecision([
    { credited: ["problems", "methods"], reference: ["problems"] }, // 1 of 2 correct; not a subset
    { credited: ["results"], reference: ["results", "methods"] }, // 1 of 1; subset
    { credited: ["methods"], reference: [] }, // the graph does not attribute the pair: 0 of 1
    { credited: [], reference: ["problems"] }, // nothing credited: no claim, skipped
  ]);
  // micro = (1 + 1 + 0) / (2 + 1 + 1) = 0.5; subset share = 1 of 3 pairs.
  assert.equal(report.precision, 0.5);
  assert.equal(report.pairs, 3);
  assert.equal(report.subsetShare, 1 / 3);
  assert.deepEqual(report.perFacet, {
    problems: { precision: 1, credited: 1, correct: 1 },
    methods: { precision: 0, credited: 2, correct: 0 }, // credited in pairs 1 and 3, never in the reference
    results: { precision: 1, credited: 1, correct: 1 },
    contributions: { precision: 0, credited: 0, correct: 0 },
  });
});

test("attributionPairs joins fused provenance with the graph's attribution", () => {
  const results = [
    { paper: 3, provenance: [{ facet: "problems" as const }, { facet: "results" as const }] },
    { paper: 4, provenance: [{ facet: "methods" as const }] },
  ];
  const pairs = attributionPairs(results, (p) => (p === 3 ? ["problems", "results", "methods"] : undefined));
  assert.deepEqual(pairs, [
    { credited: ["problems", "results"], reference: ["problems", "results", "methods"] },
    { credited: ["methods"], reference: [] },
  ]);
  // 2 of 3 credited facets match; pair 1 is a subset, pair 2 is not.
  const r = attributionPrecision(pairs);
  assert.equal(r.precision, 2 / 3);
  assert.equal(r.subsetShare, 0.5);
});
