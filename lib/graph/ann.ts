/**
 * Approximate nearest neighbours for ephemeral insertion at scale (issue 18). An unseen paper is
 * inserted by its top-k corpus papers under s_f, the symmetric max-sim of lib/graph/maxsim.ts;
 * exactly, that scores the query against every corpus item (515 ms at 64k papers, ≈ 8 s at 1M).
 *
 * Here an HNSW index (hnswlib-node, inner product over the unit item vectors) over one facet's
 * corpus items proposes candidates: the `itemNeighbours` nearest corpus items of each query item,
 * and the papers that own them. The candidates are then scored with the exact s_f, so every
 * returned score is the exact one; only papers the index did not propose can be missed (recall
 * against exact max-sim at the top 50: `npm run bench:ann`, reports/scale.md).
 *
 * The index is built from the facet's item vectors in memory (`FacetAnnIndex.fromItems`), or from
 * the onnxruntime block layout that serving already holds (`fromBlocks`). lib/retrieve/ephemeral.ts
 * builds it lazily at a corpus's first unseen paper and keeps it beside that build's blocks.
 */
import { createRequire } from "node:module";
import { maxSimOneToMany, numPapersOf, type PackedFacetItems } from "./maxsim";
import type { FacetBlocks } from "./maxsim-engine";

/** HNSW build and search parameters. */
export interface AnnParams {
  /** Links per node (hnswlib's M). */
  m: number;
  /** Candidate list while building. */
  efConstruction: number;
  /** Candidate list while searching (at least itemNeighbours). */
  efSearch: number;
  /** Nearest corpus items taken per query item; their papers are scored exactly. */
  itemNeighbours: number;
  /** hnswlib's random seed (level assignment), so a rebuild gives the same index. */
  seed: number;
}

export const DEFAULT_ANN_PARAMS: AnnParams = { m: 16, efConstruction: 100, efSearch: 512, itemNeighbours: 512, seed: 100 };

/** The part of hnswlib-node's HierarchicalNSW that is used here. */
interface Hnsw {
  initIndex(maxElements: number, m?: number, efConstruction?: number, randomSeed?: number): void;
  addPoint(point: number[], label: number): void;
  setEf(ef: number): void;
  searchKnn(query: number[], k: number): { distances: number[]; neighbors: number[] };
  getCurrentCount(): number;
}

// A native addon: loaded at run time (and listed in next.config.ts's serverExternalPackages), only
// when a corpus is large enough to use it.
let hnswlib: { HierarchicalNSW: new (space: "ip" | "l2" | "cosine", dim: number) => Hnsw } | null = null;
function loadHnswlib() {
  hnswlib ??= createRequire(import.meta.url)("hnswlib-node");
  return hnswlib!;
}

/** Rebuilds the packed item layout (papers 0..numPapers-1) from the block layout of prepareFacetBlocks. */
export function packedItemsOfBlocks(blocks: FacetBlocks): PackedFacetItems {
  const { dim, numPapers } = blocks;
  const counts = new Int32Array(numPapers);
  for (const c of blocks.chunks) for (const p of c.papers) counts[p] = c.itemsPerPaper;
  const offsets = new Int32Array(numPapers + 1);
  for (let p = 0; p < numPapers; p++) offsets[p + 1] = offsets[p] + counts[p];
  const data = new Float32Array(offsets[numPapers] * dim);
  for (const c of blocks.chunks) {
    const rowLen = c.itemsPerPaper * dim;
    c.papers.forEach((p, i) => data.set(c.data.subarray(i * rowLen, (i + 1) * rowLen), offsets[p] * dim));
  }
  return { dim, offsets, data };
}

export interface AnnBuildStats {
  items: number;
  seconds: number;
}

export class FacetAnnIndex {
  private constructor(
    private readonly items: PackedFacetItems,
    /** The paper of each item row (the row index is the item's hnswlib label). */
    private readonly itemPaper: Int32Array,
    private readonly hnsw: Hnsw | null,
    readonly params: AnnParams,
    readonly stats: AnnBuildStats,
  ) {}

