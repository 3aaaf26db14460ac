/**
 * The dense-graph teacher's retrieval (paper §"The Multi-Facet Paper Graph", appendix
 * "Traversal Ablations"): per facet, a breadth-first walk from the query node along the top-20
 * edges, accumulating a path score multiplicatively along the traversed edges, two hops by
 * default, capped at 500 candidates per facet; the four facet lists are fused with reciprocal
 * rank fusion (k = 60) and truncated to the top 50, each result carrying its provenance.
 *
 * The paper does not say how paths meeting at one node combine. The default keeps the best
 * path (max-product: a node's score is its strongest chain of relations, and a hub reached by
 * many weak paths does not outrank a direct strong neighbour); "sum" (all walks of ≤ H hops) is
 * available for ablations. The paper's hyperparameter table also mentions "10 diversity slots"
 * without defining them; they are not modelled here.
 */
import { FACETS, type Facet } from "@/lib/corpus";
import { listsFromPapers, rrf as fuseRrf, type FusedResult, type RrfOptions } from "@/lib/fusion";
import type { FacetCsr, PaperGraph } from "@/lib/graph";

export type { FusedResult, RrfOptions };

export interface WalkOptions {
  /** Walk depth, 1-3 in the paper's ablation; default 2. */
  hops?: number;
  /** Candidates kept per facet; default 500. */
  cap?: number;
  /** Edges followed per node: the first `fanout` of its ranked row (the top-20 graph); default 20. */
  fanout?: number;
  /** How scores of paths reaching the same node combine; default "max". */
  combine?: "max" | "sum";
  /** First-hop edges followed from supplied start edges (an unseen query's); default `fanout`. */
  startFanout?: number;
}

/** First-hop edges of a query that is not (or not only) a node: ephemeral insertion. */
export interface WalkStartEdges {
  targets: ArrayLike<number>;
  weights: ArrayLike<number>;
  /** A corpus paper never to return (the query itself when it is indexed). */
  exclude?: number;
}

export interface RankedList {
  papers: Int32Array;
  scores: Float64Array;
}

const DEFAULT_HOPS = 2;
const DEFAULT_CAP = 500;
const DEFAULT_FANOUT = 20;

/** Ranks a score map best first (ties: lower paper index) and keeps `cap`. */
function rankScores(scores: Map<number, number>, cap: number): RankedList {
  const entries = [...scores].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, cap);
  return { papers: Int32Array.from(entries, (e) => e[0]), scores: Float64Array.from(entries, (e) => e[1]) };
}

/** One facet's walk from a corpus paper, or from ephemeral first-hop edges. */
export function walkFacet(csr: FacetCsr, start: number | WalkStartEdges, options: WalkOptions = {}): RankedList {
  const hops = options.hops ?? DEFAULT_HOPS;
  const cap = options.cap ?? DEFAULT_CAP;
  const fanout = options.fanout ?? DEFAULT_FANOUT;
  const combine = options.combine ?? "max";
  if (!Number.isInteger(hops) || hops < 1) throw new Error(`walkFacet: hops must be a positive integer, got ${hops}`);
  const exclude = typeof start === "number" ? start : (start.exclude ?? -1);

  // Hop 1 comes from the query's own row (or the supplied ephemeral edges).
  let frontier = new Map<number, number>();
  const firstTargets = typeof start === "number" ? csr.targets.subarray(csr.offsets[start], csr.offsets[start + 1]) : start.targets;
  const firstWeights = typeof start === "number" ? csr.weights.subarray(csr.offsets[start], csr.offsets[start + 1]) : start.weights;
  const firstFanout = typeof start === "number" ? fanout : (options.startFanout ?? fanout);
  for (let e = 0; e < Math.min(firstFanout, firstTargets.length); e++) {
    const v = firstTargets[e];
    if (v === exclude) continue;
    const w = firstWeights[e];
    frontier.set(v, combine === "max" ? Math.max(frontier.get(v) ?? -Infinity, w) : (frontier.get(v) ?? 0) + w);
  }
  const best = new Map(frontier);

  for (let h = 2; h <= hops && frontier.size > 0; h++) {
    const next = new Map<number, number>();
    for (const [u, su] of frontier) {
      const end = Math.min(csr.offsets[u] + fanout, csr.offsets[u + 1]);
      for (let e = csr.offsets[u]; e < end; e++) {
        const v = csr.targets[e];
        if (v === exclude) continue;
        const cand = su * csr.weights[e];
        if (combine === "max") {
          if (cand > (next.get(v) ?? -Infinity)) next.set(v, cand);
        } else next.set(v, (next.get(v) ?? 0) + cand);
      }
    }
    if (combine === "max") {
      // Only nodes whose best path improved need expanding: any other path through them is
      // dominated by one already expanded with fewer hops.
      frontier = new Map();
      for (const [v, s] of next) {
        if (s > (best.get(v) ?? -Infinity)) {
          best.set(v, s);
          frontier.set(v, s);
        }
      }
    } else {
      for (const [v, s] of next) best.set(v, (best.get(v) ?? 0) + s);
      frontier = next;
    }
  }
  return rankScores(best, cap);
}

/**
 * RRF over plain paper-index lists (the walks' output): a thin adapter over the one fusion
 * implementation in lib/fusion, so the teacher and the query pipeline rank identically.
 */
export function rrf(lists: Partial<Record<Facet, ArrayLike<number>>>, options: RrfOptions = {}): FusedResult[] {
  return fuseRrf(listsFromPapers(lists), options);
}

export interface DenseGraphOptions extends WalkOptions, RrfOptions {}

export interface DenseGraphResult {
  results: FusedResult[];
  perFacet: Partial<Record<Facet, RankedList>>;
}

/**
 * The dense-graph retriever: one walk per facet of the graph, fused with RRF. `query` is a
 * corpus paper, or per-facet ephemeral first-hop edges for an out-of-corpus query.
 */
export function denseGraphRetrieve(
  graph: PaperGraph,
  query: number | Partial<Record<Facet, WalkStartEdges>>,
  options: DenseGraphOptions = {},
): DenseGraphResult {
  const perFacet: Partial<Record<Facet, RankedList>> = {};
  const lists: Partial<Record<Facet, Int32Array>> = {};
  for (const facet of FACETS) {
    const csr = graph.facets[facet];
    if (!csr) continue;
    const start = typeof query === "number" ? query : query[facet];
    if (start === undefined) continue;
    const list = walkFacet(csr, start, options);
    perFacet[facet] = list;
    lists[facet] = list.papers;
  }
  return { results: rrf(lists, options), perFacet };
}
