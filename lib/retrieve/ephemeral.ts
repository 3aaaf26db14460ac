/**
 * Ephemeral insertion of an unseen paper (paper appendix "Out-of-Corpus Evaluation"): "its
 * facet items are encoded and scored against every item in the corpus with the same
 * maximum-similarity function ... pruned to the top 20 per facet, and the same two-hop walk is
 * performed". Nothing is added to the graph: the query's first-hop edges exist only for the
 * walk. The one implementation, used by the query pipeline and the out-of-corpus evaluation.
 *
 * First-hop weights are α·s: the query has no citations into the corpus we can trust at query
 * time (c = 0), as for unlinked pairs inside the corpus.
 *
 * s is the build's item similarity (lib/graph/similarity.ts): the cosine max-sim, or for a
 * "mix" build (1 − λ)·cosine + λ·TF-IDF max-sim with the build's vocabulary and idf, which needs
 * the query's item texts beside its vectors (`EphemeralOptions.mix`).
 *
 * At scale (issue 18): a facet of a corpus with more papers than GRAFT_ANN_MIN_PAPERS (20,000)
 * takes its candidates from an HNSW index over the facet's items (lib/graph/ann.ts) and scores
 * them with the exact s_f, instead of scoring every item. The index is loaded lazily: the
 * corpus's first pasted paper reads it from the build directory (seconds), where the graph stage
 * wrote it (lib/graph/build.ts). A build made before the stage wrote them (or a damaged file)
 * falls back to building it in the background (≈ 3 min at 64k papers) and writing it there;
 * insertion stays exact until it is ready, and once it is, the facet's exact blocks are let go
 * (`ServedFacets.release`). The demo corpus (3,081 papers) stays exact.
 */
import { config } from "@/lib/config";
import { FACETS, type Facet } from "@/lib/corpus";
import { existsSync } from "node:fs";
import path from "node:path";
import {
  annIndexFileName,
  FacetAnnIndex,
  type AnnParams,
  type PaperGraph,
  DEFAULT_EDGE_WEIGHT,
  lexicalVector,
  type LexicalFacetIndex,
  numPapersOf,
  type PackedFacetItems,
  ephemeralEdges,
  mixedQueryTopK,
  type FacetBlocks,
  type MaxSimEngine,
} from "@/lib/graph";
import { denseGraphRetrieve, type DenseGraphOptions, type DenseGraphResult, type WalkStartEdges } from "./walk";

/**
 * One onnxruntime block layout per facet of the corpus items (see prepareFacetBlocks). A served
 * build's (lib/retrieve/graph-store.ts) also names its packed items in `served`: the ANN index is
 * then kept over those, in the build directory, and its blocks are built only when read (a
 * getter) and let go once the facet's index is ready.
 */
export type FacetBlockIndex = Partial<Record<Facet, FacetBlocks>> & { readonly served?: ServedFacets };

export interface ServedFacets {
  /** Each facet's packed corpus items (the served build's vectors), for the facets with a graph. */
  items: Partial<Record<Facet, PackedFacetItems>>;
  /** Where the ANN indexes are read from and written to (the build directory); none: in memory only. */
  dir?: string;
  /** The facet's ANN index is ready: its exact blocks are no longer needed. */
  release?(facet: Facet): void;
}

export interface EphemeralOptions extends DenseGraphOptions {
  /** First-hop edges per facet; default the graph's K (20). */
  edgesPerFacet?: number;
  /** α of the first-hop weights α·s; default the graph's 0.75. */
  alpha?: number;
  /** Corpus paper never returned (only relevant if the query also is a corpus paper). */
  exclude?: number;
  /** Facets to walk; default every facet with items and a graph. */
  facets?: readonly Facet[];
  /**
   * A build whose s_f mixes in the lexical score: its weight λ, the build's lexical index, the
   * corpus item vectors (to score lexical candidates' cosine) and the query's item texts,
   * aligned with its vectors. Absent: s_f is the cosine max-sim.
   */
  mix?: EphemeralMix;
  /**
   * Corpora with more papers than this use the ANN index (default GRAFT_ANN_MIN_PAPERS; 0: always,
   * Infinity: never).
   */
  annMinPapers?: number;
}

interface AnnState {
  index: FacetAnnIndex | null;
  ready: Promise<FacetAnnIndex | null>;
  /**
   * Where the index is read from a file: settles when reading has gone one way or the other
   * (seconds), so a query waits for it rather than going exact, but never for a rebuild.
   */
  read?: Promise<FacetAnnIndex | null>;
}

/** The ANN index of each block layout or served facet's items: null until built (one per facet of a build). */
const annIndexes = new WeakMap<FacetBlocks | PackedFacetItems, AnnState>();

function annState(key: FacetBlocks | PackedFacetItems, load: () => Promise<FacetAnnIndex>, onReady?: () => void): AnnState {
  let state = annIndexes.get(key);
  if (!state) {
    const s: AnnState = { index: null, ready: Promise.resolve(null) };
    s.ready = load().then(
      (index) => {
        s.index = index;
        onReady?.();
        return index;
      },
      (err: unknown) => {
        // No index (e.g. hnswlib-node not built on this machine): insertion stays exact.
        console.warn(`ephemeral insertion stays exact: the ANN index could not be built (${err instanceof Error ? err.message : String(err)})`);
        return null;
      },
    );
    annIndexes.set(key, (state = s));
  }
  return state;
}

function blocksAnnState(blocks: FacetBlocks, params?: Partial<AnnParams>): AnnState {
  return annState(blocks, () => FacetAnnIndex.fromBlocksAsync(blocks, params));
}

