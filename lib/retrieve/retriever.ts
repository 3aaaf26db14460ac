/**
 * Pluggable retrievers for relatedPapers (paper §"Facet Fusion with Graph-RRF": a retriever
 * produces one ranked candidate list L_f(q) per facet; a fusion rule combines them).
 *
 * Writing one:
 *
 *   import { registerRetriever, type Retriever } from "@/lib/retrieve/retriever";
 *   const mine: Retriever = {
 *     name: "graft",
 *     scoreKind: "log-prob",                       // what FacetCandidate.score holds
 *     async retrieve(ctx) {
 *       // ctx.db: the store of this request; ctx.graph: the loaded build (CSR, node ↔ paper ids, every node's items and vectors,
 *       //   ctx.graph.memo(key, make) to keep your own per-build index or model);
 *       // ctx.query: its facet items (texts and unit vectors), and `index`, its node when the
 *       //   query is a corpus paper of this build (null for an unseen paper);
 *       // ctx.facets: the facets to retrieve for; ctx.pool: candidates wanted per facet.
 *       return { problems: [{ paper: 12, score: -0.4, queryItem: 0, docId: "…" }], … };
 *     },
 *   };
 *   registerRetriever(mine);   // at module load; import that module from ./index.ts
 *
 * Rules: lists are best first and may repeat a paper (fusion collapses repeats, keeping the
 * first occurrence, whose queryItem/docId become the provenance); `paper` is a node index of
 * ctx.graph; never return ctx.query.index or ctx.query.exclude (fusion drops them anyway). A
 * retriever whose model or index is missing for the corpus throws a RetrievalError("not_ready",
 * …) that names the build step to run (lib/http answers it with 409).
 */
import type { Facet } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import type { FusedResult } from "@/lib/fusion";
import { CodedError, type ErrorCode } from "@/lib/errors";
import type { LoadedGraph } from "./graph-store";
import type { RetrievalIndex } from "./retrieval-index";
import type { WalkOptions } from "./walk";

/** A retrieval that cannot run: "not_ready" (a build step is missing) or "invalid_request". */
export class RetrievalError extends CodedError {
  constructor(code: ErrorCode, message: string) {
    super(code, message);
    this.name = "RetrievalError";
  }
}

/** One retrieved candidate of one facet list. */
export interface FacetCandidate {
  /** Node index of the retrieved paper in the graph build (ctx.graph). */
  paper: number;
  /**
   * The retriever's score; its meaning is the retriever's `scoreKind` (lm-score fusion sums
   * exp(log-prob) or prob across facets; the rank-based rules only use list order).
   */
  score: number;
  /**
   * Index into ctx.query.items[facet] of the query item that produced the candidate. Absent
   * for retrievers that work on the whole facet at once (the dense-graph walk, BM25): the
   * "why related" evidence then pairs the most similar items.
   */
  queryItem?: number;
  /** The DocID the candidate was decoded through (generative retrieval). */
  docId?: string;
  /** Index into the retrieved paper's items of this facet that the DocID identifies. */
  paperItem?: number;
}

export type FacetCandidateLists = Partial<Record<Facet, FacetCandidate[]>>;

/**
 * A retrieval over an index (./retrieval-index.ts): what the dense-graph walk and BM25 read, so
 * they also run on the evaluation's files-based corpus. RetrieveContext adds the served build
 * and the store.
 */
