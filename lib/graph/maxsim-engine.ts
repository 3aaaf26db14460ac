/**
 * The max-sim engine: item vectors laid out in chunks of papers with equal item counts
 * (`prepareFacetBlocks`), and onnxruntime sessions of the block kernel (maxsim-onnx.ts) that score
 * a chunk against a chunk (`MaxSimEngine.block`). Papers are grouped by item count n, so a chunk of
 * b papers is a dense [b·n, d] matrix with no padding and every mean divides by the paper's true
 * item count. The top-K passes over these blocks are in topk.ts.
 */
import { availableParallelism } from "node:os";
import * as ort from "onnxruntime-node";
import { numPapersOf, type PackedFacetItems } from "./maxsim";
import { buildMaxSimBlockModel, kernelScoreScale } from "./maxsim-onnx";

// ---------------------------------------------------------------------------------------------
// Chunked layout.

/** A query side for `MaxSimEngine.block`: numPapers papers with n items each, rows contiguous. */
export interface BlockSide {
  readonly itemsPerPaper: number;
  readonly numPapers: number;
  readonly data: Float32Array;
}

/** Papers of equal item count, their item rows copied contiguously: a dense [papers·n, dim] matrix. */
export interface FacetChunk extends BlockSide {
  /** Corpus indices of the chunk's papers, in row order. */
  readonly papers: Int32Array;
}

export interface FacetBlocks {
  readonly numPapers: number;
  readonly dim: number;
  readonly chunks: readonly FacetChunk[];
}

export const DEFAULT_CHUNK_ITEMS = 4096;

/**
 * Groups papers by item count and cuts each group into chunks of about `chunkItems` item rows
 * (balanced, so the last chunk is not a sliver). Papers with no items get no chunk: their facet
 * score with anyone is 0.
 */
export function prepareFacetBlocks(items: PackedFacetItems, chunkItems = DEFAULT_CHUNK_ITEMS): FacetBlocks {
  const n = numPapersOf(items);
  const { dim, offsets, data } = items;
  const groups = new Map<number, number[]>();
  for (let p = 0; p < n; p++) {
    const c = offsets[p + 1] - offsets[p];
    if (c === 0) continue;
    let g = groups.get(c);
    if (!g) groups.set(c, (g = []));
    g.push(p);
  }
  const chunks: FacetChunk[] = [];
  for (const c of [...groups.keys()].sort((a, b) => a - b)) {
    const papers = groups.get(c) as number[];
    const perChunk = Math.max(1, Math.floor(chunkItems / c));
    const numChunks = Math.ceil(papers.length / perChunk);
    for (let k = 0; k < numChunks; k++) {
      const from = Math.floor((k * papers.length) / numChunks);
      const to = Math.floor(((k + 1) * papers.length) / numChunks);
      const ids = Int32Array.from(papers.slice(from, to));
      const buf = new Float32Array(ids.length * c * dim);
      ids.forEach((p, i) => buf.set(data.subarray(offsets[p] * dim, offsets[p + 1] * dim), i * c * dim));
      chunks.push({ itemsPerPaper: c, numPapers: ids.length, papers: ids, data: buf });
    }
  }
  return { numPapers: n, dim, chunks };
}

// ---------------------------------------------------------------------------------------------
// The onnxruntime sessions.

export interface BlockResult {
  /** [bq, kRow] best facet scores s of each q paper against the t chunk, best first. */
  rowVals: Float32Array;
  rowIdx: Int32Array;
  kRow: number;
  /** [bt, kCol] best facet scores of each t paper against the q chunk (empty when rowsOnly). */
  colVals: Float32Array;
  colIdx: Int32Array;
  kCol: number;
  /** s of the requested pairs, in request order. */
  pairVals: Float32Array;
}

/** No linked pairs to gather (the default of `MaxSimEngine.block`). */
export const NO_PAIRS = new Int32Array(0);

export class MaxSimEngine {
  private readonly sessions = new Map<string, Promise<ort.InferenceSession>>();

