/**
 * relatedPapers: a paper in, related papers out, each with the facets that surfaced it and the
 * evidence (paper §"Facet Fusion with Graph-RRF", appendix "Graph Fusion without Graph Edges",
 * §"Fusion and Attribution"). One function for the CLI, the HTTP API and the web app.
 *
 *   input      a corpus paper id | pasted text | a paper record | an uploaded file (PDF, .txt, .json)
 *   → parse    lib/input (validation, size limits)
 *   → extract  facets with the configured extractor, unless the input carries them
 *   → embed    query items with the build's embedder (cached vectors for stored papers)
 *   → retrieve one candidate list per facet from a pluggable retriever (./retriever.ts)
 *   → fuse     graph-RRF (w_f from the query's edges) for graph nodes; corroboration RRF for
 *              unseen papers, which have no edges; or plain RRF / MINDER's lm-score
 *   → filter   year range and venue, after fusion, so filters still leave k results
 *
 * Re-ranking (options.candidates: a reading list, a benchmark's pool): the retriever ranks as
 * deep as the corpus, every list keeps only the candidates (so a rank is a rank among them)
 * before fusion, and the candidates no list reached follow the reached ones in the request's
 * order, so every candidate gets a rank.
 */
import { corpusName, DEFAULT_CORPUS, NotFoundError, parseAuthors } from "@/lib/corpus/browse";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { Db } from "@/lib/db/client";
import { dot } from "@/lib/embed/types";
import type { FacetExtractor } from "@/lib/facets";
import { collapseList, type FacetLists, type FusedResult } from "@/lib/fusion";
import { readPaperInput, type InputLimits, type InputPaper } from "@/lib/input";
import { QueryError } from "./errors";
import { itemsOf, loadGraph, vectorsOf, type LoadedGraph } from "@/lib/retrieve";
import type { RelatedOptions } from "./options";
import { getRetriever, type FacetCandidate, type RetrieveContext, type Retriever } from "@/lib/retrieve";
import { retrieveAndFuse } from "@/lib/retrieve";
import "@/lib/retrieve";
import { textEncoder } from "@/lib/retrieve";
import type { LsaEmbedder } from "@/lib/embed";
import { embedQueryItems, queryExtractor } from "./services";
import type { AppliedFusion, CreditedFacet, Direction, Evidence, PerFacetEntry, QuerySource, QueryStep, RelatedPaper, RelatedResult } from "./types";

export * from "./types";
export { corpusPaperInput, relatedOptions, type CorpusPaperInput, type RelatedOptions } from "./options";
/** Kept for callers of the first version: the names a request may use. */
export { RETRIEVER_NAMES as RETRIEVERS, FUSION_NAMES as FUSIONS } from "./types";

/** What to find related papers for. `corpus` defaults to the demo corpus. */
export type RelatedInput =
  | { corpus?: string; paperId: string }
  | { corpus?: string; text: string }
  /** A paper record as in papers.jsonl (id optional): title, abstract, facets, year, venue, authors. */
  | { corpus?: string; paper: unknown }
  /** An uploaded file; its kind (PDF, text, JSON) is told from its content. */
  | { corpus?: string; file: { name: string; bytes: Uint8Array } };

export interface RelatedHooks {
  /** Called as each step starts (the streaming API forwards these). */
  onStep?: (step: QueryStep, message: string) => void;
  /** Overrides of the input size limits (default: lib/input/limits.ts from the environment). */
  limits?: Partial<InputLimits>;
  /** Facet extractor for text and PDFs (default: the configured one, GRAFT_EXTRACTOR). */
  extractor?: FacetExtractor;
  /**
   * Corpus papers to treat as absent (an evaluation hiding the paper whose references are its
   * gold): never returned, and never a seed or voter of hybrid's citation expansion (the graph
   * retrievers' stored edges still hold them).
   */
  hidden?: readonly string[];
  signal?: AbortSignal;
}

/** Candidates per facet list and the fused pool: the walk's cap, so filters rarely starve k. */
export const POOL = 500;