export interface IndexRetrieveContext<G extends RetrievalIndex = RetrievalIndex> {
  graph: G;
  query: {
    /** Node index when the query is a paper of this graph build; null for an unseen paper. */
    index: number | null;
    /** A node never to return (an uploaded record of a corpus paper); null when none. */
    exclude: number | null;
    title: string;
    abstract: string;
    /** Facet items per facet (possibly empty lists). */
    items: Record<Facet, string[]>;
    /** Their unit vectors (the build's embedder), aligned with `items`. */
    vectors: Record<Facet, Float32Array[]>;
    /** The paper's authors when its record gives them (a stored paper's, a record's or a PDF's; not pasted text). */
    authors?: readonly string[];
    /** The query paper's year when known (a record, a PDF, a corpus paper): which way is earlier work. */
    year?: number | null;
  };
  /** Facets to retrieve for (others may be left out of the answer). */
  facets: readonly Facet[];
  /**
   * The request named a subset of the facets ("related through its methods"): retrieve through
   * those facets only, with no whole-paper list.
   */
  facetsRestricted?: boolean;
  /** Candidates wanted per facet list (after collapsing repeats, at most). */
  pool: number;
  /**
   * The dense-graph walk's settings (hops, how paths combine), for the evaluation's ablations and
   * the paper's protocol; absent: the retriever's own (2 hops; paths add up for an unseen paper).
   */
  walk?: Pick<WalkOptions, "hops" | "combine">;
  /**
   * The request re-ranks these papers only (relatedPapers' `candidates`): every list is cut to
   * them afterwards, so a retriever that fuses lists of its own should rank among them first.
   */
  candidates?: ReadonlySet<number>;
  /**
   * Out: a retriever that inserts an unseen query ephemerally (the dense-graph walk) records
   * the query's first-hop edges here, per facet; graph-RRF then reads w_f(q, d) from them
   * instead of falling back to corroboration RRF. Leave it alone otherwise.
   */
  queryEdges: Partial<Record<Facet, QueryEdges>>;
  /**
   * Out: a list retrieved with the whole query paper (title + abstract) rather than one facet;
   * relatedPapers fuses it beside the facet lists (each of weight 1) with this RRF weight and says
   * so in each result's provenance.
   */
  wholePaper?: { list: FacetCandidate[]; weight: number };
  /** Nodes to treat as absent (relatedPapers' `hidden`): never a seed; never returned. */
  hidden?: ReadonlySet<number>;
  /**
   * Out: for a query without a year, the year its neighbourhood suggests (hybrid: the median year
   * of its lexical seeds), from which results count as earlier or later work.
   */
  referenceYear?: number | null;
  signal?: AbortSignal;
}

export interface RetrieveContext extends IndexRetrieveContext<LoadedGraph> {
  /** The store the request runs against (use it, not getDb(): tests and tools pass their own). */
  db: Db;
}

/** An unseen query's ephemeral row of one facet graph: corpus nodes and edge weights w_f(q, d). */
export interface QueryEdges {
  targets: ArrayLike<number>;
  weights: ArrayLike<number>;
}

/** A retriever; one that reads only the narrow index (C = IndexRetrieveContext) also runs in the evaluation harness. */
export interface Retriever<C extends IndexRetrieveContext = RetrieveContext> {
  readonly name: string;
  /** What FacetCandidate.score is: a log-probability, a probability, or another score. */
  readonly scoreKind: "log-prob" | "prob" | "score";
  /** The fusion a request's "auto" runs (default graph-rrf). */
  readonly preferredFusion?: "graph-rrf" | "rrf";
  retrieve(ctx: C): Promise<FacetCandidateLists>;
  /**
   * false: neither stage reads ctx.query.vectors (they arrive empty for a pasted paper), so
   * relatedPapers need not run the build's embedder on the query's items (default true).
   */
  readonly readsItemVectors?: boolean;
  /**
   * A second stage: re-orders the fused results (the facet lists and the whole-paper list after
   * fusion) with what the retriever knows of the query; provenance stays as fused.
   */
  rerank?(ctx: C, fused: readonly FusedResult[]): Promise<FusedResult[]>;
}

const registry = new Map<string, Retriever>();

/** Adds a retriever, or replaces the one of the same name. */
export function registerRetriever(r: Retriever): void {
  registry.set(r.name, r);
}

/** Removes a retriever (tests that plug one in for a while). */
export function unregisterRetriever(name: string): void {
  registry.delete(name);
}

export function registeredRetrievers(): string[] {
  return [...registry.keys()];
}

/** What to run when the generative retriever has no model yet. */
export const GRAFT_MODEL_HINT = "train the generative retriever first (`npm run graft -- build --stage genret`), or use --retriever dense-graph";

/** The retriever of that name; a known but unavailable one is not_ready, an unknown one invalid_request. */
export function getRetriever(name: string, corpus: string): Retriever {
  const r = registry.get(name);
  if (r) return r;
  if (name === "graft") {
    throw new RetrievalError(
      "not_ready",
      `retriever "graft" needs a trained generative-retriever model for corpus "${corpus}" and none exists: ${GRAFT_MODEL_HINT}`,
    );
  }
  throw new RetrievalError("invalid_request", `unknown retriever "${name}" (available: ${registeredRetrievers().join(", ")})`);
}