  private constructor(private readonly threads: number) {}

  static async create(options: { threads?: number } = {}): Promise<MaxSimEngine> {
    return new MaxSimEngine(options.threads ?? availableParallelism());
  }

  /** One session per model variant (nq = 1?, nt = 1?, rowsOnly), created on first use. */
  private session(nq: number, nt: number, rowsOnly: boolean): Promise<ort.InferenceSession> {
    const key = `${nq === 1 ? 1 : "n"}x${nt === 1 ? 1 : "n"}${rowsOnly ? "r" : ""}`;
    let s = this.sessions.get(key);
    if (!s) {
      s = ort.InferenceSession.create(buildMaxSimBlockModel(nq, nt, rowsOnly), {
        intraOpNumThreads: this.threads,
        interOpNumThreads: 1,
        executionMode: "sequential",
        graphOptimizationLevel: "all",
        logSeverityLevel: 3,
      });
      this.sessions.set(key, s);
    }
    return s;
  }

  /**
   * Creates now the sessions an all-pairs pass can use, so timings exclude them: chunks are
   * ordered by item count, so blocks have nq ≤ nt, and only diagonal blocks (nq = nt) are
   * rows-only.
   */
  async warmUp(): Promise<void> {
    for (const [nq, nt, rowsOnly] of [
      [1, 1, true],
      [1, 1, false],
      [1, 2, false],
      [2, 2, true],
      [2, 2, false],
    ] as const) {
      await this.session(nq, nt, rowsOnly);
    }
  }

  /**
   * Scores every paper of q against every paper of t: the kRow best t papers of each q paper
   * (kRow ≤ bt), unless `rowsOnly` the kCol best q papers of each t paper (kCol ≤ bq), and s
   * for the pairs listed as flat indices a·bt + b.
   */
  async block(q: BlockSide, t: BlockSide, dim: number, kRow: number, kCol: number, rowsOnly = false, pairs: Int32Array = NO_PAIRS): Promise<BlockResult> {
    const nq = q.itemsPerPaper;
    const nt = t.itemsPerPaper;
    const bq = q.numPapers;
    const bt = t.numPapers;
    const session = await this.session(nq, nt, rowsOnly);
    const feeds: Record<string, ort.Tensor> = {
      Q: new ort.Tensor("float32", q.data, [bq * nq, dim]),
      T: new ort.Tensor("float32", t.data, [bt * nt, dim]),
      kRow: new ort.Tensor("int64", BigInt64Array.of(BigInt(kRow)), [1]),
      pairs: new ort.Tensor("int32", pairs, [pairs.length]),
    };
    if (nq > 1 || nt > 1) feeds.shape4 = new ort.Tensor("int64", BigInt64Array.from([bq, nq, bt, nt].map(BigInt)), [4]);
    if ((nq === 1) !== (nt === 1)) feeds.shape3 = new ort.Tensor("int64", BigInt64Array.from((nq === 1 ? [bq, bt, nt] : [bq, nq, bt]).map(BigInt)), [3]);
    if (!rowsOnly) feeds.kCol = new ort.Tensor("int64", BigInt64Array.of(BigInt(kCol)), [1]);
    const out = await session.run(feeds);
    const scale = kernelScoreScale(nq, nt);
    const rescale = (v: Float32Array): Float32Array => {
      for (let i = 0; i < v.length; i++) v[i] = v[i] * scale + 0.5;
      return v;
    };
    return {
      rowVals: rescale(out.rowVals.data as Float32Array),
      rowIdx: out.rowIdx.data as Int32Array,
      kRow,
      colVals: rowsOnly ? new Float32Array(0) : rescale(out.colVals.data as Float32Array),
      colIdx: rowsOnly ? new Int32Array(0) : (out.colIdx.data as Int32Array),
      kCol: rowsOnly ? 0 : kCol,
      pairVals: rescale(out.pairVals.data as Float32Array),
    };
  }

  async release(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    for (const s of all) await (await s).release();
  }
}
