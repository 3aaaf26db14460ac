/**
 * Non-obvious retrievals (paper §"Out-of-Corpus Queries" and appendix "Non-Obvious
 * Retrievals"): "We score every corpus paper against the query using the same facet-item
 * similarity used to build the graph, and call a retrieved paper obvious if it is among the
 * query's 50 nearest neighbours and non-obvious otherwise."
 *
 * Measured per method over its top-k (the appendix uses k = 20):
 * - non-obvious share of retrievals, and of correct retrievals (retrieved ∩ gold);
 * - precision of the non-obvious retrievals (share cited by their query);
 * - the base rate "across the graph": the share of all non-obvious (query, paper) candidates
 *   that the query cites, Σ_q |G_q \ O_q| / Σ_q (N − |O_q|); lift = precision / base rate;
 * - the popularity control: per query, the k most-cited corpus papers outside O_q; the method's
 *   non-obvious precision over the control's.
 * All shares are micro-averaged over (query, paper) pairs.
 *
 * "The same facet-item similarity" is per facet; one nearest-neighbour ranking needs one score
 * per paper, so a paper's similarity is its best facet score max_f s_f(q, d) (see
 * `combineFacetScores`).
 */

export interface NonObviousStats {
  /** Retrieved (query, paper) pairs within the cutoff. */
  retrieved: number;
  nonObvious: number;
  /** nonObvious / retrieved. */
  nonObviousShare: number;
  /** Retrieved pairs that are gold. */
  correct: number;
  correctNonObvious: number;
  /** correctNonObvious / correct. */
  correctNonObviousShare: number;
  /** correctNonObvious / nonObvious: how often a non-obvious retrieval is cited. */
  nonObviousPrecision: number;
}

export interface QueryObviousness {
  retrieved: ArrayLike<number>;
  /** The query's `nearest` most similar corpus papers. */
  obvious: ReadonlySet<number>;
  gold: ReadonlySet<number>;
}

const ratio = (a: number, b: number): number => (b === 0 ? 0 : a / b);

export function nonObviousStats(runs: readonly QueryObviousness[], k = 20): NonObviousStats {
  let retrieved = 0;
  let nonObvious = 0;
  let correct = 0;
  let correctNonObvious = 0;
  for (const r of runs) {
    const seen = new Set<number>();
    const n = Math.min(k, r.retrieved.length);
    for (let i = 0; i < n; i++) {
      const d = r.retrieved[i];
      if (seen.has(d)) continue;
      seen.add(d);
      retrieved++;
      const isNonObvious = !r.obvious.has(d);
      const isGold = r.gold.has(d);
      if (isNonObvious) nonObvious++;
      if (isGold) correct++;
      if (isGold && isNonObvious) correctNonObvious++;
    }
  }
  return {
    retrieved,
    nonObvious,
    nonObviousShare: ratio(nonObvious, retrieved),
    correct,
    correctNonObvious,
    correctNonObviousShare: ratio(correctNonObvious, correct),
    nonObviousPrecision: ratio(correctNonObvious, nonObvious),
  };
}

/**
 * Share of all non-obvious (query, corpus paper) pairs that are gold. `corpusSize` counts the
 * candidates per query (the query itself is never a corpus paper out of corpus).
 */
export function nonObviousBaseRate(runs: readonly Pick<QueryObviousness, "obvious" | "gold">[], corpusSize: number): number {
  let gold = 0;
  let candidates = 0;
  for (const r of runs) {
    for (const d of r.gold) if (!r.obvious.has(d)) gold++;
    candidates += corpusSize - r.obvious.size;
  }
  return ratio(gold, candidates);
}

/**
 * Popularity control: the k most-cited corpus papers that are not obvious for the query
 * (ties: lower index), best first. `citedBy[d]` is d's citation count inside the corpus.
 */
export function mostCitedNonObvious(
  citedBy: ArrayLike<number>,
  obvious: ReadonlySet<number>,
  k: number,
  byCount: Int32Array = rankByCitations(citedBy),
): Int32Array {
  const out: number[] = [];
  for (let i = 0; i < byCount.length && out.length < k; i++) if (!obvious.has(byCount[i])) out.push(byCount[i]);
  return Int32Array.from(out);
}

/** Corpus papers by citation count, most cited first (ties: lower index); reuse across queries. */
export function rankByCitations(citedBy: ArrayLike<number>): Int32Array {
  return Int32Array.from(Array.from({ length: citedBy.length }, (_, i) => i).sort((a, b) => citedBy[b] - citedBy[a] || a - b));
}

/** Citation counts inside the corpus from reference lists (refs[a] = papers a cites). */
export function citationCounts(refs: readonly (readonly number[])[]): Int32Array {
  const counts = new Int32Array(refs.length);
  refs.forEach((cited, a) => {
    for (const b of new Set(cited)) if (b !== a) counts[b]++;
  });
  return counts;
}

/**
 * The query's `nearest` most similar papers from per-facet top lists (each at least `nearest`
 * long, scores s_f): a paper's similarity is its best facet score. Exact as long as every
 * facet's list holds its own top `nearest`, since the top `nearest` by max_f s_f are within
 * the union of the facets' top `nearest`.
 */
export function combineFacetScores(perFacet: readonly { targets: ArrayLike<number>; scores: ArrayLike<number> }[], nearest = 50): Set<number> {
  const best = new Map<number, number>();
  for (const l of perFacet) {
    for (let i = 0; i < l.targets.length; i++) {
      const d = l.targets[i];
      if (l.scores[i] > (best.get(d) ?? Number.NEGATIVE_INFINITY)) best.set(d, l.scores[i]);
    }
  }
  return new Set(
    [...best]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, nearest)
      .map(([d]) => d),
  );
}

export interface NonObviousRow extends NonObviousStats {
  /** Non-obvious precision over the corpus-wide base rate. */
  citationLift: number;
  /** Non-obvious precision over the popularity control's. */
  popularityRatio: number;
}

/** The full row for one method, given the shared base rate and control statistics. */
export function nonObviousRow(stats: NonObviousStats, baseRate: number, control: NonObviousStats): NonObviousRow {
  return { ...stats, citationLift: ratio(stats.nonObviousPrecision, baseRate), popularityRatio: ratio(stats.nonObviousPrecision, control.nonObviousPrecision) };
}
