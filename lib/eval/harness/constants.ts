/** Settings every table of the evaluation harness shares (the paper's selection). */

/** The graph every table shares: K = 20, α = 0.75, β = 0.25 (the paper's selection). */
export const EVAL_K = 20;
export const ALPHAS = [0, 0.25, 0.5, 0.75, 1] as const;
export const HOPS = [1, 2, 3] as const;
export const TOP_N = 50;
/** Beam width per item in the paper; the dense item lists keep as many. */
export const PER_ITEM = 50;
/** "the query's 50 nearest neighbours" of the non-obvious analysis, and its top-20 cut. */
export const NEAREST = 50;
export const NON_OBVIOUS_K = 20;

export const SPECTER2_REASON = "SPECTER2 weights cannot be loaded offline (no npm or Debian package ships them)";
export const S2_REASON = "the Semantic Scholar Recommendations API needs network access";
