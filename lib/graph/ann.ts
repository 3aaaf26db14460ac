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
 * The index is built over the packed facet items that serving holds (`fromItems`, or
 * `fromItemsAsync` in slices that yield to the event loop; `fromBlocks` over the exact blocks gives
 * the same index) and reads the vectors from them when rescoring. The graph stage of a corpus
 * above GRAFT_ANN_MIN_PAPERS writes each facet's index into its build directory
 * (`writeAnnIndexFiles`), and lib/retrieve/ephemeral.ts reads it at a corpus's first unseen paper;
 * serving then needs no exact blocks for that facet. `readOrBuild` is serving's fallback for builds
 * made before the stage wrote them (or a damaged file): it builds the index and writes it there,
 * so only the first process builds it.
 */
import { createHash } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { writeFileAtomicWith } from "@/lib/atomic-write";
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
  getNumDimensions(): number;
  writeIndex(filename: string): Promise<boolean>;
  readIndex(filename: string, allowReplaceDeleted?: boolean): Promise<boolean>;
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
  /** Read from a file written earlier instead of built. */
  read?: boolean;
}

/** Items added between two yields of the event loop while building asynchronously. */
const BUILD_SLICE = 2000;

/**
 * Where the index reads a facet's vectors. Labels (hnswlib's item ids) run over the papers by item
 * count, then paper index, each paper's items in order: the order of the exact blocks' chunks, so
 * an index built over the blocks and one built over the packed items are the same index.
 */
interface AnnVectors {
  dim: number;
  numPapers: number;
  /** The paper of each label. */
  labelPaper: Int32Array;
  /** Label l's vector (a view). */
  vector(label: number): Float32Array;
  /** Paper p's items, contiguous (a view). */
  paperItems(p: number): Float32Array;
}

function packedVectors(items: PackedFacetItems): AnnVectors {
  const { dim, offsets, data } = items;
  const numPapers = numPapersOf(items);
  const byCount = new Map<number, number[]>();
  for (let p = 0; p < numPapers; p++) {
    const c = offsets[p + 1] - offsets[p];
    if (c === 0) continue;
    let g = byCount.get(c);
    if (!g) byCount.set(c, (g = []));
    g.push(p);
  }
  const labelPaper = new Int32Array(offsets[numPapers]);
  const labelRow = new Int32Array(offsets[numPapers]);
  let label = 0;
  for (const c of [...byCount.keys()].sort((a, b) => a - b))
    for (const p of byCount.get(c) as number[])
      for (let r = offsets[p]; r < offsets[p + 1]; r++) {
        labelPaper[label] = p;
        labelRow[label++] = r;
      }
  return {
    dim,
    numPapers,
    labelPaper,
    vector: (l) => data.subarray(labelRow[l] * dim, (labelRow[l] + 1) * dim),
    paperItems: (p) => data.subarray(offsets[p] * dim, offsets[p + 1] * dim),
  };
}

function blockVectors(blocks: FacetBlocks): AnnVectors {
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
  const labelPaper = new Int32Array(rows);
  const labelChunk = new Int32Array(rows);
  const labelRow = new Int32Array(rows);
  let label = 0;
  blocks.chunks.forEach((c, ci) => {
    for (let r = 0; r < c.numPapers * c.itemsPerPaper; r++) {
      labelPaper[label] = c.papers[Math.floor(r / c.itemsPerPaper)];
      labelChunk[label] = ci;
      labelRow[label++] = r;
    }
  });
  return {
    dim,
    numPapers,
    labelPaper,
    vector: (l) => blocks.chunks[labelChunk[l]].data.subarray(labelRow[l] * dim, (labelRow[l] + 1) * dim),
    paperItems: (p) => {
      const c = blocks.chunks[chunkOf[p]];
      const len = c.itemsPerPaper * dim;
      return c.data.subarray(posOf[p] * len, (posOf[p] + 1) * len);
    },
  };
}

/**
 * The file name of a facet's index over these items with these parameters: the hash covers the
 * vectors, their paper layout and the build parameters, so an index written for other items (a
 * re-extraction served under the same build directory) or other settings is never read.
 */
export function annIndexFileName(facet: string, items: PackedFacetItems, params: Partial<AnnParams> = {}): string {
  const p = { ...DEFAULT_ANN_PARAMS, ...params };
  const h = createHash("sha256").update(`hnsw-ip;dim=${items.dim};m=${p.m};efc=${p.efConstruction};seed=${p.seed};`);
  h.update(new Uint8Array(items.offsets.buffer, items.offsets.byteOffset, items.offsets.byteLength));
  h.update(new Uint8Array(items.data.buffer, items.data.byteOffset, items.data.byteLength));
  return `ann-${facet}-${h.digest("hex").slice(0, 16)}.hnsw`;
}

/**
 * An HNSW index over one facet's corpus items. It reads the vectors from the items (or blocks) it
 * was built from (no copy of its own beside hnswlib's), so they must not change afterwards.
 */
