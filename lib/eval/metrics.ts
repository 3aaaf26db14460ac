/**
 * Evaluation metrics (paper §"Experiments > Setup" and §"Fusion and Attribution").
 *
 * Recall@k: "We report recall@20 and recall@50, micro-averaged over the held-out queries", and
 * gold is "its neighbour set in the full paper graph ... recall measures how much of that set a
 * method surfaces". Micro-averaging pools query–paper pairs (the out-of-corpus appendix counts
 * "2,095 query–paper pairs"), so
 *   R@k = Σ_q |top_k(q) ∩ G_q| / Σ_q |G_q|,
 * and a query with a large gold set weighs more than one with a small set. Macro (mean of
 * per-query recalls) is available for comparison.
 *
 * Attribution: "comparing the facets that graph-RRF credits against those the graph attributes
 * to the same connection, micro-averaged over those pairs. In 89.9% of pairs, the credited set
 * is a subset of the reference". Precision = Σ_pairs |credited ∩ reference| / Σ_pairs |credited|;
 * per facet f, the share of pairs crediting f whose reference also holds f.
 */
import { FACETS, type Facet } from "@/lib/corpus";
import { mulberry32 } from "@/lib/random";
import { quantileLinear } from "@/lib/quantile";

/** The paper's cutoffs (the out-of-corpus table reports all four). */
export const RECALL_KS = [5, 10, 20, 50] as const;

export interface QueryRun {
  /** Retrieved papers, best first (duplicates count once). */
  retrieved: ArrayLike<number>;
  /** Gold papers of the query. */
  gold: Iterable<number>;
}

/** One query's hit and gold counts at k: the micro-average's numerator and denominator terms. */
export interface RecallCounts {
  hits: number;
  gold: number;
}

export type Averaging = "micro" | "macro";

export function recallCounts(run: QueryRun, k: number): RecallCounts {
  if (!Number.isInteger(k) || k < 0) throw new Error(`recall: k must be a non-negative integer, got ${k}`);
  const gold = run.gold instanceof Set ? (run.gold as ReadonlySet<number>) : new Set(run.gold);
  const found = new Set<number>();
  const n = Math.min(k, run.retrieved.length);
  for (let i = 0; i < n; i++) {
    const p = run.retrieved[i];
    if (gold.has(p)) found.add(p);
  }
  return { hits: found.size, gold: gold.size };
}

/** Micro: pooled hits / pooled gold; macro: mean per-query recall over queries with gold. 0 if no gold. */
export function aggregateRecall(counts: readonly RecallCounts[], averaging: Averaging = "micro"): number {
  if (averaging === "micro") {
    let hits = 0;
    let gold = 0;
    for (const c of counts) {
      hits += c.hits;
      gold += c.gold;
    }
    return gold === 0 ? 0 : hits / gold;
  }
  let sum = 0;
  let n = 0;
  for (const c of counts) {
    if (c.gold === 0) continue;
    sum += c.hits / c.gold;
    n++;
  }
  return n === 0 ? 0 : sum / n;
}

export function recallAtK(runs: readonly QueryRun[], k: number, averaging: Averaging = "micro"): number {
  return aggregateRecall(
    runs.map((r) => recallCounts(r, k)),
    averaging,
  );
}

/** R@k for every cutoff, e.g. { 5: …, 10: …, 20: …, 50: … }. */
export function recallTable(runs: readonly QueryRun[], ks: readonly number[] = RECALL_KS, averaging: Averaging = "micro"): Record<number, number> {
  const out: Record<number, number> = {};
  for (const k of ks) out[k] = recallAtK(runs, k, averaging);
  return out;
}

/** The project's seedable PRNG, so bootstrap intervals are reproducible. */
export const seededRandom = mulberry32;

export interface BootstrapOptions {
  /** Resamples; default 1000. */
  resamples?: number;
  /** Default 0. */
  seed?: number;
  /** Confidence level; default 0.95. */
  level?: number;
}