const FUSION_LABEL: Record<AppliedFusion, string> = {
  "graph-rrf": "graph-RRF",
  "corroboration-rrf": "corroboration RRF",
  rrf: "RRF",
  "lm-score": "LM-score aggregation",
};

const emptyFacets = (): Record<Facet, string[]> => Object.fromEntries(FACETS.map((f) => [f, [] as string[]])) as Record<Facet, string[]>;

interface ResolvedQuery {
  source: QuerySource;
  externalId: string | null;
  title: string;
  abstract: string;
  /** Node of this build, or null. */
  index: number | null;
  /** A node never to return (an uploaded record of a corpus paper). */
  exclude: number | null;
  facets: Record<Facet, string[]>;
  /** From the paper's record or PDF when given (pasted text has none). */
  authors?: readonly string[];
  /** The paper's year, when its record, PDF or corpus entry gives one. */
  year?: number | null;
  extraction?: { provider: string; model: string; ms: number };
  parseMs?: number;
  extractMs?: number;
}

/** The retrieve context of a request: the query, the facets it may use, the pool, candidates and hidden papers. */
function requestContext(
  db: Db,
  g: LoadedGraph,
  { q, requested, usable, emb }: { q: ResolvedQuery; requested: Record<Facet, string[]>; usable: Facet[]; emb: QueryVectors },
  options: RelatedOptions,
  hooks: RelatedHooks,
  candidates: CandidateNodes | null,
  hidden: ReadonlySet<number>,
): RetrieveContext {
  return {
    db,
    graph: g,
    query: {
      index: q.index,
      exclude: q.exclude,
      title: q.title,
      abstract: q.abstract,
      items: requested,
      vectors: emb.encoder ? emptyVectors() : emb.vectors,
      authors: q.authors ?? [],
      year: q.year ?? null,
    },
    facets: usable,
    facetsRestricted: options.facets.length < FACETS.length,
    // Re-ranking: as deep as the corpus, so that the lists reach as many candidates as they can.
    pool: candidates ? Math.max(POOL, g.papers.length) : POOL,
    ...(candidates ? { candidates: candidates.set } : {}),
    queryEdges: {},
    ...(hidden.size > 0 ? { hidden } : {}),
    signal: hooks.signal,
  };
}

/**
 * The first k fused papers that pass the filters, then (re-ranking) the passing candidates that
 * no list reached; with re-ranking, also what became of the candidates.
 */
function pickResults(
  g: LoadedGraph,
  fused: readonly FusedResult[],
  describe: (r: FusedResult) => RelatedPaper,
  passes: (node: number) => boolean,
  k: number,
  candidates: CandidateNodes | null,
): { results: RelatedPaper[]; candidateSummary: RelatedResult["candidates"] } {
  const results: RelatedPaper[] = [];
  for (const r of fused) {
    if (results.length >= k) break;
    if (passes(r.paper)) results.push(describe(r));
  }
  if (!candidates) return { results, candidateSummary: undefined };
  const reached = new Set(fused.map((r) => r.paper));
  const ranked = candidates.nodes.filter(passes);
  const unreached = ranked.filter((node) => !reached.has(node));
  for (const node of unreached) {
    if (results.length >= k) break;
    results.push(unreachedResult(g, node));
  }
  const kept = new Set(ranked);
  const candidateSummary = {
    given: candidates.nodes.length,
    ranked: ranked.length,
    reached: ranked.length - unreached.length,
    excluded: candidates.nodes.filter((node) => !kept.has(node)).map((node) => g.papers[node].externalId),
  };
  return { results, candidateSummary };
}