export class FacetAnnIndex {
  private constructor(
    private readonly source: AnnVectors,
    private readonly hnsw: Hnsw | null,
    readonly params: AnnParams,
    readonly stats: AnnBuildStats,
  ) {}

  static fromItems(items: PackedFacetItems, params: Partial<AnnParams> = {}): FacetAnnIndex {
    return FacetAnnIndex.buildSync(packedVectors(items), params);
  }

  static fromBlocks(blocks: FacetBlocks, params: Partial<AnnParams> = {}): FacetAnnIndex {
    return FacetAnnIndex.buildSync(blockVectors(blocks), params);
  }

  /** Builds in slices of BUILD_SLICE items, yielding to the event loop between them (a server keeps answering). */
  static fromBlocksAsync(blocks: FacetBlocks, params: Partial<AnnParams> = {}): Promise<FacetAnnIndex> {
    return FacetAnnIndex.buildAsync(blockVectors(blocks), params);
  }

  /** fromBlocksAsync over the packed items (the same index, without the blocks); `onProgress` hears the items added after each slice. */
  static fromItemsAsync(items: PackedFacetItems, params: Partial<AnnParams> = {}, onProgress?: (done: number, total: number) => void): Promise<FacetAnnIndex> {
    return FacetAnnIndex.buildAsync(packedVectors(items), params, onProgress);
  }

  /**
   * The index of `file` (written by `write` for these items and parameters) when it exists,
   * else built (asynchronously) and written there, so the next process reads it (seconds) instead
   * of building it (≈ 3 min for the four facets at 64k papers). A file that cannot be read is
   * rebuilt; one that cannot be written leaves the built index in memory only. `onRead` hears
   * how reading went (the index, or null: no file, or a damaged one) before any build starts.
   */
  static async readOrBuild(
    items: PackedFacetItems,
    file: string,
    params: Partial<AnnParams> = {},
    onRead?: (index: FacetAnnIndex | null) => void,
  ): Promise<FacetAnnIndex> {
    if (existsSync(file)) {
      try {
        const read = await FacetAnnIndex.read(items, file, params);
        onRead?.(read);
        return read;
      } catch (err) {
        console.warn(`ann: rebuilding ${file}, which could not be read (${err instanceof Error ? err.message : String(err)})`);
      }
    }
    onRead?.(null);
    const index = await FacetAnnIndex.fromItemsAsync(items, params);
    try {
      await index.write(file);
    } catch (err) {
      console.warn(`ann: the index stays in memory only, ${file} could not be written (${err instanceof Error ? err.message : String(err)})`);
    }
    return index;
  }

  /** Reads an index that `write` saved for the same items and parameters. */
  static async read(items: PackedFacetItems, file: string, params: Partial<AnnParams> = {}): Promise<FacetAnnIndex> {
    const p = { ...DEFAULT_ANN_PARAMS, ...params };
    const started = performance.now();
    const source = packedVectors(items);
    const rows = source.labelPaper.length;
    if (rows === 0) return new FacetAnnIndex(source, null, p, { items: 0, seconds: 0, read: true });
    const { HierarchicalNSW } = loadHnswlib();
    const hnsw = new HierarchicalNSW("ip", source.dim);
    await hnsw.readIndex(file);
    if (hnsw.getCurrentCount() !== rows || hnsw.getNumDimensions() !== source.dim)
      throw new Error(`${file} holds ${hnsw.getCurrentCount()} items of dimension ${hnsw.getNumDimensions()}, expected ${rows} of ${source.dim}`);
    hnsw.setEf(Math.max(p.efSearch, p.itemNeighbours));
    return new FacetAnnIndex(source, hnsw, p, { items: rows, seconds: (performance.now() - started) / 1000, read: true });
  }

  /** Writes the index to `file` atomically: a temporary name in the same folder, flushed, then renamed. */
  async write(file: string): Promise<void> {
    const hnsw = this.hnsw;
    if (!hnsw) return;
    await writeFileAtomicWith(file, (tmp) => hnsw.writeIndex(tmp).then(() => undefined), { durable: true });
  }

  private static buildSync(source: AnnVectors, params: Partial<AnnParams>): FacetAnnIndex {
    const build = FacetAnnIndex.builder(source, params);
    while (!build.step(Infinity));
    return build.index();
  }

  private static async buildAsync(source: AnnVectors, params: Partial<AnnParams>, onProgress?: (done: number, total: number) => void): Promise<FacetAnnIndex> {
    const build = FacetAnnIndex.builder(source, params);
    while (!build.step(BUILD_SLICE)) {
      onProgress?.(build.added(), source.labelPaper.length);
      await new Promise((resolve) => setImmediate(resolve));
    }
    onProgress?.(source.labelPaper.length, source.labelPaper.length);
    return build.index();
  }

