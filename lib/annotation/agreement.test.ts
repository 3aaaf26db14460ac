import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  binarize,
  gwetAc1,
  krippendorffAlpha,
  krippendorffAlphaCi,
  pairwiseAgreement,
  pooledGroundedness,
  rawAgreement,
  studentTQuantile,
  summarizeRatings,
  type RatingMatrix,
} from "./agreement";

const close = (actual: number | null, expected: number, digits: number, what: string) => {
  assert.ok(actual !== null, `${what} is null`);
  assert.equal(Number(actual.toFixed(digits)), expected, `${what}: ${actual} does not round to ${expected}`);
};

/** Transposes observers × units (how Krippendorff prints reliability data) into units × raters. */
const byUnit = (observers: (number | null)[][]): RatingMatrix => observers[0].map((_, u) => observers.map((o) => o[u]));

// Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for
// Communication, University of Pennsylvania, https://repository.upenn.edu/asc_papers/43.
// §C-F use one data set: 4 observers, 12 units, values 1-5, with missing values. The same data
// are Gwet's (2014) Handbook of Inter-Rater Reliability, 4th ed., p. 120 ("cac.raw4raters" in
// Gwet's irrCAC package); unit 12 has a single value, so which observer gave it does not matter.
const K2011 = byUnit([
  [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
  [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
]);

describe("Krippendorff's alpha", () => {
  test("Krippendorff (2011) §A: binary data, two observers, α = 0.095", () => {
    const data = byUnit([
      [0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
      [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
    ]);
    const r = krippendorffAlpha(data, "nominal");
    close(r.alpha, 0.095, 3, "binary α");
    assert.equal(r.pairable, 20);
  });

  test("Krippendorff (2011) §C-F: 4 observers with missing data, α per metric", () => {
    // Published: nominal 0.743 (§C), ordinal 0.815 (§D), interval 0.849 (§E), ratio 0.797 (§F).
    close(krippendorffAlpha(K2011, "nominal").alpha, 0.743, 3, "nominal α");
    close(krippendorffAlpha(K2011, "ordinal").alpha, 0.815, 3, "ordinal α");
    close(krippendorffAlpha(K2011, "interval").alpha, 0.849, 3, "interval α");
    close(krippendorffAlpha(K2011, "ratio").alpha, 0.797, 3, "ratio α");
    // Unit 12 has one value and is not pairable: 41 values, n = 40 pairable (as in the source).
    assert.equal(krippendorffAlpha(K2011, "nominal").pairable, 40);
  });

  test("undefined without variation or pairable values; perfect agreement is 1", () => {
    assert.equal(
      krippendorffAlpha(
        [
          [5, 5],
          [5, 5, 5],
        ] as RatingMatrix,
        "ordinal",
      ).alpha,
      null,
    );
    assert.equal(
      krippendorffAlpha(
        [
          [4, null],
          [null, 5],
        ],
        "ordinal",
      ).alpha,
      null,
    );
    assert.equal(
      krippendorffAlpha(
        [
          [4, 4],
          [5, 5],
          [3, 3],
        ],
        "ordinal",
      ).alpha,
      1,
    );
  });

  test("bootstrap CI is seeded, reproducible and brackets the estimate", () => {
    const a = krippendorffAlphaCi(K2011, "ordinal", { seed: 3, resamples: 500 });
    const b = krippendorffAlphaCi(K2011, "ordinal", { seed: 3, resamples: 500 });
    const c = krippendorffAlphaCi(K2011, "ordinal", { seed: 4, resamples: 500 });
    assert.deepEqual(a, b);
    assert.notDeepEqual(a.ci, c.ci);
    assert.ok(a.ci && a.alpha !== null);
    assert.ok(a.ci.lower < a.alpha && a.alpha < a.ci.upper && a.ci.upper <= 1, JSON.stringify(a));
    assert.equal(krippendorffAlphaCi([[5, 5]], "ordinal").ci, null);
  });
});

describe("Gwet's AC1", () => {
  test("Gwet (2014) Handbook p. 120, 4 raters × 12 units (irrCAC gwet.ac1.raw(cac.raw4raters))", () => {
    // Published: pa 0.818, pe 0.190, AC1 0.775, SE 0.143, 95% CI (0.461, 1).
    const r = gwetAc1(K2011, [1, 2, 3, 4, 5]);
    close(r.pa, 0.818, 3, "pa");
    close(r.pe, 0.19, 3, "pe");
    close(r.ac1, 0.775, 3, "AC1");
    close(r.standardError, 0.143, 3, "SE");
    close(r.lower, 0.461, 3, "lower");
    assert.equal(r.upper, 1);
    assert.equal(r.units, 12);
  });

  test("Gwet (2014) Handbook p. 125, 5 observers × 15 units on 0-3 (irrCAC cac.raw5obser)", () => {
    // Published: pa 0.616, pe 0.236, AC1 0.497, SE 0.122, 95% CI (0.235, 0.758).
    const data = byUnit([
      [1, 1, 2, null, 0, 0, 1, 1, 2, 2, null, 0, 1, 3, 1],
      [1, 1, 3, 0, 0, 0, 0, null, 2, 1, 1, 0, 2, 3, 1],
      [2, 0, 3, 0, 0, 0, 2, 2, 2, 1, 0, 0, 2, 2, 1],
      [null, 1, 3, null, null, null, null, 0, null, 1, 0, 0, 2, 2, null],
      [2, null, null, 0, 0, 0, 1, null, 2, null, null, null, null, 3, 1],
    ]);
    const r = gwetAc1(data, [0, 1, 2, 3]);
    close(r.pa, 0.616, 3, "pa");
    close(r.pe, 0.236, 3, "pe");
    close(r.ac1, 0.497, 3, "AC1");
    close(r.standardError, 0.122, 3, "SE");
    close(r.lower, 0.235, 3, "lower");
    close(r.upper, 0.758, 3, "upper");
  });

  test("binary grounded decision: high agreement under extreme prevalence stays high", () => {
    // 20 units, 3 raters: 18 unanimous "grounded", 2 split 2-1. By hand: pa = (18 + 2·(1/3))/20
    // = 0.9333; π_1 = (18 + 2·2/3)/20 = 0.9667, pe = 2·π_1·π_0 = 0.0644; AC1 = 0.9287.
    const rows: (0 | 1)[][] = [...Array.from({ length: 18 }, () => [1, 1, 1] as (0 | 1)[]), [1, 1, 0], [1, 0, 1]];
    const r = gwetAc1(rows, [0, 1]);
    close(r.pa, 0.9333, 4, "pa");
    close(r.pe, 0.0644, 4, "pe");
    close(r.ac1, 0.9287, 4, "AC1");
    // Krippendorff's α on the same data collapses: the marginals are almost all one category.
    const alpha = krippendorffAlpha(rows, "nominal").alpha!;
    assert.ok(alpha < 0.1, `α = ${alpha}`);
    assert.throws(() => gwetAc1([[1], [0]], [0, 1]), /two raters/);
    assert.throws(() => gwetAc1([[1, 2]], [0, 1]), /not one of the categories/);
  });

  test("Student's t quantiles match the standard tables (R's qt)", () => {
    close(studentTQuantile(0.975, 11), 2.200985, 6, "t(.975, 11)");
    close(studentTQuantile(0.975, 14), 2.144787, 6, "t(.975, 14)");
    close(studentTQuantile(0.975, 39), 2.022691, 6, "t(.975, 39)");
    close(studentTQuantile(0.95, 1), 6.313752, 6, "t(.95, 1)");
    close(studentTQuantile(0.025, 2), -4.302653, 6, "t(.025, 2)");
  });
});

describe("summaries and raw agreement", () => {
  test("the paper's per-annotator figures follow from its reported distributions", () => {
    // Paper, Appendix "Facet Groundedness Study": distributions (5/4/3/2) 80/10/1/1, 63/23/6/0
    // and 89/3/2/2; means 4.84, 4.62, 4.86; shares ≥ 4 of 97.8%, 93.5%, 95.8%.
    const sheet = (c5: number, c4: number, c3: number, c2: number) => [...Array(c5).fill(5), ...Array(c4).fill(4), ...Array(c3).fill(3), ...Array(c2).fill(2)];
    const expected = [
      [sheet(80, 10, 1, 1), 92, 4.84, 97.8],
      [sheet(63, 23, 6, 0), 92, 4.62, 93.5],
      [sheet(89, 3, 2, 2), 96, 4.86, 95.8],
    ] as const;
    for (const [scores, n, m, share] of expected) {
      const s = summarizeRatings(scores);
      assert.equal(s.n, n);
      close(s.mean, m, 2, "mean");
      close(s.shareGrounded! * 100, share, 1, "share ≥ 4");
    }
    assert.deepEqual(summarizeRatings([5, 5, 1]).counts, [1, 0, 0, 0, 2]);
    assert.deepEqual(summarizeRatings([]), { n: 0, counts: [0, 0, 0, 0, 0], mean: null, grounded: 0, shareGrounded: null });
    assert.throws(() => summarizeRatings([6]), /1-5/);
  });

  test("raw and pairwise agreement count only units the raters share", () => {
    const m: RatingMatrix = [
      [5, 5, 5], // exact
      [5, 4, 5], // within one, unanimous grounded
      [5, 3, 4], // not within one; decision split
      [2, 3, 3], // within one, unanimous not grounded
      [5, null, 5], // incomplete: skipped by rawAgreement, counted for pair (0, 2)
    ];
    assert.deepEqual(rawAgreement(m), { units: 4, exact: 1, withinOne: 3, unanimousGrounded: 2, groundedDecisionAgree: 3 });
    assert.deepEqual(pairwiseAgreement(m), [
      { a: 0, b: 1, units: 4, exact: 1, withinOne: 3 },
      { a: 0, b: 2, units: 5, exact: 3, withinOne: 5 },
      { a: 1, b: 2, units: 4, exact: 2, withinOne: 4 },
    ]);
    assert.deepEqual(binarize([[5, 3, null]]), [[1, 0, null]]);
  });

  test("pooled groundedness averages each item's ratings, per facet, with a paper-level CI", () => {
    const items = [
      { cluster: "p1", facet: "methods", scores: [5, 4, 3] }, // avg 4 → grounded
      { cluster: "p1", facet: "results", scores: [3, 4] }, // avg 3.5 → not
      { cluster: "p2", facet: "methods", scores: [5] },
      { cluster: "p2", facet: "results", scores: [2] },
      { cluster: "p3", facet: "methods", scores: [] }, // unrated: left out
    ];
    const s = pooledGroundedness(items, ["methods", "results"], { seed: 1, resamples: 200 });
    assert.equal(s.items, 4);
    assert.equal(s.grounded, 2);
    assert.equal(s.share, 0.5);
    close(s.mean, 3.625, 3, "mean");
    assert.deepEqual(s.perFacet.methods, { items: 2, mean: 4.5, grounded: 2, share: 1 });
    assert.deepEqual(s.perFacet.results, { items: 2, mean: 2.75, grounded: 0, share: 0 });
    // Two papers with one grounded item of two each: every resample gives 0.5.
    assert.deepEqual([s.shareCi?.lower, s.shareCi?.upper], [0.5, 0.5]);
    assert.equal(pooledGroundedness([], ["methods"]).shareCi, null);
  });
});
