/**
 * Shared shapes of the query pipeline (relatedPapers, `graft query`, POST /api/related, the web
 * app). Client-safe: constants and types only, no server imports, so browser code can import
 * it. The zod schemas that validate these live in lib/query/options.ts (server and client may
 * both use them; zod is client-safe too).
 */
import type { Facet } from "@/lib/corpus/types";
import type { ApiErrorCode } from "@/lib/http/types";
import type { FusionRule } from "@/lib/retrieve";

// ── options ──────────────────────────────────────────────────────────────────────────────

/**
 * Retrievers a request may name: hybrid (lexical seeds + citation expansion per facet and for the
 * whole paper), the generative retriever alone, the dense-graph teacher, BM25.
 */
export const RETRIEVER_NAMES = ["hybrid", "graft", "dense-graph", "bm25"] as const;
export type RetrieverName = (typeof RETRIEVER_NAMES)[number];

/**
 * How the explorer, the exports and `graft eval` name each offered retriever. A new retriever is
 * registered in lib/retrieve/index.ts and offered here, once (name above, words below); the API,
 * the CLI and the explorer read these lists, `graft eval --suite user-papers` measures every offered
 * retriever (lib/eval/user-papers-suite.ts), and lib/eval/retriever-catalogue.test.ts checks that
 * the two places agree.
 */
export const RETRIEVER_INFO: Record<RetrieverName, { label: string; hint: string }> = {
  hybrid: {
    label: "Graft hybrid",
    hint: "Finds papers whose words match each facet of yours and the paper as a whole, then follows what those papers cite and the papers citing them (the default).",
  },
  graft: {
    label: "Graft",
    hint: "A trained model writes out the identifiers of related papers for each facet item (graph-distilled generative retrieval); for a paper outside the corpus, those papers and its closest facet matches start a walk of the facet graph.",
  },
  "dense-graph": {
    label: "Dense graph",
    hint: "Finds papers whose facet items mean the same thing, then follows links in the facet graph (the model's teacher).",
  },
  bm25: { label: "BM25", hint: "Matches the words of each facet item against titles and abstracts: a keyword baseline for comparison." },
};
/** One default for the explorer, the API and the CLI (issue 17: the best measured on papers users bring). */
export const DEFAULT_RETRIEVER: RetrieverName = "hybrid";

/**
 * Fusion rules a request may ask for. "auto" (the default) runs the retriever's own rule: RRF for
 * hybrid (its lists already follow the citation graph), graph-RRF for the others. "graph-rrf" is Graft's: w_f(q, d) comes from the query's
 * row of the facet graph, or, for a paper that is not a graph node, from its ephemeral edges
 * when the retriever made some (dense-graph); otherwise it runs as "corroboration-rrf" (the
 * result says so). "corroboration-rrf" may also be asked for directly. "lm-score" (MINDER)
 * needs a retriever whose candidate scores are model probabilities.
 */
export const FUSION_NAMES = ["auto", "graph-rrf", "corroboration-rrf", "rrf", "lm-score"] as const satisfies readonly ("auto" | FusionRule)[];
export type FusionName = (typeof FUSION_NAMES)[number];
export const DEFAULT_FUSION: FusionName = "auto";

/** The rule that actually ran (the shared retrieve-and-fuse step's rules). */
export type AppliedFusion = FusionRule;

export const MAX_K = 100;
export const DEFAULT_K = 20;
/**
 * Most papers a request may ask to re-rank (`candidates`: a reading list, a benchmark's pool).
 * With candidates, k defaults to all of them and may be up to their number.
 */
export const MAX_CANDIDATES = 2000;

/** Request options (the validated form; every field but k, retriever, fusion, facets is optional). */
export interface RelatedOptionsShape {
  k: number;
  retriever: RetrieverName;
  fusion: FusionName;
  facets: Facet[];
  yearFrom?: number;
  yearTo?: number;
  venue?: string;
  /** Earlier work only, later work only, or both (the default; see Direction). */
  direction?: DirectionFilter;
  /**
   * Re-rank these papers (external ids of the corpus, repeats dropped) instead of searching the
   * corpus: results are these papers only, each ranked (see RelatedResult.candidates).
   */
  candidates?: string[];
}

// ── the query paper ──────────────────────────────────────────────────────────────────────

/** How the query paper arrived: a paper id in the store, pasted text, an uploaded PDF, a JSON record. */
export type QuerySource = "corpus" | "text" | "pdf" | "record";

