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
import { FACETS } from "@/lib/corpus";
import { collapseList, DEFAULT_TOP_N, rankFused, type FacetLists, type FusedResult, type Provenance, type RankMode } from "./types";

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
  const fused = new Map<number, FusedResult>();
  for (const facet of FACETS) {
    const list = lists[facet];
    if (!list) continue;
    for (const c of collapseList(list, options.rankMode)) {
      if (c.paper === options.exclude) continue;
      let view = withinView === "max" ? -Infinity : 0;
      for (const o of c.occurrences) {
        if (o.score === undefined || Number.isNaN(o.score)) {
          throw new Error(`lmScore: candidate ${o.paper} in facet ${facet} has no model score`);
        }
        const p = logProb ? Math.exp(o.score) : o.score;
        view = withinView === "max" ? Math.max(view, p) : view + p;
      }
      if (!(view > 0)) continue;
      let r = fused.get(c.paper);
      if (!r) fused.set(c.paper, (r = { paper: c.paper, score: 0, provenance: [] }));
      r.score += view;
      const prov: Provenance = { facet, rank: c.rank, weight: view };
      if (c.first.queryItem !== undefined) prov.queryItem = c.first.queryItem;
      if (c.first.docId !== undefined) prov.docId = c.first.docId;
      r.provenance.push(prov);
    }
  }
  return rankFused(fused.values(), options.topN ?? DEFAULT_TOP_N);
}
