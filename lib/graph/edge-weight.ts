/**
 * Edge weight w_f(A,B) = α s_f(A,B) + β c(A,B) (appendix eqn:facet-combination).
 * α = 0.75, β = 0.25 are the values the paper's development-split sweep selected; the citation
 * term acts as a floor that keeps papers which co-occur in the literature connected even when
 * their facet similarity is weak.
 */

export interface EdgeWeightParams {
  alpha: number;
  beta: number;
}

export const DEFAULT_EDGE_WEIGHT: Readonly<EdgeWeightParams> = Object.freeze({ alpha: 0.75, beta: 0.25 });

export function edgeWeight(facetScore: number, citationScore: number, params: Partial<EdgeWeightParams> = {}): number {
  const alpha = params.alpha ?? DEFAULT_EDGE_WEIGHT.alpha;
  const beta = params.beta ?? DEFAULT_EDGE_WEIGHT.beta;
  return alpha * facetScore + beta * citationScore;
}
