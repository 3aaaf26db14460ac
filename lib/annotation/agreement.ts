import { bootstrapCi, type ConfidenceInterval } from "@/lib/eval";

/**
 * Statistics of the facet groundedness study (paper, Appendix "Facet Groundedness Study"):
 * rating summaries, pooled groundedness, raw agreement, Krippendorff's α and Gwet's AC1.
 * Plain functions over plain data; lib/annotation/report.ts feeds them from the store.
 *
 * Ratings arrive as a units × raters matrix ("reliability data"): one row per rated item, one
 * column per annotator, `null` where that annotator did not rate the item.
 */

export type RatingMatrix = readonly (readonly (number | null)[])[];

/** The 1-5 groundedness scale; an item is "grounded" when rated at least this. */
export const SCALE = [1, 2, 3, 4, 5] as const;
export const GROUNDED_AT = 4;

export const isGrounded = (score: number) => score >= GROUNDED_AT;

const present = (row: readonly (number | null)[]): number[] => row.filter((v): v is number => v !== null && Number.isFinite(v));

// ── Descriptive summaries ────────────────────────────────────────────────────

export interface RatingSummary {
  n: number;
  /** Ratings per score, index 0 = score 1 … index 4 = score 5. */
  counts: number[];
  mean: number | null;
  grounded: number;
  /** Share of ratings ≥ 4 (null with no ratings). */
  shareGrounded: number | null;
}

/** One annotator's distribution, mean and share ≥ 4 (the paper's per-annotator figures). */
export function summarizeRatings(scores: readonly number[]): RatingSummary {
  const counts = SCALE.map(() => 0);
  let sum = 0;
  let grounded = 0;
  for (const s of scores) {
    if (!Number.isInteger(s) || s < 1 || s > 5) throw new RangeError(`summarizeRatings: score must be an integer 1-5, got ${s}`);
    counts[s - 1]++;
    sum += s;
    if (isGrounded(s)) grounded++;
  }
  const n = scores.length;
  return { n, counts, mean: n ? sum / n : null, grounded, shareGrounded: n ? grounded / n : null };
}

export interface PooledItem<F extends string = string> {
  /** Items of one paper are resampled together (they share a source text). */
  cluster: string | number;
  facet: F;
  /** Every rating the item received (core items have several). */
  scores: readonly number[];
}

export interface PooledGroup {
  items: number;
  mean: number | null;
  /** Items whose averaged score is ≥ 4. */
  grounded: number;
  share: number | null;
}

export interface PooledSummary<F extends string = string> extends PooledGroup {
  /** Percentile bootstrap CI of `share`, resampling clusters (papers). */
  shareCi: ConfidenceInterval | null;
  perFacet: Record<F, PooledGroup>;
}