function servedAnnState(served: ServedFacets, f: Facet, params?: Partial<AnnParams>): AnnState | null {
  const items = served.items[f];
  if (!items) return null;
  const known = annIndexes.get(items);
  if (known) return known;
  // The file name hashes the items (≈ 0.3 GB at 64k papers: once per facet and build).
  const file = served.dir ? path.join(served.dir, annIndexFileName(f, items, params)) : null;
  let settleRead: (index: FacetAnnIndex | null) => void = () => {};
  const read = file !== null && existsSync(file) ? new Promise<FacetAnnIndex | null>((resolve) => (settleRead = resolve)) : undefined;
  const state = annState(
    items,
    () => (file ? FacetAnnIndex.readOrBuild(items, file, params, settleRead) : FacetAnnIndex.fromItemsAsync(items, params)),
    () => served.release?.(f),
  );
  // Settled also when loading fails outright (hnswlib-node missing).
  void state.ready.then(() => settleRead(null));
  if (read) state.read = read;
  return state;
}

/** Resolves when a served facet's ANN index is ready (read or built, starting it if needed); null if it cannot be. */
export function servedAnnReady(index: FacetBlockIndex, f: Facet, params?: Partial<AnnParams>): Promise<FacetAnnIndex | null> {
  return (index.served && servedAnnState(index.served, f, params)?.ready) || Promise.resolve(null);
}

/**
 * The ANN index of a facet's blocks once it is built, else null: the first call starts building
 * it in the background (in slices that let the server answer meanwhile, ≈ 3 min for the four
 * facets at 64k papers on 2 cores), and insertion stays exact until it is ready.
 */
export function annIndexOf(blocks: FacetBlocks, params?: Partial<AnnParams>): FacetAnnIndex | null {
  return blocksAnnState(blocks, params).index;
}

/** Resolves when the facet's ANN index is built (starting it if needed); null if it cannot be. */
export function annIndexReady(blocks: FacetBlocks, params?: Partial<AnnParams>): Promise<FacetAnnIndex | null> {
  return blocksAnnState(blocks, params).ready;
}

/** Whether ephemeral insertion into these blocks goes through the ANN index. */
export function usesAnn(blocks: Pick<FacetBlocks, "numPapers">, annMinPapers = config().GRAFT_ANN_MIN_PAPERS): boolean {
  return blocks.numPapers > annMinPapers;
}

export interface EphemeralMix {
  lexicalWeight: number;
  lexical: LexicalFacetIndex;
  dense: Partial<Record<Facet, PackedFacetItems>>;
  texts: Partial<Record<Facet, readonly string[]>>;
}

/** Per-facet first-hop edges of an unseen query: its top-K corpus papers by s_f, weighted α·s. */
export async function ephemeralStarts(
  engine: MaxSimEngine,
  index: FacetBlockIndex,
  graph: PaperGraph,
  queryItems: Partial<Record<Facet, readonly Float32Array[]>>,
  options: EphemeralOptions = {},
): Promise<Partial<Record<Facet, WalkStartEdges>>> {
  const starts: Partial<Record<Facet, WalkStartEdges>> = {};
  for (const f of options.facets ?? FACETS) {
    // A served build's facet names its items; its blocks are built only if the exact path reads them.
    const served = index.served?.items[f];
    const items = queryItems[f];
    if (!(served ?? index[f]) || !graph.facets[f] || !items || items.length === 0) continue;
    const blocks = () => index[f] as FacetBlocks;
    const k = options.edgesPerFacet ?? graph.k;
    const alpha = options.alpha ?? DEFAULT_EDGE_WEIGHT.alpha;
    const mix = options.mix;
    const lexical = mix?.lexical.facets[f];
    const dense = mix?.dense[f];
    const numPapers = served ? numPapersOf(served) : blocks().numPapers;
    let ann: FacetAnnIndex | null = null;
    if (usesAnn({ numPapers }, options.annMinPapers)) {
      const state = index.served && served ? servedAnnState(index.served, f) : blocksAnnState(blocks());
      ann = state?.index ?? (state?.read ? await state.read : null);
    }
    const denseTopK = ann ? async (vectors: readonly Float32Array[], n: number, exclude: number) => ann.search(vectors, n, exclude) : undefined;
    if (mix && lexical && dense) {
      const texts = mix.texts[f] ?? [];
      if (texts.length !== items.length) throw new Error(`ephemeral insertion: ${texts.length} item texts for ${items.length} vectors in ${f}`);
      const query = { vectors: items, lexical: texts.map((t) => lexicalVector(mix.lexical.model, t)) };
      // With an ANN index the exact blocks are not read (denseTopK replaces them).
      const { targets, scores } = await mixedQueryTopK(engine, ann ? { numPapers, dim: dense.dim, chunks: [] } : blocks(), dense, lexical, query, {
        k,
        lexicalWeight: mix.lexicalWeight,
        exclude: options.exclude,
        denseTopK,
      });
      starts[f] = { targets, weights: scores.map((s) => alpha * s), exclude: options.exclude ?? -1 };
      continue;
    }
    if (ann) {
      const exclude = options.exclude ?? -1;
      const { targets, scores } = ann.search(items, k, exclude);
      starts[f] = { targets, weights: scores.map((s) => alpha * s), exclude };
      continue;
    }
    starts[f] = await ephemeralEdges(engine, blocks(), items, { k, alpha, exclude: options.exclude });
  }
  return starts;
}

/** Dense-graph retrieval for an unseen paper: ephemeral first-hop edges, then the usual walk. */
export async function denseGraphEphemeral(
  engine: MaxSimEngine,
  index: FacetBlockIndex,
  graph: PaperGraph,
  queryItems: Partial<Record<Facet, readonly Float32Array[]>>,
  options: EphemeralOptions = {},
): Promise<DenseGraphResult> {
  return denseGraphRetrieve(graph, await ephemeralStarts(engine, index, graph, queryItems, options), options);
}
