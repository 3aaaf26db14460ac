/**
 * The non-graph baselines of the paper's main table (§"Experiments > Setup > Baselines"), and
 * item-level dense candidate lists that have the generative retriever's shape:
 *
 * - BM25 "over title and facets" is the served retriever's index and query text
 *   (lib/retrieve/bm25.ts), not repeated here.
 * - Document-level dense "embeddings of title and abstract": cosine between the query's and
 *   each corpus paper's "title. abstract" vector, with the project's embedder (the paper used
 *   all-MiniLM-L12-v2; USE-lite is the offline default here).
 * - Dense item lists: per facet, each query item's `perItem` nearest corpus items of the same
 *   facet by cosine, concatenated in bullet order (appendix "Hyperparameters": "a facet's
 *   candidate list is the concatenation of its items' results in bullet order"). They stand in
 *   for decoded lists so every fusion rule can be measured without a trained model.
 */
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { Candidate, FacetLists } from "@/lib/fusion";
import type { PackedFacetItems } from "@/lib/graph";
import { Heap } from "@/lib/heap";

/** Indices of the `k` largest scores, best first (ties: lower index), skipping `exclude`. */
export function topKIndices(scores: ArrayLike<number>, k: number, exclude: (i: number) => boolean = () => false): Int32Array {
  // A bounded heap, worst on top, keeps this O(n log k) for the large n of a corpus.
  const worse = (a: number, b: number): boolean => scores[a] < scores[b] || (scores[a] === scores[b] && a > b);
  const heap = new Heap<number>(worse);
  for (let i = 0; i < scores.length; i++) {
    if (k <= 0 || Number.isNaN(scores[i]) || exclude(i)) continue;
    if (heap.size < k) heap.push(i);
    else if (worse(heap.peek() as number, i)) heap.replaceTop(i);
  }
  return Int32Array.from(heap.toArray().sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0)));
}

function dotAt(data: Float32Array, row: number, v: Float32Array): number {
  const dim = v.length;
  let s = 0;
  for (let j = 0, o = row * dim; j < dim; j++, o++) s += data[o] * v[j];
  return s;
}

/** Rows of unit vectors packed in one array: cosine is a dot product. */
export interface VectorMatrix {
  dim: number;
  rows: number;
  data: Float32Array;
}

export function packVectors(vectors: readonly Float32Array[], dim = vectors[0]?.length ?? 0): VectorMatrix {
  const data = new Float32Array(vectors.length * dim);
  vectors.forEach((v, i) => {
    if (v.length !== dim) throw new Error(`packVectors: vector ${i} has length ${v.length}, expected ${dim}`);
    data.set(v, i * dim);
  });
  return { dim, rows: vectors.length, data };
}

/** Document-level dense retrieval: corpus papers by cosine to the query's document vector. */
export function denseDocumentRetrieve(docs: VectorMatrix, query: Float32Array, topN: number, exclude = -1): Int32Array {
  if (query.length !== docs.dim) throw new Error(`denseDocumentRetrieve: query has length ${query.length}, expected ${docs.dim}`);
  const scores = new Float32Array(docs.rows);
  for (let r = 0; r < docs.rows; r++) scores[r] = dotAt(docs.data, r, query);
  return topKIndices(scores, topN, (i) => i === exclude);
}

export interface ItemListOptions {
  /** Nearest corpus items kept per query item (the paper's beam width 50). */
  perItem?: number;
  /** Corpus paper whose items are never returned (the query itself when indexed). */
  exclude?: number;
}

/** item → paper lookup of a packed facet (the inverse of its offsets). */
function itemOwners(items: PackedFacetItems): Int32Array {
  const n = items.offsets.length - 1;
  const owner = new Int32Array(items.offsets[n]);
  for (let p = 0; p < n; p++) owner.fill(p, items.offsets[p], items.offsets[p + 1]);
  return owner;
}

export type ItemListIndex = Partial<Record<Facet, { items: PackedFacetItems; owner: Int32Array }>>;

export function prepareItemLists(items: Partial<Record<Facet, PackedFacetItems>>): ItemListIndex {
  const out: ItemListIndex = {};
  for (const f of FACETS) if (items[f]) out[f] = { items: items[f] as PackedFacetItems, owner: itemOwners(items[f] as PackedFacetItems) };
  return out;
}

/**
 * Per facet, each query item's nearest corpus items of that facet, concatenated in bullet
 * order. A candidate carries its cosine as `score` (not a log-probability), the query item and
 * the matched corpus item as `docId`.
 */
export function denseItemLists(index: ItemListIndex, queryItems: Partial<Record<Facet, readonly Float32Array[]>>, options: ItemListOptions = {}): FacetLists {
  const perItem = options.perItem ?? 50;
  const exclude = options.exclude ?? -1;
  const lists: Partial<Record<Facet, Candidate[]>> = {};
  for (const f of FACETS) {
    const entry = index[f];
    const qs = queryItems[f];
    if (!entry || !qs || qs.length === 0) continue;
    const { items, owner } = entry;
    const total = owner.length;
    const scores = new Float32Array(total);
    const list: Candidate[] = [];
    qs.forEach((v, queryItem) => {
      if (v.length !== items.dim) throw new Error(`denseItemLists: query vector of length ${v.length}, expected ${items.dim}`);
      for (let r = 0; r < total; r++) scores[r] = dotAt(items.data, r, v);
      for (const r of topKIndices(scores, perItem, (i) => owner[i] === exclude)) list.push({ paper: owner[r], score: scores[r], queryItem, docId: r });
    });
    lists[f] = list;
  }
  return lists;
}
