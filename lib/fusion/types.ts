/**
 * Shared shapes of the fusion stage (paper §"Facet Fusion with Graph-RRF"): the generative
 * retriever decodes one ranked candidate list L_f(q) per facet, and a fusion rule combines them
 * into one ranking whose entries keep the facets they were credited to (their provenance).
 */
import { PAPER_DEFAULTS } from "@/lib/config";
import { FACETS, type Facet } from "@/lib/corpus";

/** One decoded candidate: a corpus paper reached through one DocID of one query item. */
export interface Candidate {
  /** Corpus index of the retrieved paper. */
  paper: number;
  /** Model score of the identifier, e.g. its mean per-token log-probability (lm-score uses it). */
  score?: number;
  /** Index of the query's facet item (bullet) whose decoding produced it. */
  queryItem?: number;
  /** Index of the DocID (target facet item) it was decoded through. */
  docId?: number;
}

/**
 * Per-facet candidate lists, best first. A facet's list is the concatenation of its items'
 * beams in bullet order (appendix "Hyperparameters"), so one paper may occur several times.
 */
export type FacetLists = Partial<Record<Facet, readonly Candidate[]>>;

/** One facet's share of a fused result. */
export interface Provenance {
  facet: Facet;
  /** rank_f(q, d): 1-based rank of the paper in that facet's collapsed list. */
  rank: number;
  /** The factor the facet's term was scaled by (w_f, corr_f, 1 for RRF, the probability for lm-score). */
  weight: number;
  /** Query item and DocID of the occurrence that set the rank (the first one). */
  queryItem?: number;
  docId?: number;
}

export interface FusedResult {
  paper: number;
  score: number;
  /** The facets the fusion credited (contributed a positive term), in canonical facet order. */
  provenance: Provenance[];
  /** Its rank in the whole-paper list and that list's weight, when one was fused (fuseWholePaper). */
  wholePaper?: { rank: number; weight: number };
}

/** A candidate once a facet list is collapsed to unique papers. */
export interface RankedCandidate {
  paper: number;
  /** 1-based rank among the facet's unique papers. */
  rank: number;
  /** The first occurrence, which fixes the rank and the provenance. */
  first: Candidate;
  /** Every occurrence of the paper in the list, in list order (lm-score aggregates them). */
  occurrences: Candidate[];
}

/**
 * How rank_f is read from a list that repeats papers. "collapsed" (default) follows the paper
 * ("we collapse the results into unique papers"): duplicates are removed keeping the first
 * occurrence, and ranks count unique papers. "position" keeps the first occurrence's raw
 * 1-based position in the uncollapsed list (what a list without repeats gives either way).
 */
export type RankMode = "collapsed" | "position";

export interface CommonFusionOptions {
  /** RRF constant; the paper's k = 60. */
  k?: number;
  /** Results kept; default 50 (the paper evaluates up to R@50). */
  topN?: number;
  rankMode?: RankMode;
  /** A paper never to return, e.g. the query itself when it is a corpus member. */
  exclude?: number;
}

export const DEFAULT_K = PAPER_DEFAULTS.rrfK;
export const DEFAULT_TOP_N = PAPER_DEFAULTS.topN;

/** Collapses one facet's list into unique papers with their 1-based ranks. */
export function collapseList(list: readonly Candidate[], rankMode: RankMode = "collapsed"): RankedCandidate[] {
  const byPaper = new Map<number, RankedCandidate>();
  const out: RankedCandidate[] = [];
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    const seen = byPaper.get(c.paper);
    if (seen) {
      seen.occurrences.push(c);
      continue;
    }
    const r: RankedCandidate = { paper: c.paper, rank: rankMode === "collapsed" ? out.length + 1 : i + 1, first: c, occurrences: [c] };
    byPaper.set(c.paper, r);
    out.push(r);
  }
  return out;
}

/** Lists from bare paper ids (no scores or items), e.g. another retriever's ranking. */
export function listsFromPapers(lists: Partial<Record<Facet, ArrayLike<number>>>): FacetLists {
  const out: Partial<Record<Facet, Candidate[]>> = {};
  for (const facet of FACETS) {
    const l = lists[facet];
    if (l) out[facet] = Array.from(l, (paper) => ({ paper }));
  }
  return out;
}

/** Keeps only the given facets' lists (leave-one-out and single-facet ablations). */
export function restrictFacets(lists: FacetLists, facets: readonly Facet[]): FacetLists {
  const out: Partial<Record<Facet, readonly Candidate[]>> = {};
  for (const f of facets) {
    const l = lists[f];
    if (l) out[f] = l;
  }
  return out;
}

function bestRank(r: FusedResult): number {
  let best = Infinity;
  for (const p of r.provenance) if (p.rank < best) best = p.rank;
  return best;
}

/**
 * Orders fused results best first and keeps topN. Ties (as in the dense-graph teacher's RRF):
 * more credited facets, then best single rank, then lower paper index, so runs are deterministic.
 */
export function rankFused(results: Iterable<FusedResult>, topN: number): FusedResult[] {
  return [...results]
    .sort((a, b) => b.score - a.score || b.provenance.length - a.provenance.length || bestRank(a) - bestRank(b) || a.paper - b.paper)
    .slice(0, topN);
}

/** Adds `score` to a candidate's fused result, with its provenance in `facet` (rank, `weight`, the query item and DocID it came from). */
function creditCandidate(fused: Map<number, FusedResult>, facet: Facet, c: RankedCandidate, score: number, weight: number): void {
  let r = fused.get(c.paper);
  if (!r) fused.set(c.paper, (r = { paper: c.paper, score: 0, provenance: [] }));
  r.score += score;
  const p: Provenance = { facet, rank: c.rank, weight };
  if (c.first.queryItem !== undefined) p.queryItem = c.first.queryItem;
  if (c.first.docId !== undefined) p.docId = c.first.docId;
  r.provenance.push(p);
}

/**
 * The shared core of every rank-based rule: score(d) = Σ_f weight_f(d) / (k + rank_f(d)) over the
 * facets whose list holds d, crediting only facets with weight > 0; papers with no credited
 * facet are dropped (score 0 is not a retrieval).
 */
export function weightedRrf(
  lists: FacetLists,
  weightOf: (facet: Facet, candidate: RankedCandidate) => number,
  options: CommonFusionOptions = {},
): FusedResult[] {
  const k = options.k ?? DEFAULT_K;
  const topN = options.topN ?? DEFAULT_TOP_N;
  if (!(k >= 0)) throw new Error(`fusion: k must be ≥ 0, got ${k}`);
  return fuseCredited(lists, weightOf, (w, c) => w / (k + c.rank), { ...options, topN });
}

/**
 * Each facet's collapsed list (FACETS order; the excluded paper left out) credits its candidates
 * with the weight `weightOf` gives, if > 0, adding `scoreOf(weight)` to their fused score; ranked.
 */
export function fuseCredited(
  lists: FacetLists,
  weightOf: (facet: Facet, candidate: RankedCandidate) => number,
  scoreOf: (weight: number, candidate: RankedCandidate) => number,
  options: { rankMode?: RankMode; exclude?: number; topN: number },
): FusedResult[] {
  const fused = new Map<number, FusedResult>();
  for (const facet of FACETS) {
    const list = lists[facet];
    if (!list) continue;
    for (const c of collapseList(list, options.rankMode)) {
      if (c.paper === options.exclude) continue;
      const w = weightOf(facet, c);
      if (!(w > 0)) continue;
      creditCandidate(fused, facet, c, scoreOf(w, c), w);
    }
  }
  return rankFused(fused.values(), options.topN);
}
