/**
 * What a retriever reads from a build: the narrow index that the served build
 * (./graph-store.ts, `LoadedGraph`) satisfies and that the evaluation harness implements over a
 * corpus read from its files (lib/eval/corpus-index.ts), so that the paper's tables run
 * the retrievers the API serves. A retriever that needs no more than this (the dense-graph
 * walk, BM25) is typed against `IndexRetrieveContext` (./retriever.ts) and runs on either.
 */
import type { Facet } from "@/lib/corpus/types";
import type { PaperGraph } from "@/lib/graph";
import type { LexicalFacetIndex } from "@/lib/graph";
import type { PackedFacetItems } from "@/lib/graph";
import type { ItemSimilarity } from "@/lib/graph/similarity";
import type { FacetBlockIndex } from "./ephemeral";
import type { PackedTexts } from "./packed-texts";

/** One facet's items of every node: texts.at(offsets[p] .. offsets[p+1] − 1) belong to node p. */
export interface FacetItemTexts {
  offsets: Int32Array;
  texts: PackedTexts;
}

/** What a retriever knows of a node's paper. */
export interface IndexPaper {
  externalId: string;
  title: string;
  year: number | null;
}

export interface RetrievalIndex {
  /** The typed graph (one CSR per facet) over the nodes; `graph.numPapers` nodes. */
  graph: PaperGraph;
  /** Node index → paper. */
  papers: readonly IndexPaper[];
  /** Per facet, the items of every node, aligned with `vectors`. */
  items: Record<Facet, FacetItemTexts>;
  /** Per facet, the same items' unit vectors (maxsim layout). */
  vectors: Record<Facet, PackedFacetItems>;
  /** The vectors of node p's items in facet f (aligned with itemsOf), without loading the facet's. */
  itemVectors(f: Facet, p: number): Float32Array[];
  /** α of the edge weights α·s + β·c (an unseen paper's first-hop edges are α·s). */
  alpha: number;
  /** The item similarity behind s_f (cosine, or a mix with the lexical score). */
  similarity: ItemSimilarity;
  /** A mix build's lexical model and per-facet inverted files; null for a cosine build. */
  lexical(): LexicalFacetIndex | null;
  /** onnxruntime block layout of every facet's items (ephemeral insertion of an unseen paper). */
  blocks(): FacetBlockIndex;
  /**
   * Per-index memo for retrievers' own indexes (BM25, tries, models): built once per index and
   * process. `key` should name the retriever.
   */
  memo<T>(key: string, make: () => T): T;
}

/** A memo over a map of its own (see RetrievalIndex.memo). */
export function memoMap(): <T>(key: string, make: () => T) => T {
  const memos = new Map<string, unknown>();
  return <T>(key: string, make: () => T): T => {
    if (!memos.has(key)) memos.set(key, make());
    return memos.get(key) as T;
  };
}

/** The items of node p in facet f (texts). */
export function itemsOf(g: Pick<RetrievalIndex, "items">, f: Facet, p: number): string[] {
  const { offsets, texts } = g.items[f];
  return texts.slice(offsets[p], offsets[p + 1]);
}
