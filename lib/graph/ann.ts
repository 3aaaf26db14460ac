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
 * The index is built over the onnxruntime block layout that serving already holds for exact
 * insertion (`fromBlocks`, or `fromBlocksAsync` in slices that yield to the event loop), and reads
 * the vectors from it when rescoring. lib/retrieve/ephemeral.ts starts building it at a corpus's
 * first unseen paper and keeps it beside that build's blocks.
 */
import { createRequire } from "node:module";
import { maxSimOneToMany, numPapersOf, type PackedFacetItems } from "./maxsim";
import { type FacetBlocks, prepareFacetBlocks } from "./maxsim-engine";

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

export interface AnnBuildStats {
  items: number;
  seconds: number;
}

/** Items added between two yields of the event loop while building asynchronously. */
const BUILD_SLICE = 2000;

/**
 * An HNSW index over one facet's corpus items. It reads the vectors from the block layout it was
 * built from (no copy of its own beside hnswlib's), so the blocks must not change afterwards.
 */
export class FacetAnnIndex {
  private constructor(
    private readonly blocks: FacetBlocks,
    /** The paper of each item (the item's hnswlib label is its index here). */
    private readonly itemPaper: Int32Array,
    /** Where each paper's items are: its chunk and its position in it (-1: no items). */
    private readonly chunkOf: Int32Array,
    private readonly posOf: Int32Array,
    private readonly hnsw: Hnsw | null,
    readonly params: AnnParams,
    readonly stats: AnnBuildStats,
  ) {}

  static fromItems(items: PackedFacetItems, params: Partial<AnnParams> = {}): FacetAnnIndex {
    return FacetAnnIndex.fromBlocks(prepareFacetBlocks(items), params);
  }

  static fromBlocks(blocks: FacetBlocks, params: Partial<AnnParams> = {}): FacetAnnIndex {
    const build = FacetAnnIndex.builder(blocks, params);
    while (!build.step(Infinity));
    return build.index();
  }

  /** Builds in slices of BUILD_SLICE items, yielding to the event loop between them (a server keeps answering). */
  static async fromBlocksAsync(blocks: FacetBlocks, params: Partial<AnnParams> = {}): Promise<FacetAnnIndex> {
    const build = FacetAnnIndex.builder(blocks, params);
    while (!build.step(BUILD_SLICE)) await new Promise((resolve) => setImmediate(resolve));
    return build.index();
  }

  private static builder(blocks: FacetBlocks, params: Partial<AnnParams>) {
    const p = { ...DEFAULT_ANN_PARAMS, ...params };
    const started = performance.now();
    const { dim, numPapers } = blocks;
    const chunkOf = new Int32Array(numPapers).fill(-1);
    const posOf = new Int32Array(numPapers).fill(-1);
    let rows = 0;
    blocks.chunks.forEach((c, ci) => {
      c.papers.forEach((paper, i) => {
        chunkOf[paper] = ci;
        posOf[paper] = i;
      });
      rows += c.numPapers * c.itemsPerPaper;
    });
    // Labels in chunk order: chunk ci's rows follow those of chunks 0..ci-1.
    const itemPaper = new Int32Array(rows);
    let label = 0;
    for (const c of blocks.chunks) for (const paper of c.papers) for (let j = 0; j < c.itemsPerPaper; j++) itemPaper[label++] = paper;
    let hnsw: Hnsw | null = null;
    if (rows > 0) {
      const { HierarchicalNSW } = loadHnswlib();
      hnsw = new HierarchicalNSW("ip", dim);
      hnsw.initIndex(rows, p.m, p.efConstruction, p.seed);
    }
    let chunk = 0;
    let row = 0; // row within the chunk
    let added = 0;
    return {
      /** Adds up to `n` items; true when every item is in. */
      step(n: number): boolean {
        let left = n;
        while (hnsw && chunk < blocks.chunks.length && left > 0) {
          const c = blocks.chunks[chunk];
          const total = c.numPapers * c.itemsPerPaper;
          for (; row < total && left > 0; row++, left--) hnsw.addPoint(Array.from(c.data.subarray(row * dim, (row + 1) * dim)), added++);
          if (row === total) {
            chunk++;
            row = 0;
          }
        }
        return !hnsw || chunk === blocks.chunks.length;
      },
      index(): FacetAnnIndex {
        hnsw?.setEf(Math.max(p.efSearch, p.itemNeighbours));
        return new FacetAnnIndex(blocks, itemPaper, chunkOf, posOf, hnsw, p, { items: rows, seconds: (performance.now() - started) / 1000 });
      },
    };
  }

  /** Corpus papers proposed for these query items: owners of each item's nearest corpus items. */
  candidates(queryItems: readonly Float32Array[], exclude = -1): Int32Array {
    if (!this.hnsw || queryItems.length === 0) return new Int32Array(0);
    const k = Math.min(this.params.itemNeighbours, this.stats.items);
    const seen = new Set<number>();
    for (const q of queryItems) {
      if (q.length !== this.blocks.dim) throw new Error(`ann: vector of length ${q.length}, expected ${this.blocks.dim}`);
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
    const { dim, chunks } = this.blocks;
    const subOffsets = new Int32Array(cands.length + 1);
    cands.forEach((p, i) => (subOffsets[i + 1] = subOffsets[i] + chunks[this.chunkOf[p]].itemsPerPaper));
    const subData = new Float32Array(subOffsets[cands.length] * dim);
    cands.forEach((p, i) => {
      const c = chunks[this.chunkOf[p]];
      const len = c.itemsPerPaper * dim;
      subData.set(c.data.subarray(this.posOf[p] * len, (this.posOf[p] + 1) * len), subOffsets[i] * dim);
    });
    const scores = maxSimOneToMany(queryItems, { dim, offsets: subOffsets, data: subData });
    const order = Array.from(cands.keys()).sort((a, b) => scores[b] - scores[a] || cands[a] - cands[b]);
    const top = order.slice(0, k);
    return { targets: Int32Array.from(top, (i) => cands[i]), scores: Float32Array.from(top, (i) => scores[i]) };
  }
}

/** Exact reference: the top-k papers by s_f over every corpus paper (the bench's recall baseline). */
export function exactFacetTopK(
  items: PackedFacetItems,
  queryItems: readonly Float32Array[],
  k: number,
  exclude = -1,
): { targets: Int32Array; scores: Float32Array } {
  const scores = maxSimOneToMany(queryItems, items);
  const n = numPapersOf(items);
  const order: number[] = [];
  for (let p = 0; p < n; p++) if (p !== exclude && items.offsets[p + 1] > items.offsets[p]) order.push(p);
  order.sort((a, b) => scores[b] - scores[a] || a - b);
  const top = order.slice(0, k);
  return { targets: Int32Array.from(top), scores: Float32Array.from(top, (p) => scores[p]) };
}