  private static builder(source: AnnVectors, params: Partial<AnnParams>) {
    const p = { ...DEFAULT_ANN_PARAMS, ...params };
    const started = performance.now();
    const rows = source.labelPaper.length;
    let hnsw: Hnsw | null = null;
    if (rows > 0) {
      const { HierarchicalNSW } = loadHnswlib();
      hnsw = new HierarchicalNSW("ip", source.dim);
      hnsw.initIndex(rows, p.m, p.efConstruction, p.seed);
    }
    let added = 0;
    return {
      /** Adds up to `n` items; true when every item is in. */
      step(n: number): boolean {
        for (let left = n; hnsw && added < rows && left > 0; left--, added++) hnsw.addPoint(Array.from(source.vector(added)), added);
        return added === rows;
      },
      added: () => added,
      index(): FacetAnnIndex {
        hnsw?.setEf(Math.max(p.efSearch, p.itemNeighbours));
        return new FacetAnnIndex(source, hnsw, p, { items: rows, seconds: (performance.now() - started) / 1000 });
      },
    };
  }

  /** Corpus papers proposed for these query items: owners of each item's nearest corpus items. */
  candidates(queryItems: readonly Float32Array[], exclude = -1): Int32Array {
    if (!this.hnsw || queryItems.length === 0) return new Int32Array(0);
    const k = Math.min(this.params.itemNeighbours, this.stats.items);
    const seen = new Set<number>();
    for (const q of queryItems) {
      if (q.length !== this.source.dim) throw new Error(`ann: vector of length ${q.length}, expected ${this.source.dim}`);
      for (const label of this.hnsw.searchKnn(Array.from(q), k).neighbors) {
        const paper = this.source.labelPaper[label];
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
    const { dim } = this.source;
    const own = Array.from(cands, (p) => this.source.paperItems(p));
    const subOffsets = new Int32Array(cands.length + 1);
    own.forEach((v, i) => (subOffsets[i + 1] = subOffsets[i] + v.length / dim));
    const subData = new Float32Array(subOffsets[cands.length] * dim);
    own.forEach((v, i) => subData.set(v, subOffsets[i] * dim));
    const scores = maxSimOneToMany(queryItems, { dim, offsets: subOffsets, data: subData });
    const order = Array.from(cands.keys()).sort((a, b) => scores[b] - scores[a] || cands[a] - cands[b]);
    const top = order.slice(0, k);
    return { targets: Int32Array.from(top, (i) => cands[i]), scores: Float32Array.from(top, (i) => scores[i]) };
  }
}

/** One facet's index file as the graph stage left it in the build directory. */
export interface AnnIndexFile {
  facet: string;
  /** The file's name in the directory (annIndexFileName). */
  file: string;
  items: number;
  bytes: number;
  /** Seconds spent building and writing it; 0 when it was already there. */
  seconds: number;
  /** Written by an earlier, interrupted run of the step (read back, not rebuilt). */
  reused: boolean;
}

export interface WriteAnnIndexFilesOptions {
  params?: Partial<AnnParams>;
  /** Checked before each facet: an aborted step leaves the facets written so far for a rerun. */
  signal?: AbortSignal;
  /** Items added to the facet's index so far. */
  onProgress?: (facet: string, done: number, total: number) => void;
  /** Each facet once its file is in place. */
  onFacet?: (written: AnnIndexFile) => void;
}

/**
 * Builds each facet's index over its items and writes it atomically into `dir` under
 * annIndexFileName: the name serving computes from the items it loads (lib/retrieve/ephemeral.ts),
 * so a served build finds it there instead of building it. A file already in place that reads
 * back is kept, so a step interrupted after some facets redoes only the others. Facets without
 * items get no file (serving needs none).
 */
export async function writeAnnIndexFiles(
  dir: string,
  facets: readonly (readonly [string, PackedFacetItems])[],
  options: WriteAnnIndexFilesOptions = {},
): Promise<AnnIndexFile[]> {
  const written: AnnIndexFile[] = [];
  for (const [facet, items] of facets) {
    options.signal?.throwIfAborted();
    const rows = items.offsets[numPapersOf(items)];
    if (rows === 0) continue;
    const name = annIndexFileName(facet, items, options.params);
    const file = path.join(dir, name);
    let reused = false;
    if (existsSync(file)) {
      try {
        await FacetAnnIndex.read(items, file, options.params);
        reused = true;
      } catch {
        // Not the index these items need (a damaged file): built again below.
      }
    }
    const started = performance.now();
    if (!reused) {
      const index = await FacetAnnIndex.fromItemsAsync(items, options.params, (done, total) => options.onProgress?.(facet, done, total));
      await index.write(file);
    }
    const entry: AnnIndexFile = {
      facet,
      file: name,
      items: rows,
      bytes: statSync(file).size,
      seconds: reused ? 0 : (performance.now() - started) / 1000,
      reused,
    };
    written.push(entry);
    options.onFacet?.(entry);
  }
  return written;
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