export async function relatedPapers(db: Db, input: RelatedInput, options: RelatedOptions, hooks: RelatedHooks = {}): Promise<RelatedResult> {
  const t0 = performance.now();
  const step = (s: QueryStep, message: string) => hooks.onStep?.(s, message);
  const corpus = corpusName.parse(input.corpus ?? DEFAULT_CORPUS);
  const g = await loadGraph(db, corpus);
  // Fail before any parsing or extraction when the retriever cannot run.
  const retriever = getRetriever(options.retriever, corpus);
  if (options.fusion === "lm-score" && retriever.scoreKind === "score") {
    throw new QueryError(
      "invalid_request",
      `fusion "lm-score" sums model probabilities, and retriever "${retriever.name}" has none; use fusion graph-rrf or rrf, or retriever graft`,
    );
  }

  const candidates = options.candidates ? candidateNodes(g, options.candidates) : null;
  const q = await resolveQuery(db, g, input, hooks);
  hooks.signal?.throwIfAborted();
  const usable = options.facets.filter((f) => q.facets[f].length > 0);
  if (usable.length === 0) {
    throw new QueryError(
      "no_facets",
      `The query paper has no items in the requested facets (${options.facets.join(", ")}), so there is nothing to retrieve with.`,
    );
  }

  // ── embed ──
  const toEmbed = usable.reduce((n, f) => n + q.facets[f].length, 0);
  step("embed", q.index !== null ? `Reading the vectors of ${toEmbed} facet items` : `Embedding ${toEmbed} facet items`);
  const requested = Object.fromEntries(FACETS.map((f) => [f, usable.includes(f) ? q.facets[f] : []])) as Record<Facet, string[]>;
  const emb = q.index !== null ? { vectors: nodeVectors(g, q.index, usable), ms: 0 } : await embedPastedItems(g, retriever, requested);
  hooks.signal?.throwIfAborted();

  // ── retrieve, fuse ──
  step("retrieve", `Retrieving per-facet candidates with ${retriever.name}`);
  const hidden = new Set((hooks.hidden ?? []).map((id) => g.indexOfExternalId.get(id)).filter((n): n is number => n !== undefined));
  const ctx = requestContext(db, g, { q, requested, usable, emb }, options, hooks, candidates, hidden);
  const {
    lists,
    fusionLists,
    wholePaper,
    fused,
    applied,
    note,
    retrieveMs,
    fuseMs: fusedMs,
  } = await retrieveAndFuse(retriever, ctx, options.fusion, (rule) =>
    step("fuse", `Fusing ${usable.length} facet list${usable.length === 1 ? "" : "s"} with ${FUSION_LABEL[rule]}`),
  );
  const t2 = performance.now();
  const year = q.year ? { value: q.year, source: "paper" as const } : ctx.referenceYear ? { value: ctx.referenceYear, source: "inferred" as const } : null;
  const directionOf = (node: number): Direction => paperDirection(g.papers[node].year, year?.value ?? null);
  const passes = filterOf(g, options, new Set([q.index, q.exclude, ...hidden].filter((x): x is number => x !== null)), directionOf);
  const describe = (r: FusedResult): RelatedPaper => ({ ...describeResult(g, r, lists, q.facets, emb), direction: directionOf(r.paper) });
  const { results, candidateSummary } = pickResults(g, fused, describe, passes, options.k, candidates);
  const perFacet = perFacetLists(g, fusionLists, options.k, passes);
  const fuseMs = fusedMs + (performance.now() - t2);

  return {
    corpus,
    build: g.build,
    retriever: options.retriever,
    fusion: applied,
    requestedFusion: options.fusion,
    fusionNote: wholePaper
      ? [note, `Beside the facet lists, a list retrieved with the whole paper's text (title and abstract) was fused with weight ${wholePaper.weight}.`]
          .filter(Boolean)
          .join(" ")
      : note,
    query: {
      source: q.source,
      externalId: q.externalId,
      title: q.title,
      inGraph: q.index !== null,
      facets: q.facets,
      year,
      ...(q.extraction ? { extraction: q.extraction } : {}),
    },
    results,
    perFacet,
    timings: {
      ...(q.parseMs !== undefined ? { parseMs: q.parseMs } : {}),
      ...(q.extractMs !== undefined ? { extractMs: q.extractMs } : {}),
      embedMs: emb.ms,
      retrieveMs,
      fuseMs,
      totalMs: performance.now() - t0,
    },
    ...(candidateSummary ? { candidates: candidateSummary } : {}),
  };
}