export interface QueryPaper {
  source: QuerySource;
  /** The paper's id in the corpus, or a JSON record's own id; null for text and PDFs. */
  externalId: string | null;
  /** "" when no title could be recognised. */
  title: string;
  /**
   * True when the query is a node of the graph build (an indexed corpus paper): retrieval starts
   * from its own edges. False for everything else (text, PDFs, records, the corpus's
   * out-of-corpus query papers): its items are inserted ephemerally.
   */
  inGraph: boolean;
  /** The facet items retrieval used, per facet (possibly empty lists). */
  facets: Record<Facet, string[]>;
  /**
   * The year results' directions are measured from: the paper's own ("paper": its record, PDF or
   * corpus entry), else the median year of the papers whose words match it most ("inferred").
   */
  year?: { value: number; source: "paper" | "inferred" } | null;
  /** Present when the facets were extracted for this request. */
  extraction?: { provider: string; model: string; ms: number };
}

// ── results ──────────────────────────────────────────────────────────────────────────────

export interface Evidence {
  /** The query paper's item and the related paper's item that match best in this facet. */
  queryItem: string;
  paperItem: string;
  /** Cosine of the two items' embeddings. */
  similarity: number;
}

/** One facet's share of a result: why fusion credited it. */
export interface CreditedFacet {
  facet: Facet;
  /** 1-based rank of the paper in this facet's retrieved list (duplicates collapsed). */
  rank: number;
  /**
   * The factor the facet's reciprocal rank was scaled by: graph-RRF the edge weight w_f(q, d),
   * corroboration RRF corr_f(d), plain RRF 1, lm-score the identifier probability.
   */
  weight: number;
  /** The query item that produced the candidate, when the retriever works per item (else null). */
  queryItem: string | null;
  /** The DocID the candidate was decoded through (generative retriever), else null. */
  docId: string | null;
  /** "Why related": the query's item next to the related paper's matching item. */
  evidence: Evidence | null;
}

/**
 * How a result relates to the query in time: work the query builds on ("earlier": published
 * before the query's year), work building on it ("later"), or "neither" (the same year, or no
 * year to tell). The query's year is its record's, PDF's or corpus entry's; for pasted text the
 * median year of the papers whose words match it most (the retriever's lexical seeds).
 */
export type Direction = "earlier" | "later" | "neither";
export const DIRECTION_FILTERS = ["both", "earlier", "later"] as const;
export type DirectionFilter = (typeof DIRECTION_FILTERS)[number];

export interface RelatedPaper {
  externalId: string;
  title: string;
  year: number | null;
  venue: string | null;
  authors: string[];
  score: number;
  /** Earlier work, later work or neither, measured from `RelatedResult.query.year`. */
  direction?: Direction;
  /** The facets fusion credited, in canonical facet order. */
  facets: CreditedFacet[];
  /** Its rank in the list retrieved with the whole query paper, when the retriever made one (hybrid). */
  wholePaperRank?: number;
  /**
   * A candidate of the request that no list of the retriever reached (only with `candidates`):
   * ranked after every reached one, in the order the request gave, with score 0 and no facets.
   */
  unreached?: true;
}

export interface PerFacetEntry {
  externalId: string;
  title: string;
  /** For matching against the reader's library (title + year), as RelatedPaper.year. */
  year: number | null;
  rank: number;
  score: number;
}

export interface RelatedTimings {
  /** Reading a PDF / text / record (absent for corpus papers). */
  parseMs?: number;
  /** Facet extraction (absent when the facets were given or stored). */
  extractMs?: number;
  /** Embedding the query's items (0 when they came from the build's vector cache). */
  embedMs: number;
  retrieveMs: number;
  fuseMs: number;
  totalMs: number;
}

export interface RelatedResult {
  corpus: string;
  build: number;
  retriever: RetrieverName;
  /** The rule that ran (corroboration-rrf when graph-rrf was asked for an unseen paper). */
  fusion: AppliedFusion;
  requestedFusion: FusionName;
  /** Why the applied fusion differs from the requested one, in a sentence; null when it does not. */
  fusionNote: string | null;
  query: QueryPaper;
  results: RelatedPaper[];
  /** What each facet retrieved on its own (top k, filters applied, before fusion). */
  perFacet: Record<Facet, PerFacetEntry[]>;
  timings: RelatedTimings;
  /**
   * Present when the request gave candidates: how many it gave (repeats dropped), how many were
   * ranked (all but the query paper itself and those the filters drop, before k), and how many
   * of those the retriever reached (the rest come after them, in the request's order).
   */
  candidates?: { given: number; ranked: number; reached: number; excluded: string[] };
}

// ── streaming (POST /api/related?stream=1: NDJSON) ──────────────────────────────────────

export const QUERY_STEPS = ["upload", "parse", "extract", "embed", "retrieve", "fuse"] as const;
export type QueryStep = (typeof QUERY_STEPS)[number];

/** Error codes of the query API: the API's one list (lib/http/types.ts, from lib/errors.ts). */
export type QueryErrorCode = ApiErrorCode;

export interface QueryErrorBody {
  error: { code: QueryErrorCode; message: string; issues?: { path: string; message: string }[] };
}

/** One NDJSON line: progress, then exactly one result or error line, last. */
export type RelatedStreamLine = { step: QueryStep; message: string } | { result: RelatedResult } | QueryErrorBody;