  static fromBlocks(blocks: FacetBlocks, params: Partial<AnnParams> = {}): FacetAnnIndex {
    return FacetAnnIndex.fromItems(packedItemsOfBlocks(blocks), params);
  }

  static fromItems(items: PackedFacetItems, params: Partial<AnnParams> = {}): FacetAnnIndex {
    const p = { ...DEFAULT_ANN_PARAMS, ...params };
    const started = performance.now();
    const n = numPapersOf(items);
    const rows = items.offsets[n];
    const itemPaper = new Int32Array(rows);
    for (let paper = 0; paper < n; paper++) itemPaper.fill(paper, items.offsets[paper], items.offsets[paper + 1]);
    let hnsw: Hnsw | null = null;
    if (rows > 0) {
      const { HierarchicalNSW } = loadHnswlib();
      hnsw = new HierarchicalNSW("ip", items.dim);
      hnsw.initIndex(rows, p.m, p.efConstruction, p.seed);
      const dim = items.dim;
      for (let r = 0; r < rows; r++) hnsw.addPoint(Array.from(items.data.subarray(r * dim, (r + 1) * dim)), r);
      hnsw.setEf(Math.max(p.efSearch, p.itemNeighbours));
    }
    return new FacetAnnIndex(items, itemPaper, hnsw, p, { items: rows, seconds: (performance.now() - started) / 1000 });
  }

  /** Corpus papers proposed for these query items: owners of each item's nearest corpus items. */
  candidates(queryItems: readonly Float32Array[], exclude = -1): Int32Array {
    if (!this.hnsw || queryItems.length === 0) return new Int32Array(0);
    const k = Math.min(this.params.itemNeighbours, this.stats.items);
    const seen = new Set<number>();
    for (const q of queryItems) {
      if (q.length !== this.items.dim) throw new Error(`ann: vector of length ${q.length}, expected ${this.items.dim}`);
      for (const label of this.hnsw.searchKnn(Array.from(q), k).neighbors) {
        const paper = this.itemPaper[label];
        if (paper !== exclude) seen.add(paper);
      }
    }
    return Int32Array.from(seen).sort();
  }

  /**
   * The top-k corpus papers by exact s_f among the candidates, best first (ties: lower paper
   * index first); `exclude` is never returned.
   */
  search(queryItems: readonly Float32Array[], k: number, exclude = -1): { targets: Int32Array; scores: Float32Array } {
    const cands = this.candidates(queryItems, exclude);
    if (cands.length === 0 || k <= 0) return { targets: new Int32Array(0), scores: new Float32Array(0) };
    // The candidates' items, packed, scored with the same max-sim as the exact path.
    const { dim, offsets, data } = this.items;
    const subOffsets = new Int32Array(cands.length + 1);
    cands.forEach((p, i) => (subOffsets[i + 1] = subOffsets[i] + offsets[p + 1] - offsets[p]));
    const subData = new Float32Array(subOffsets[cands.length] * dim);
    cands.forEach((p, i) => subData.set(data.subarray(offsets[p] * dim, offsets[p + 1] * dim), subOffsets[i] * dim));
    const scores = maxSimOneToMany(queryItems, { dim, offsets: subOffsets, data: subData });
    const order = Array.from(cands.keys()).sort((a, b) => scores[b] - scores[a] || cands[a] - cands[b]);
    const top = order.slice(0, k);
    return { targets: Int32Array.from(top, (i) => cands[i]), scores: Float32Array.from(top, (i) => scores[i]) };
  }
}

/** Exact reference: the top-k papers by s_f over every corpus paper (the bench's recall baseline). */
export function exactFacetTopK(items: PackedFacetItems, queryItems: readonly Float32Array[], k: number, exclude = -1): { targets: Int32Array; scores: Float32Array } {
  const scores = maxSimOneToMany(queryItems, items);
  const n = numPapersOf(items);
  const order: number[] = [];
  for (let p = 0; p < n; p++) if (p !== exclude && items.offsets[p + 1] > items.offsets[p]) order.push(p);
  order.sort((a, b) => scores[b] - scores[a] || a - b);
  const top = order.slice(0, k);
  return { targets: Int32Array.from(top), scores: Float32Array.from(top, (p) => scores[p]) };
}