// ── candidates ───────────────────────────────────────────────────────────────────────────

interface CandidateNodes {
  /** Nodes in the request's order. */
  nodes: number[];
  set: ReadonlySet<number>;
}

/** The build's nodes of the candidate ids; ids that are not papers of the build are a 400 naming them. */
function candidateNodes(g: LoadedGraph, ids: readonly string[]): CandidateNodes {
  const nodes: number[] = [];
  const set = new Set<number>();
  const unknown: string[] = [];
  for (const id of ids) {
    const node = g.indexOfExternalId.get(id);
    if (node === undefined) unknown.push(id);
    else if (!set.has(node)) {
      set.add(node);
      nodes.push(node);
    }
  }
  if (unknown.length > 0) {
    const shown = unknown
      .slice(0, 10)
      .map((id) => `"${id}"`)
      .join(", ");
    throw new QueryError(
      "invalid_request",
      `${unknown.length} of the ${ids.length} candidates ${unknown.length === 1 ? "is not a paper" : "are not papers"} of corpus "${g.corpus}" (build ${g.build}): ${shown}${unknown.length > 10 ? ", …" : ""}. Candidates are corpus paper ids; import the papers and rebuild the graph, or leave them out.`,
    );
  }
  return { nodes, set };
}

/** A candidate no list reached: ranked after the reached ones, without facets. */
function unreachedResult(g: LoadedGraph, node: number): RelatedPaper {
  const p = g.papers[node];
  return { externalId: p.externalId, title: p.title, year: p.year, venue: p.venue, authors: p.authors, score: 0, facets: [], unreached: true };
}

// ── the query paper ──────────────────────────────────────────────────────────────────────

function nodeFacets(g: LoadedGraph, node: number): Record<Facet, string[]> {
  return Object.fromEntries(FACETS.map((f) => [f, itemsOf(g, f, node)])) as Record<Facet, string[]>;
}

/**
 * The query's item vectors for the evidence (and for retrievers that compare items): embedded
 * with the build's embedder, unless the retriever reads no item vectors (the default: its
 * first and second stages read text and citations), where a pasted paper's items and its
 * results' items are embedded with the text encoder instead: the evidence is the same best
 * pair of items by cosine, without the build's embedder on the request path (USE-lite: ≈ 0.6 s
 * for a pasted paper's items on 2 cores; the bag-of-words encoder: < 1 ms).
 */
interface QueryVectors {
  vectors: Record<Facet, Float32Array[]>;
  ms: number;
  /** Set when the vectors are the text encoder's (the results' items are embedded with it too). */
  encoder?: LsaEmbedder;
}

async function embedPastedItems(g: LoadedGraph, retriever: Retriever, items: Record<Facet, string[]>): Promise<QueryVectors> {
  const encoder = retriever.readsItemVectors === false ? textEncoder() : null;
  if (!encoder) return embedQueryItems(g, items);
  const t0 = performance.now();
  const vectors = Object.fromEntries(FACETS.map((f) => [f, items[f].map((t) => encoder.embedOne(t))])) as Record<Facet, Float32Array[]>;
  return { vectors, ms: performance.now() - t0, encoder };
}

const emptyVectors = (): Record<Facet, Float32Array[]> => Object.fromEntries(FACETS.map((f) => [f, []])) as unknown as Record<Facet, Float32Array[]>;

/** A node's item vectors in the given facets (none in the others, as for its items). */
function nodeVectors(g: LoadedGraph, node: number, facets: readonly Facet[]): Record<Facet, Float32Array[]> {
  return Object.fromEntries(FACETS.map((f) => [f, facets.includes(f) ? vectorsOf(g, f, node) : []])) as Record<Facet, Float32Array[]>;
}

