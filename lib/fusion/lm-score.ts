/**
 * MINDER's combination (paper appendix "MINDER Baseline"): "Candidates are aggregated across
 * views by the language-model probability of the generated identifiers, and the paper's score is
 * the sum over the views that retrieved it. No other signal outside the model is used." Applied
 * to Graft's lists, each facet is a view:
 *   score(d) = Σ_{f : d ∈ L_f(q)} P_f(d),
 * with P_f(d) the probability of d's identifier in view f. Candidate scores are log-probabilities
 * by default (beams are ranked by mean per-token log-probability), so P = exp(score); summing raw
 * log-probabilities would penalise papers found by more views.
 *
 * The appendix does not say how several identifiers of one paper within a view combine; the
 * default keeps the best one ("max"), so each view contributes once as the text says; "sum"
 * adds every occurrence (SEAL/MINDER's passage-level sum) for ablation.
 */
import type { Facet } from "@/lib/corpus/types";
import { DEFAULT_TOP_N, fuseCredited, type FacetLists, type FusedResult, type RankedCandidate, type RankMode } from "./types";

export interface LmScoreOptions {
  topN?: number;
  /** Candidate.score is a log-probability (default true) or already a probability. */
  logProb?: boolean;
  /** How one view's several identifiers of the same paper combine; default "max". */
  withinView?: "max" | "sum";
  rankMode?: RankMode;
  exclude?: number;
}

export function lmScore(lists: FacetLists, options: LmScoreOptions = {}): FusedResult[] {
  const logProb = options.logProb ?? true;
  const withinView = options.withinView ?? "max";
  /** The view's probability of the paper: its identifiers' probabilities, combined. */
  const viewProbability = (facet: Facet, c: RankedCandidate): number => {
    let view = withinView === "max" ? -Infinity : 0;
    for (const o of c.occurrences) {
      if (o.score === undefined || Number.isNaN(o.score)) {
        throw new Error(`lmScore: candidate ${o.paper} in facet ${facet} has no model score`);
      }
      const p = logProb ? Math.exp(o.score) : o.score;
      view = withinView === "max" ? Math.max(view, p) : view + p;
    }
    return view;
  };
  return fuseCredited(lists, viewProbability, (view) => view, { ...options, topN: options.topN ?? DEFAULT_TOP_N });
}