export interface BootstrapSettings {
  resamples?: number;
  seed?: number;
  level?: number;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function pooledGroup(averages: readonly number[]): PooledGroup {
  const grounded = averages.filter(isGrounded).length;
  return {
    items: averages.length,
    mean: averages.length ? mean(averages) : null,
    grounded,
    share: averages.length ? grounded / averages.length : null,
  };
}

/**
 * Groundedness over distinct items: each item counts once with its ratings averaged (so a core
 * item rated by three annotators weighs as much as any other item), then the share of items
 * whose average is ≥ 4, overall and per facet. The CI resamples papers rather than items,
 * because the four items of one paper are rated against the same text and are not independent.
 */
export function pooledGroundedness<F extends string>(
  items: readonly PooledItem<F>[],
  facets: readonly F[],
  bootstrap: BootstrapSettings = {},
): PooledSummary<F> {
  const rated = items.filter((i) => i.scores.length > 0).map((i) => ({ ...i, avg: mean(i.scores) }));
  const perFacet = Object.fromEntries(facets.map((f) => [f, pooledGroup(rated.filter((i) => i.facet === f).map((i) => i.avg))])) as Record<F, PooledGroup>;
  const overall = pooledGroup(rated.map((i) => i.avg));
  let shareCi: ConfidenceInterval | null = null;
  if (rated.length > 0) {
    const clusters = new Map<string | number, { n: number; grounded: number }>();
    for (const i of rated) {
      const c = clusters.get(i.cluster) ?? { n: 0, grounded: 0 };
      c.n++;
      if (isGrounded(i.avg)) c.grounded++;
      clusters.set(i.cluster, c);
    }
    shareCi = bootstrapCi(
      [...clusters.values()],
      (sample) => {
        let n = 0;
        let g = 0;
        for (const c of sample) {
          n += c.n;
          g += c.grounded;
        }
        return g / n;
      },
      bootstrap,
    );
  }
  return { ...overall, shareCi, perFacet };
}

// ── Raw agreement ────────────────────────────────────────────────────────────

export interface RawAgreement {
  /** Units rated by every rater (the ones these shares are over). */
  units: number;
  exact: number;
  withinOne: number;
  /** All raters rate the unit ≥ 4. */
  unanimousGrounded: number;
  /** All raters agree on the grounded decision (all ≥ 4 or all < 4). */
  groundedDecisionAgree: number;
}

/** Agreement among all raters on the units every rater scored (the paper's "identical score"). */
export function rawAgreement(matrix: RatingMatrix): RawAgreement {
  const out: RawAgreement = { units: 0, exact: 0, withinOne: 0, unanimousGrounded: 0, groundedDecisionAgree: 0 };
  for (const row of matrix) {
    if (row.length === 0 || row.some((v) => v === null)) continue;
    const vs = row as number[];
    const lo = Math.min(...vs);
    const hi = Math.max(...vs);
    out.units++;
    if (lo === hi) out.exact++;
    if (hi - lo <= 1) out.withinOne++;
    if (isGrounded(lo)) out.unanimousGrounded++;
    if (isGrounded(lo) || !isGrounded(hi)) out.groundedDecisionAgree++;
  }
  return out;
}

export interface PairAgreement {
  a: number;
  b: number;
  /** Units both raters scored. */
  units: number;
  exact: number;
  withinOne: number;
}

/** Exact and within-one agreement of every pair of raters (columns a < b) on the units both rated. */
export function pairwiseAgreement(matrix: RatingMatrix): PairAgreement[] {
  const raters = Math.max(0, ...matrix.map((r) => r.length));
  const pairs: PairAgreement[] = [];
  for (let a = 0; a < raters; a++)
    for (let b = a + 1; b < raters; b++) {
      const p: PairAgreement = { a, b, units: 0, exact: 0, withinOne: 0 };
      for (const row of matrix) {
        const x = row[a];
        const y = row[b];
        if (x == null || y == null) continue;
        p.units++;
        if (x === y) p.exact++;
        if (Math.abs(x - y) <= 1) p.withinOne++;
      }
      pairs.push(p);
    }
  return pairs;
}

// ── Krippendorff's alpha ─────────────────────────────────────────────────────

export type AlphaMetric = "nominal" | "ordinal" | "interval" | "ratio";

export interface AlphaResult {
  /** null when undefined: no pairable values, or no variation at all (D_e = 0). */
  alpha: number | null;
  observedDisagreement: number;
  expectedDisagreement: number;
  /** Pairable values n.. (values in units with at least two of them). */
  pairable: number;
}

/**
 * Krippendorff's α for any number of raters with missing values, from the coincidence matrix
 * (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", §C-F): α = 1 − D_o / D_e.
 * Units with fewer than two values are not pairable and drop out.
 */
export function krippendorffAlpha(matrix: RatingMatrix, metric: AlphaMetric): AlphaResult {
  const units = matrix.map(present).filter((vs) => vs.length >= 2);
  const values = [...new Set(units.flat())].sort((x, y) => x - y);
  const index = new Map(values.map((v, i) => [v, i]));
  const V = values.length;
  // o[c][k]: coincidences of values c and k within units, each unit weighted 1/(m_u − 1).
  const o = Array.from({ length: V }, () => new Float64Array(V));
  for (const vs of units) {
    const w = 1 / (vs.length - 1);
    for (let i = 0; i < vs.length; i++) for (let j = 0; j < vs.length; j++) if (i !== j) o[index.get(vs[i])!][index.get(vs[j])!] += w;
  }
  const nc = o.map((row) => row.reduce((a, b) => a + b, 0));
  const n = nc.reduce((a, b) => a + b, 0);
  const delta2 = distance(metric, values, nc);
  let num = 0;
  let den = 0;
  for (let c = 0; c < V; c++)
    for (let k = 0; k < V; k++) {
      num += o[c][k] * delta2(c, k);
      den += nc[c] * nc[k] * delta2(c, k);
    }
  const observed = n > 0 ? num / n : 0;
  const expected = n > 1 ? den / (n * (n - 1)) : 0;
  return { alpha: expected > 0 ? 1 - observed / expected : null, observedDisagreement: observed, expectedDisagreement: expected, pairable: n };
}

/** δ²(c, k) over value indices, per Krippendorff's metric definitions. */
function distance(metric: AlphaMetric, values: readonly number[], nc: readonly number[]): (c: number, k: number) => number {
  switch (metric) {
    case "nominal":
      return (c, k) => (c === k ? 0 : 1);
    case "interval":
      return (c, k) => (values[c] - values[k]) ** 2;
    case "ratio":
      return (c, k) => {
        const s = values[c] + values[k];
        return s === 0 ? 0 : ((values[c] - values[k]) / s) ** 2;
      };
    case "ordinal": {
      // δ²_ck = (Σ_{g=c..k} n_g − (n_c + n_k)/2)²: the distance is the mass of values between c and k.
      const cum = [0];
      for (const x of nc) cum.push(cum[cum.length - 1] + x);
      return (c, k) => {
        const lo = Math.min(c, k);
        const hi = Math.max(c, k);
        return (cum[hi + 1] - cum[lo] - (nc[lo] + nc[hi]) / 2) ** 2;
      };
    }
  }
}

/**
 * α with a percentile bootstrap CI that resamples units. A resample without any variation has
 * no disagreement at all, which is perfect agreement, so it counts as α = 1 instead of being
 * undefined.
 */
export function krippendorffAlphaCi(
  matrix: RatingMatrix,
  metric: AlphaMetric,
  bootstrap: BootstrapSettings = {},
): { alpha: number | null; ci: ConfidenceInterval | null } {
  const { alpha } = krippendorffAlpha(matrix, metric);
  if (alpha === null) return { alpha, ci: null };
  const ci = bootstrapCi(matrix, (sample) => krippendorffAlpha(sample, metric).alpha ?? 1, bootstrap);
  return { alpha, ci };
}

/** Each rating mapped to 1 (grounded, ≥ 4) or 0, for the binarised coefficients. */
export function binarize(matrix: RatingMatrix): (0 | 1 | null)[][] {
  return matrix.map((row) => row.map((v) => (v === null ? null : isGrounded(v) ? 1 : 0)));
}

// ── Gwet's AC1 ───────────────────────────────────────────────────────────────

export interface Ac1Result {
  ac1: number;
  /** Percent agreement p_a and chance agreement p_e. */
  pa: number;
  pe: number;
  standardError: number | null;
  /** t-based interval (n − 1 degrees of freedom), upper bound capped at 1. */
  lower: number | null;
  upper: number | null;
  level: number;
  /** Units with at least one rating. */
  units: number;
}

/**
 * Gwet's AC1 for any number of raters with missing ratings, and its variance (Gwet 2008,
 * "Computing inter-rater reliability and its variance in the presence of high agreement",
 * BJMSP 61:29-48; Gwet 2014, Handbook of Inter-Rater Reliability, 4th ed., ch. 5). Chance
 * agreement comes from the category prevalences π_k, not from each rater's marginals, which
 * keeps the coefficient interpretable when nearly every item falls in one category.
 * `categories` lists every possible category, used or not (it sets q).
 */
export function gwetAc1(matrix: RatingMatrix, categories: readonly number[], level = 0.95): Ac1Result {
  const q = categories.length;
  if (q < 2) throw new RangeError("gwetAc1: needs at least two categories");
  const col = new Map(categories.map((c, i) => [c, i]));
  // r_ik: raters who put unit i in category k; units nobody rated are left out.
  const counts: number[][] = [];
  for (const row of matrix) {
    const vs = present(row);
    if (vs.length === 0) continue;
    const r = categories.map(() => 0);
    for (const v of vs) {
      const k = col.get(v);
      if (k === undefined) throw new RangeError(`gwetAc1: rating ${v} is not one of the categories ${categories.join(", ")}`);
      r[k]++;
    }
    counts.push(r);
  }
  const n = counts.length;
  const ri = counts.map((r) => r.reduce((a, b) => a + b, 0));
  const multi = ri.filter((x) => x >= 2).length;
  if (n === 0 || multi === 0) throw new RangeError("gwetAc1: needs at least one unit rated by two raters");
  const paUnit = counts.map((r, i) => (ri[i] >= 2 ? r.reduce((s, x) => s + x * (x - 1), 0) / (ri[i] * (ri[i] - 1)) : 0));
  const pa = paUnit.reduce((a, b) => a + b, 0) / multi;
  const pi = categories.map((_, k) => counts.reduce((s, r, i) => s + r[k] / ri[i], 0) / n);
  const pe = pi.reduce((s, p) => s + p * (1 - p), 0) / (q - 1);
  const ac1 = (pa - pe) / (1 - pe);

  let standardError: number | null = null;
  let lower: number | null = null;
  let upper: number | null = null;
  if (n >= 2) {
    // Linearised per-unit contributions ac1*_i; Var = Σ (ac1*_i − AC1)² / (n(n − 1)).
    let ss = 0;
    for (let i = 0; i < n; i++) {
      const ac1i = ((n / multi) * (paUnit[i] - (ri[i] >= 2 ? pe : 0))) / (1 - pe);
      const pei = counts[i].reduce((s, x, k) => s + x * (1 - pi[k]), 0) / ri[i] / (q - 1);
      const x = ac1i - (2 * (1 - ac1) * (pei - pe)) / (1 - pe);
      ss += (x - ac1) ** 2;
    }
    standardError = Math.sqrt(ss / (n * (n - 1)));
    const t = studentTQuantile(1 - (1 - level) / 2, n - 1);
    lower = ac1 - t * standardError;
    upper = Math.min(1, ac1 + t * standardError);
  }
  return { ac1, pa, pe, standardError, lower, upper, level, units: n };
}

// ── Student's t quantile ─────────────────────────────────────────────────────

/** ln Γ(x), Lanczos approximation (g = 7, n = 9): ~15 significant digits for x > 0. */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction of the regularised incomplete beta (modified Lentz). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/** Regularised incomplete beta I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaContinuedFraction(a, b, x)) / a : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The p-quantile of Student's t (what R's qt(p, df) returns), by bisection on the CDF. */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`studentTQuantile: p must be in (0, 1), got ${p}`);
  if (!(df > 0)) throw new RangeError(`studentTQuantile: df must be positive, got ${df}`);
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-13 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
