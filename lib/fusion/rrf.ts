/**
 * Plain reciprocal rank fusion (Cormack et al. 2009), the "Uniform RRF (no graph)" row of the
 * paper's fusion table: score(d) = Σ_{f : d ∈ L_f(q)} 1 / (k + rank_f(d)), k = 60.
 */
import { weightedRrf, type CommonFusionOptions, type FacetLists, type FusedResult } from "./types";

export type RrfOptions = CommonFusionOptions;

export function rrf(lists: FacetLists, options: RrfOptions = {}): FusedResult[] {
  // Every facet that lists d is credited with weight 1.
  return weightedRrf(lists, () => 1, options);
}