async function resolveQuery(db: Db, g: LoadedGraph, input: RelatedInput, hooks: RelatedHooks): Promise<ResolvedQuery> {
  if ("paperId" in input) return storedPaper(db, g, input.paperId);
  const t0 = performance.now();
  let paper: InputPaper;
  if ("text" in input) {
    hooks.onStep?.("parse", "Reading the pasted text");
    paper = await readPaperInput({ kind: "text", text: input.text }, hooks.limits);
  } else if ("paper" in input) {
    hooks.onStep?.("parse", "Checking the paper record");
    paper = await readPaperInput({ kind: "json", text: JSON.stringify(input.paper ?? null) }, hooks.limits);
  } else {
    hooks.onStep?.("parse", `Reading ${input.file.name || "the uploaded file"}`);
    paper = await readPaperInput({ kind: "file", name: input.file.name, bytes: input.file.bytes }, hooks.limits);
  }
  const parseMs = performance.now() - t0;
  const source: QuerySource = paper.source === "json" ? "record" : paper.source;
  const externalId = paper.metadata?.externalId ?? null;
  const exclude = externalId !== null ? (g.indexOfExternalId.get(externalId) ?? null) : null;
  const meta = { authors: paper.metadata?.authors ?? [], year: paper.metadata?.year ?? null };
  const base = { source, externalId, title: paper.title, abstract: paper.abstract, index: null, exclude, parseMs, ...meta };

  const given = emptyFacets();
  for (const f of FACETS) given[f] = paper.facets?.[f] ?? [];
  if (FACETS.some((f) => given[f].length > 0)) return { ...base, facets: given };

  const extractor = hooks.extractor ?? (await queryExtractor());
  hooks.onStep?.("extract", `Extracting facets with the ${extractor.id} extractor`);
  const t1 = performance.now();
  const r = await extractor.extract(
    { title: paper.title, abstract: paper.abstract, body: paper.body, authors: paper.metadata?.authors },
    { signal: hooks.signal },
  );
  const extractMs = performance.now() - t1;
  if (!r.ok) {
    // "error": the provider could not be reached (a server-side problem); "invalid": no usable answer.
    throw new QueryError(r.kind === "error" ? "extractor_unreachable" : "extraction_failed", `Facet extraction (${extractor.id}) failed: ${r.reason}`);
  }
  const facets = emptyFacets();
  for (const f of FACETS) facets[f] = r.facets[f] ?? [];
  return { ...base, facets, extraction: { provider: extractor.id, model: r.model, ms: extractMs }, extractMs };
}

/** A paper of the store: a node of the build, or a stored paper that is not (an out-of-corpus query). */
async function storedPaper(db: Db, g: LoadedGraph, paperId: string): Promise<ResolvedQuery> {
  const node = g.indexOfExternalId.get(paperId);
  if (node !== undefined) {
    const p = g.papers[node];
    const meta = { authors: p.authors, year: p.year };
    return { source: "corpus", externalId: p.externalId, title: p.title, abstract: "", index: node, exclude: null, facets: nodeFacets(g, node), ...meta };
  }
  const row = await db.paper.findFirst({
    where: { corpus: { name: g.corpus }, externalId: paperId },
    select: {
      externalId: true,
      title: true,
      abstract: true,
      authors: true,
      facetItems: { select: { facet: true, text: true }, orderBy: { position: "asc" } },
    },
  });
  if (!row) throw new NotFoundError(`no paper "${paperId}" in corpus "${g.corpus}"`);
  const facets = emptyFacets();
  for (const i of row.facetItems) if ((FACETS as readonly string[]).includes(i.facet)) facets[i.facet as Facet].push(i.text);
  const meta = { authors: parseAuthors(row.authors) };
  return { source: "corpus", externalId: row.externalId, title: row.title, abstract: row.abstract, index: null, exclude: null, facets, ...meta };
}

// ── results ──────────────────────────────────────────────────────────────────────────────

/** Earlier work, later work or neither: a paper's year against the query's. */
export function paperDirection(year: number | null, queryYear: number | null): Direction {
  if (!year || !queryYear || year === queryYear) return "neither";
  return year < queryYear ? "earlier" : "later";
}

