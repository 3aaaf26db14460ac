/**
 * The paper's own figures (graft-paper.tex, 11,359-paper corpus, Llama-3.2-1B, MiniLM), shown
 * beside ours for comparison and used as the only numbers of rows that cannot run offline
 * (SPECTER2, the Semantic Scholar Recommendations API), which are marked "not reproduced".
 */
export type Cutoff = "R@5" | "R@10" | "R@20" | "R@50";
export type PaperRecall = Partial<Record<Cutoff, number>>;

/** Table "Main results". */
export const PAPER_MAIN: Record<string, PaperRecall> = {
  "dense-graph": { "R@20": 0.357, "R@50": 0.56 },
  "doc-dense": { "R@20": 0.295, "R@50": 0.44 },
  "dense-only": { "R@20": 0.274, "R@50": 0.44 },
  bm25: { "R@20": 0.274, "R@50": 0.433 },
  specter2: { "R@20": 0.22, "R@50": 0.341 },
  "s2-recommendations": { "R@20": 0.124, "R@50": 0.129 },
  minder: { "R@20": 0.284, "R@50": 0.392 },
  "graft-uniform": { "R@20": 0.296, "R@50": 0.43 },
  "graft-oversample": { "R@20": 0.307, "R@50": 0.442 },
  "graft-floor": { "R@20": 0.322, "R@50": 0.447 },
  graft: { "R@20": 0.326, "R@50": 0.453 },
};

/** Table "Retrieval for 500 query papers outside the corpus". */
export const PAPER_OOC: Record<string, PaperRecall> = {
  "dense-graph": { "R@5": 0.218, "R@10": 0.36, "R@20": 0.501, "R@50": 0.657 },
  bm25: { "R@5": 0.164, "R@10": 0.23, "R@20": 0.309, "R@50": 0.434 },
  "doc-dense": { "R@5": 0.152, "R@10": 0.225, "R@20": 0.293, "R@50": 0.408 },
  specter2: { "R@5": 0.121, "R@10": 0.17, "R@20": 0.225, "R@50": 0.314 },
  graft: { "R@5": 0.367, "R@10": 0.453, "R@20": 0.548, "R@50": 0.709 },
};

/** Table "Comparison between fusion methods" (K_min = 3 model). */
export const PAPER_FUSION: Record<string, PaperRecall> = {
  "best-single-facet": { "R@20": 0.115, "R@50": 0.115 },
  rrf: { "R@20": 0.284, "R@50": 0.447 },
  "lm-score": { "R@20": 0.31, "R@50": 0.464 },
  "graph-rrf": { "R@20": 0.322, "R@50": 0.447 },
};

/** Table "Graph-RRF with one facet removed": R@20. */
export const PAPER_LEAVE_ONE_OUT: Record<string, number> = { all: 0.322, problems: 0.303, methods: 0.321, results: 0.317, contributions: 0.316 };

/** Table "Coverage-floor sweep": R@20 by K_min. */
export const PAPER_KMIN: Record<string, PaperRecall> = { "1": { "R@20": 0.299 }, "2": { "R@20": 0.304 }, "3": { "R@20": 0.322 }, "4": { "R@20": 0.294 } };

/** Table "Identifier scheme" (uniform sampling, graph-RRF). */
export const PAPER_IDENTIFIERS: Record<string, PaperRecall> = {
  "docid-numeric": { "R@20": 0.121 },
  "docid-c2t": { "R@20": 0.26 },
  "docid-bullet": { "R@20": 0.296 },
};

/** Table "Supervision and objective alternatives". */
export const PAPER_SUPERVISION: Record<string, PaperRecall> = {
  uniform: { "R@20": 0.296, "R@50": 0.43 },
  "ce-reweight": { "R@20": 0.303, "R@50": 0.436 },
  "+oversample": { "R@20": 0.307, "R@50": 0.442 },
  exhaustive: { "R@20": 0.242, "R@50": 0.328 },
  "hard-neg-50": { "R@20": 0.211, "R@50": 0.277 },
  "hard-neg-100": { "R@20": 0.201, "R@50": 0.275 },
};

/** Table "Walk depth for dense-graph retrieval". */
export const PAPER_HOPS: Record<string, PaperRecall> = {
  "1": { "R@20": 0.318, "R@50": 0.465 },
  "2": { "R@20": 0.357, "R@50": 0.56 },
  "3": { "R@20": 0.357, "R@50": 0.565 },
};

/** Table "Edge-weight sweep" (development split). */
export const PAPER_ALPHA: Record<string, PaperRecall> = {
  "0": { "R@20": 0.323, "R@50": 0.524 },
  "0.25": { "R@20": 0.339, "R@50": 0.552 },
  "0.5": { "R@20": 0.356, "R@50": 0.568 },
  "0.75": { "R@20": 0.363, "R@50": 0.569 },
  "1": { "R@20": 0.273, "R@50": 0.437 },
};

/** Table "Top-K pruning level against target coverage". */
export const PAPER_COVERAGE_K: Record<string, number> = { "10": 0.529, "20": 0.84, "50": 0.985 };

/** §"Coverage": target coverage under uniform sampling and with the coverage mechanisms. */
export const PAPER_TARGET_COVERAGE: Record<string, number> = { uniform: 0.84, "+fallback": 1 };

/** §"Fusion and Attribution". */
export const PAPER_ATTRIBUTION = { precision: 0.922, subsetShare: 0.899, perFacet: { results: 0.933, problems: 0.931, contributions: 0.915, methods: 0.903 } };

/** §"Out-of-Corpus Queries" and appendix "Non-Obvious Retrievals" (top-20). */
export const PAPER_NON_OBVIOUS = {
  graft: { nonObviousShare: 0.666, correctNonObviousShare: 0.474, nonObviousPrecision: 0.071, citationLift: 30.8, popularityRatio: 4.2 },
  "dense-graph": { nonObviousShare: 0.19 },
  baseRate: 0.0023,
};
