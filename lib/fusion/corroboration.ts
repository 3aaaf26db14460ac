/**
 * Graph fusion without graph edges (paper appendix "Out-of-Corpus Evaluation"): an unseen query
 * has no row in the adjacency, so w_f(q, d) is replaced by the candidate's mutual corroboration
 * with the other retrieved candidates, which are corpus members:
 *   corr_f(d)  = Σ_{p ∈ C \ {d}} max(s_f(d, p), s_f(p, d))                     (Eq. corr)
 *   score(d)   = Σ_{f ∈ F : corr_f(d) > 0} corr_f(d) / (k + rank_f(d))          (Eq. corr-rrf)
 * rank_f(d) exists only when d ∈ L_f(q), so a facet is credited only if its list holds d and
 * corr_f(d) > 0. The paper applies no normalisation to corr_f, and neither do we.
 *
 * C is "the retrieved set" with no facet subscript, so by default it is the union of every
 * facet's candidates for the query ("union"); "facet" uses L_f(q) alone, for ablation.
 */
import { FACETS, type Facet } from "@/lib/corpus";
import { neighboursOf, type FacetCsr, type PaperGraph } from "@/lib/graph";
import { collapseList, weightedRrf, type CommonFusionOptions, type FacetLists, type FusedResult } from "./types";

/** s_f(a, b) between two corpus papers; asymmetric scores are fine (corr takes the max). */
export type FacetScore = (facet: Facet, a: number, b: number) => number;

/** A paper's stored (sparse) s_f row: the fast path when s_f is 0 off the stored edges. */
export type FacetRow = (facet: Facet, paper: number) => { targets: ArrayLike<number>; scores: ArrayLike<number> } | undefined;

export type CorroborationPool = "union" | "facet";

export interface CorroborationOptions extends CommonFusionOptions {
  /** Pairwise s_f, evaluated for every (d, p) pair: O(|L_f|·|C|) calls per facet. */
  facetScore?: FacetScore;
  /**
   * Sparse s_f rows (non-negative, 0 off the row), e.g. from the pruned graph: O(|C|·degree)
   * per facet. Give exactly one of facetScore and facetRow.
   */
  facetRow?: FacetRow;
  /** Which candidates corroborate: all retrieved papers (default) or the facet's own list. */
  pool?: CorroborationPool;
}

/** corr_f(d) for every d in `targets`, against the pool. */
export function corroboration(
  facet: Facet,
  targets: readonly number[],
  pool: readonly number[],
  score: { facetScore?: FacetScore; facetRow?: FacetRow },
): Map<number, number> {
  const out = new Map<number, number>();
  if (score.facetRow) {
    // Pair maxima over both stored directions, keyed symmetrically; a pair absent from both rows is 0.
    const inPool = new Set(pool);
    const pairMax = new Map<number, Map<number, number>>();
    const bump = (a: number, b: number, s: number): void => {
      let m = pairMax.get(a);
      if (!m) pairMax.set(a, (m = new Map()));
      if (s > (m.get(b) ?? 0)) m.set(b, s);
    };
    for (const p of inPool) {
      const row = score.facetRow(facet, p);
      if (!row) continue;
      for (let e = 0; e < row.targets.length; e++) {
        const t = row.targets[e];
        if (t === p || !inPool.has(t)) continue;
        bump(p, t, row.scores[e]);
        bump(t, p, row.scores[e]);
      }
    }
    for (const d of targets) {
      let sum = 0;
      for (const s of pairMax.get(d)?.values() ?? []) sum += s;
      out.set(d, sum);
    }
    return out;
  }
  const facetScore = score.facetScore;
  if (!facetScore) throw new Error("corroboration: give facetScore or facetRow");
  for (const d of targets) {
    let sum = 0;
    for (const p of pool) if (p !== d) sum += Math.max(facetScore(facet, d, p), facetScore(facet, p, d));
    out.set(d, sum);
  }
  return out;
}

export function corroborationRrf(lists: FacetLists, options: CorroborationOptions): FusedResult[] {
  if ((options.facetScore === undefined) === (options.facetRow === undefined)) {
    throw new Error("corroborationRrf: give exactly one of facetScore and facetRow");
  }
  const pool = options.pool ?? "union";
  const collapsed: Partial<Record<Facet, number[]>> = {};
  const union = new Set<number>();
  for (const facet of FACETS) {
    const list = lists[facet];
    if (!list) continue;
    const papers = collapseList(list)
      .map((c) => c.paper)
      .filter((p) => p !== options.exclude);
    collapsed[facet] = papers;
    for (const p of papers) union.add(p);
  }
  const unionList = [...union];
  const corr: Partial<Record<Facet, Map<number, number>>> = {};
  for (const facet of FACETS) {
    const papers = collapsed[facet];
    if (papers) corr[facet] = corroboration(facet, papers, pool === "union" ? unionList : papers, options);
  }
  return weightedRrf(lists, (facet, c) => corr[facet]?.get(c.paper) ?? 0, options);
}

/** s_f rows from the stored graph; "facetScores" is the paper's s_f, "weights" the fused w_f. */
export function csrFacetRow(graph: PaperGraph | Partial<Record<Facet, FacetCsr>>, field: "facetScores" | "weights" = "facetScores"): FacetRow {
  const facets: Partial<Record<Facet, FacetCsr>> = "facets" in graph ? (graph as PaperGraph).facets : graph;
  return (facet, paper) => {
    const csr = facets[facet];
    if (!csr || paper < 0 || paper >= csr.numPapers) return undefined;
    const n = neighboursOf(csr, paper);
    return { targets: n.targets, scores: n[field] };
  };
}
