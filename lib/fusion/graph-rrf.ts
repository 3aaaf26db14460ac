/**
 * Graph-RRF (paper Eq. "graph-rrf"):
 *   score(q, d) = Σ_{f ∈ F : d ∈ L_f(q)} w_f(q, d) / (k + rank_f(q, d)),
 * with w_f(q, d) the query–candidate edge weight in facet f's pruned top-20 graph, 0 when no edge
 * exists, and k = 60. A facet whose graph has no edge for the pair contributes nothing and is not
 * credited; a candidate no facet supports scores 0 and is filtered out.
 */
import type { Facet } from "@/lib/corpus";
import { edgeWeightOf, type FacetCsr, type PaperGraph } from "@/lib/graph";
import { weightedRrf, type CommonFusionOptions, type FacetLists, type FusedResult } from "./types";

/** w_f(q, d); any score of how well facet f supports d for q (the paper's generalisation). */
export type WeightOf = (facet: Facet, query: number, candidate: number) => number;

export interface GraphRrfOptions extends CommonFusionOptions {
  /** Corpus index of the query paper. */
  query: number;
  weightOf: WeightOf;
}

export function graphRrf(lists: FacetLists, options: GraphRrfOptions): FusedResult[] {
  const { query, weightOf } = options;
  // The query is never its own related work (the graph has no self-edges, but a custom weightOf might).
  return weightedRrf(lists, (facet, c) => weightOf(facet, query, c.paper), { ...options, exclude: options.exclude ?? query });
}

/**
 * w_f read from the query's row of each facet's adjacency (the paper's in-corpus setting); a
 * facet missing from the graph weighs 0.
 */
export function csrWeightOf(graph: PaperGraph | Partial<Record<Facet, FacetCsr>>): WeightOf {
  const facets: Partial<Record<Facet, FacetCsr>> = "facets" in graph ? (graph as PaperGraph).facets : graph;
  return (facet, query, candidate) => {
    const csr = facets[facet];
    return csr ? edgeWeightOf(csr, query, candidate) : 0;
  };
}
