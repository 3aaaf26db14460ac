/**
 * Fusion ablations (paper §"Fusion and Attribution" and appendix "Fusion Ablations"): the best
 * single facet, and leave-one-facet-out with its Δ from the full fusion. Both take an evaluator
 * of a facet subset (e.g. micro R@20 of graph-RRF over those facets' lists, see
 * `restrictFacets`), so they work for any fusion rule and metric.
 */
import { FACETS, type Facet } from "@/lib/corpus";

/** Scores a run that fuses only `facets`; higher is better. */
export type SubsetEvaluator = (facets: readonly Facet[]) => number;

export interface SingleFacetResult {
  facet: Facet;
  value: number;
  /** Every facet's value, in canonical order. */
  all: { facet: Facet; value: number }[];
}

/** The facet that scores best on its own (ties: canonical facet order). */
export function bestSingleFacet(evaluate: SubsetEvaluator, facets: readonly Facet[] = FACETS): SingleFacetResult {
  if (facets.length === 0) throw new Error("bestSingleFacet: no facets");
  const all = facets.map((facet) => ({ facet, value: evaluate([facet]) }));
  let best = all[0];
  for (const r of all) if (r.value > best.value) best = r;
  return { facet: best.facet, value: best.value, all };
}

export interface LeaveOneOutResult {
  full: number;
  rows: { removed: Facet; value: number; delta: number }[];
}

/** The full fusion and each fusion with one facet removed; delta = value − full. */
export function leaveOneFacetOut(evaluate: SubsetEvaluator, facets: readonly Facet[] = FACETS): LeaveOneOutResult {
  const full = evaluate(facets);
  const rows = facets.map((removed) => {
    const value = evaluate(facets.filter((f) => f !== removed));
    return { removed, value, delta: value - full };
  });
  return { full, rows };
}