export interface ConfidenceInterval {
  estimate: number;
  lower: number;
  upper: number;
  level: number;
  resamples: number;
}

/**
 * Percentile bootstrap over queries: resample queries with replacement and recompute the
 * statistic (here the micro or macro recall of the resample), so the interval reflects
 * query-to-query variation, the unit the paper averages over.
 */
export function bootstrapCi<T>(items: readonly T[], statistic: (sample: readonly T[]) => number, options: BootstrapOptions = {}): ConfidenceInterval {
  const resamples = options.resamples ?? 1000;
  const level = options.level ?? 0.95;
  if (!(level > 0 && level < 1)) throw new Error(`bootstrapCi: level must be in (0, 1), got ${level}`);
  if (!Number.isInteger(resamples) || resamples < 1) throw new Error(`bootstrapCi: resamples must be a positive integer`);
  const estimate = statistic(items);
  if (items.length === 0) return { estimate, lower: estimate, upper: estimate, level, resamples };
  const random = seededRandom(options.seed ?? 0);
  const stats = new Float64Array(resamples);
  const sample: T[] = new Array(items.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < items.length; i++) sample[i] = items[Math.floor(random() * items.length)];
    stats[r] = statistic(sample);
  }
  stats.sort();
  const alpha = (1 - level) / 2;
  return { estimate, lower: quantileLinear(stats, alpha), upper: quantileLinear(stats, 1 - alpha), level, resamples };
}

/** R@k with its bootstrap CI over queries. */
export function recallAtKWithCi(runs: readonly QueryRun[], k: number, options: BootstrapOptions & { averaging?: Averaging } = {}): ConfidenceInterval {
  const counts = runs.map((r) => recallCounts(r, k));
  return bootstrapCi(counts, (s) => aggregateRecall(s, options.averaging ?? "micro"), options);
}

export interface AttributionPair {
  /** Facets the fusion credited for (q, d), e.g. a FusedResult's provenance facets. */
  credited: Iterable<Facet>;
  /** Facets the graph attributes to the same connection (empty when the graph has none). */
  reference: Iterable<Facet>;
}

export interface AttributionReport {
  /** Σ |credited ∩ reference| / Σ |credited| over pairs. */
  precision: number;
  perFacet: Record<Facet, { precision: number; credited: number; correct: number }>;
  /** Share of pairs whose credited set ⊆ reference. */
  subsetShare: number;
  /** Pairs counted (those crediting at least one facet). */
  pairs: number;
}

export function attributionPrecision(pairs: Iterable<AttributionPair>): AttributionReport {
  const perFacet = {} as AttributionReport["perFacet"];
  for (const f of FACETS) perFacet[f] = { precision: 0, credited: 0, correct: 0 };
  let credited = 0;
  let correct = 0;
  let subsets = 0;
  let n = 0;
  for (const pair of pairs) {
    const c = new Set(pair.credited);
    // A pair with nothing credited makes no attribution claim to judge (graph-RRF never returns one).
    if (c.size === 0) continue;
    const ref = new Set(pair.reference);
    let ok = 0;
    for (const f of c) {
      perFacet[f].credited++;
      if (ref.has(f)) {
        perFacet[f].correct++;
        ok++;
      }
    }
    credited += c.size;
    correct += ok;
    if (ok === c.size) subsets++;
    n++;
  }
  for (const f of FACETS) perFacet[f].precision = perFacet[f].credited === 0 ? 0 : perFacet[f].correct / perFacet[f].credited;
  return { precision: credited === 0 ? 0 : correct / credited, perFacet, subsetShare: n === 0 ? 0 : subsets / n, pairs: n };
}

/** Pairs from one query's fused results and the graph's attribution for each returned paper. */
export function attributionPairs(
  results: readonly { paper: number; provenance: readonly { facet: Facet }[] }[],
  referenceOf: (paper: number) => Iterable<Facet> | undefined,
): AttributionPair[] {
  return results.map((r) => ({ credited: r.provenance.map((p) => p.facet), reference: referenceOf(r.paper) ?? [] }));
}