function filterOf(g: LoadedGraph, options: RelatedOptions, never: ReadonlySet<number>, directionOf: (node: number) => Direction): (node: number) => boolean {
  return (node) => {
    if (never.has(node)) return false;
    const p = g.papers[node];
    if (!p) return false;
    if (options.direction !== "both" && directionOf(node) !== options.direction) return false;
    if (options.yearFrom !== undefined && (p.year === null || p.year < options.yearFrom)) return false;
    if (options.yearTo !== undefined && (p.year === null || p.year > options.yearTo)) return false;
    if (options.venue !== undefined && p.venue !== options.venue) return false;
    return true;
  };
}

/** The best-matching pair of the query's and the paper's items in one facet (cosine). */
function bestPair(queryItems: string[], queryVectors: Float32Array[], paperItems: string[], paperVectors: Float32Array[]): Evidence | null {
  let best: Evidence | null = null;
  for (let a = 0; a < queryItems.length; a++) {
    const va = queryVectors[a];
    if (!va) continue;
    for (let b = 0; b < paperItems.length; b++) {
      const s = dot(va, paperVectors[b]);
      if (!best || s > best.similarity) best = { queryItem: queryItems[a], paperItem: paperItems[b], similarity: s };
    }
  }
  return best;
}

function describeResult(
  g: LoadedGraph,
  r: FusedResult,
  lists: Partial<Record<Facet, FacetCandidate[]>>,
  queryItems: Record<Facet, string[]>,
  emb: QueryVectors,
): RelatedPaper {
  const p = g.papers[r.paper];
  const queryVectors = emb.vectors;
  const facets: CreditedFacet[] = r.provenance.map((prov) => {
    const f = prov.facet;
    // The first occurrence set the rank, so it is the one that produced the result.
    const first = lists[f]?.find((c) => c.paper === r.paper);
    const theirs = itemsOf(g, f, r.paper);
    const theirVectors = emb.encoder ? theirs.map((t) => (emb.encoder as LsaEmbedder).embedOne(t)) : vectorsOf(g, f, r.paper);
    const qi = first?.queryItem;
    let evidence: Evidence | null;
    if (qi !== undefined && queryVectors[f][qi]) {
      // A per-item retriever: the item that produced it, against the DocID's item if known.
      const pi = first?.paperItem;
      evidence =
        pi !== undefined && theirs[pi] !== undefined
          ? { queryItem: queryItems[f][qi], paperItem: theirs[pi], similarity: dot(queryVectors[f][qi], theirVectors[pi]) }
          : bestPair([queryItems[f][qi]], [queryVectors[f][qi]], theirs, theirVectors);
    } else evidence = bestPair(queryItems[f], queryVectors[f], theirs, theirVectors);
    return {
      facet: f,
      rank: prov.rank,
      weight: prov.weight,
      queryItem: qi !== undefined ? (queryItems[f][qi] ?? null) : null,
      docId: first?.docId ?? null,
      evidence,
    };
  });
  return {
    externalId: p.externalId,
    title: p.title,
    year: p.year,
    venue: p.venue,
    authors: p.authors,
    score: r.score,
    facets,
    ...(r.wholePaper ? { wholePaperRank: r.wholePaper.rank } : {}),
  };
}

function perFacetLists(g: LoadedGraph, lists: FacetLists, k: number, passes: (node: number) => boolean): RelatedResult["perFacet"] {
  const out = Object.fromEntries(FACETS.map((f) => [f, [] as PerFacetEntry[]])) as RelatedResult["perFacet"];
  for (const f of FACETS) {
    const list = lists[f];
    if (!list) continue;
    for (const c of collapseList(list)) {
      if (out[f].length >= k) break;
      if (!passes(c.paper)) continue;
      const p = g.papers[c.paper];
      out[f].push({ externalId: p.externalId, title: p.title, year: p.year, rank: c.rank, score: c.first.score ?? 0 });
    }
  }
  return out;
}
