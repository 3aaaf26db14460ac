/**
 * Plain reciprocal rank fusion (Cormack et al. 2009), the "Uniform RRF (no graph)" row of the
 * paper's fusion table: score(d) = Σ_{f : d ∈ L_f(q)} 1 / (k + rank_f(d)), k = 60.
 */
import { DEFAULT_K, rankFused, weightedRrf, type CommonFusionOptions, type FacetLists, type FusedResult } from "./types";

export type RrfOptions = CommonFusionOptions;

export function rrf(lists: FacetLists, options: RrfOptions = {}): FusedResult[] {
  // Every facet that lists d is credited with weight 1.
  return weightedRrf(lists, () => 1, options);
}

/** A list of whole-paper candidates (papers best first, repeats allowed) and its RRF weight. */
export interface WholePaperList {
  papers: readonly number[];
  weight: number;
}

/**
 * Adds the whole-paper list's reciprocal-rank term, weight / (k + rank), to the facet fusion's
 * results: a paper the facet lists missed enters with no facet credited, and each result that
 * the whole paper found records its rank there (FusedResult.wholePaper).
 */
export function fuseWholePaper(fused: readonly FusedResult[], list: WholePaperList, options: { k?: number; exclude?: number } = {}): FusedResult[] {
  const k = options.k ?? DEFAULT_K;
  const byPaper = new Map(fused.map((r) => [r.paper, { ...r }]));
  let rank = 0;
  const seen = new Set<number>();
  for (const paper of list.papers) {
    if (seen.has(paper) || paper === options.exclude) continue;
    seen.add(paper);
    rank++;
    let r = byPaper.get(paper);
    if (!r) byPaper.set(paper, (r = { paper, score: 0, provenance: [] }));
    r.score += list.weight / (k + rank);
    r.wholePaper = { rank, weight: list.weight };
  }
  return rankFused(byPaper.values(), Number.MAX_SAFE_INTEGER);
}
