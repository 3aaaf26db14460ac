/**
 * Exact top-K edges per paper per facet over all pairs, on onnxruntime-node (CPU).
 *
 * Max-sim needs item-level similarities, but papers have 1-5 items. Instead of padding every
 * paper to the largest count (wasting FLOPs and needing -inf masks), papers are grouped by item
 * count n, so a chunk of b papers is a dense [b·n, d] matrix with no padding at all. For a
 * chunk pair (q, t) one small ONNX graph computes
 *
 *   S  = Gemm(Q, Tᵀ)                                    [bq·nq, bt·nt]  item cosines
 *   S4 = Reshape(S, [bq, nq, bt, nt])
 *   u  = mean_i max_j S4 + mean_j max_i S4              [bq, bt]   (s = u/4 + 1/2, eqn:maxsim rescaled)
 *   TopK(u, axis 1), TopK(uᵀ, axis 1), Gather(u, linked pairs)
 *
 * so every mean divides by the paper's true item count. s_f is symmetric, so only chunk pairs
 * q ≤ t are computed: the row top-K serves the q papers and the column top-K the t papers,
 * halving the work. Per-block lists are merged in JS into a bounded heap per paper.
 *
 * Edges are ranked by w = α s + β c, not by s. Exactness over all pairs comes from two lists
 * per paper: (1) its top-K by s, and (2) its top-K by w among citation-linked papers (c > 0),
 * whose s the kernel gathers from the same block scores (Gather on a list of pair indices, so
 * no score matrix leaves onnxruntime and no s is recomputed in JS). A pair in the final top-K
 * is either linked, hence in (2), or unlinked with w = α s, hence in (1): otherwise K papers
 * would beat it on s and so on w. A candidate of (1) missing from a full list (2) is treated as
 * unlinked; if it was linked but evicted from (2), K linked papers outrank it, so it cannot
 * make the cut either way. (The paper prunes 100 facet-score candidates to 20 edges; this
 * makes that exact with K candidates.)
 *
 * The ONNX models are written in code as protobuf bytes (a small encoder below), so no Python
 * and no model file are needed at run time.
 */
import { availableParallelism } from "node:os";
import * as ort from "onnxruntime-node";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { CitationRows } from "./citation-score";
import type { FacetCsr, PaperGraph } from "./csr";
import { DEFAULT_EDGE_WEIGHT, type EdgeWeightParams } from "./edge-weight";
import type { LexicalIndex, SparseVector } from "./lexical";
import { itemsOfPaper, maxSimFacetScore, maxSimOneToMany, numPapersOf, type PackedFacetItems } from "./maxsim";
import { MIX_CANDIDATES, mixScore } from "./similarity";

// ---------------------------------------------------------------------------------------------
// Minimal protobuf writer for the handful of ONNX messages the model needs.

type Bytes = Uint8Array;

function varint(value: number | bigint): number[] {
  // int64 fields use 64-bit two's complement, so negatives take 10 bytes.
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

function cat(parts: readonly (Bytes | number[])[]): Bytes {
  const len = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(len);
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

const pbInt = (field: number, v: number | bigint): Bytes => cat([varint(field << 3), varint(v)]);
const pbBytes = (field: number, payload: Bytes): Bytes => cat([varint((field << 3) | 2), varint(payload.length), payload]);
const pbString = (field: number, s: string): Bytes => pbBytes(field, new TextEncoder().encode(s));

// ONNX enum values (onnx.proto).
const ELEM_FLOAT = 1;
const ELEM_INT32 = 6;
const ELEM_INT64 = 7;
const ATTR_INT = 2;
const ATTR_INTS = 7;

type Attr = { name: string; int: number } | { name: string; ints: number[] };

function attribute(a: Attr): Bytes {
  if ("int" in a) return cat([pbString(1, a.name), pbInt(3, a.int), pbInt(20, ATTR_INT)]);
  return cat([pbString(1, a.name), ...a.ints.map((v) => pbInt(8, v)), pbInt(20, ATTR_INTS)]);
}

function node(op: string, inputs: string[], outputs: string[], attrs: Attr[] = []): Bytes {
  return cat([
    ...inputs.map((s) => pbString(1, s)),
    ...outputs.map((s) => pbString(2, s)),
    pbString(3, `${op}_${outputs[0]}`),
    pbString(4, op),
    ...attrs.map((a) => pbBytes(5, attribute(a))),
  ]);
}

function valueInfo(name: string, elemType: number, dims: (number | string)[]): Bytes {
  const shape = cat(dims.map((d) => pbBytes(1, typeof d === "number" ? pbInt(1, d) : pbString(2, d))));
  const tensorType = cat([pbInt(1, elemType), pbBytes(2, shape)]);
  return cat([pbString(1, name), pbBytes(2, pbBytes(1, tensorType))]);
}


function int64Tensor(name: string, values: number[]): Bytes {
  return cat([
    pbInt(1, values.length),
    pbInt(2, ELEM_INT64),
    pbString(8, name),
    pbBytes(9, new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer)),
  ]);
}

/**
 * The block kernel as ONNX ModelProto bytes (opset 17). Item counts are dynamic (fed as reshape
 * targets), but the model is specialised on whether each side has exactly one item per paper:
 * a reduction over a size-1 axis would still be a full pass over the [bq·nq, bt·nt] similarity
 * matrix, and for 1-item papers such a pass costs a sizeable share of the product itself,
 * while a Reshape is free in onnxruntime (no copy). Few variants also mean few sessions, each
 * of which keeps its own memory arena.
 *
 * Outputs hold u = mean_i max_j + mean_j max_i, or the cosine itself when nq = nt = 1 (see
 * `kernelScoreScale`); the rescale to s is applied in JS to the few values kept. The column
 * top-K runs on the transposed matrix because TopK along axis 0 walks memory with a stride and
 * measured slower than Transpose + TopK along axis 1. `rowsOnly` models skip the column top-K:
 * diagonal blocks (q = t) get it from the symmetric rows, and a single query needs only its row.
 * Input `pairs` holds flat indices a·bt + b of the linked pairs whose u is returned as `pairVals`.
 */
export function buildMaxSimBlockModel(nq: number, nt: number, rowsOnly: boolean): Uint8Array {
  const q1 = nq === 1;
  const t1 = nt === 1;
  const nodes: Bytes[] = [node("Gemm", ["Q", "T"], ["S"], [{ name: "transB", int: 1 }])];
  const inits: Bytes[] = [int64Tensor("flat1", [-1])];
  let score = "S";
  if (!q1 || !t1) {
    // shape4 = [bq, nq, bt, nt]; shape3 = [bq, nq, bt] when nt = 1, [bq, bt, nt] when nq = 1.
    nodes.push(node("Reshape", ["S", "shape4"], ["S4"]));
    if (q1 || t1) inits.push(int64Tensor("flat2", [0, -1])); // 0 copies the input's dim, -1 takes the rest
    // q → t direction: max over t's items, mean over q's items.
    nodes.push(
      t1 ? node("Reshape", ["S", "shape3"], ["rowMax"]) : node("ReduceMax", ["S4"], ["rowMax"], [{ name: "axes", ints: [3] }, { name: "keepdims", int: 0 }]),
    );
    nodes.push(
      q1 ? node("Reshape", ["rowMax", "flat2"], ["qToT"]) : node("ReduceMean", ["rowMax"], ["qToT"], [{ name: "axes", ints: [1] }, { name: "keepdims", int: 0 }]),
    );
    // t → q direction: max over q's items, mean over t's items.
    nodes.push(
      q1 ? node("Reshape", ["S", "shape3"], ["colMax"]) : node("ReduceMax", ["S4"], ["colMax"], [{ name: "axes", ints: [1] }, { name: "keepdims", int: 0 }]),
    );
    nodes.push(
      t1 ? node("Reshape", ["colMax", "flat2"], ["tToQ"]) : node("ReduceMean", ["colMax"], ["tToQ"], [{ name: "axes", ints: [2] }, { name: "keepdims", int: 0 }]),
    );
    nodes.push(node("Add", ["qToT", "tToQ"], ["score"]));
    score = "score";
  }
  nodes.push(node("TopK", [score, "kRow"], ["rowVals", "rowIdx64"], [{ name: "axis", int: 1 }]));
  nodes.push(node("Cast", ["rowIdx64"], ["rowIdx"], [{ name: "to", int: ELEM_INT32 }]));
  nodes.push(node("Reshape", [score, "flat1"], ["scoreFlat"]));
  nodes.push(node("Gather", ["scoreFlat", "pairs"], ["pairVals"], [{ name: "axis", int: 0 }]));
  const inputs = [valueInfo("Q", ELEM_FLOAT, ["rq", "d"]), valueInfo("T", ELEM_FLOAT, ["rt", "d"])];
  if (!q1 || !t1) inputs.push(valueInfo("shape4", ELEM_INT64, [4]));
  if (q1 !== t1) inputs.push(valueInfo("shape3", ELEM_INT64, [3]));
  inputs.push(valueInfo("kRow", ELEM_INT64, [1]), valueInfo("pairs", ELEM_INT32, ["m"]));
  const outputs = [
    valueInfo("rowVals", ELEM_FLOAT, ["bq", "kr"]),
    valueInfo("rowIdx", ELEM_INT32, ["bq", "kr"]),
    valueInfo("pairVals", ELEM_FLOAT, ["m"]),
  ];
  if (!rowsOnly) {
    nodes.push(node("Transpose", [score], ["scoreT"], [{ name: "perm", ints: [1, 0] }]));
    nodes.push(node("TopK", ["scoreT", "kCol"], ["colVals", "colIdx64"], [{ name: "axis", int: 1 }]));
    nodes.push(node("Cast", ["colIdx64"], ["colIdx"], [{ name: "to", int: ELEM_INT32 }]));
    inputs.push(valueInfo("kCol", ELEM_INT64, [1]));
    outputs.push(valueInfo("colVals", ELEM_FLOAT, ["bt", "kc"]), valueInfo("colIdx", ELEM_INT32, ["bt", "kc"]));
  }
  const graph = cat([
    ...nodes.map((n) => pbBytes(1, n)),
    pbString(2, `maxsim_${q1 ? "1" : "n"}x${t1 ? "1" : "n"}${rowsOnly ? "_rows" : ""}`),
    ...inits.map((t) => pbBytes(5, t)),
    ...inputs.map((v) => pbBytes(11, v)),
    ...outputs.map((v) => pbBytes(12, v)),
  ]);
  const opset = cat([pbString(1, ""), pbInt(2, 17)]);
  return cat([pbInt(1, 8), pbString(2, "graft"), pbBytes(7, graph), pbBytes(8, opset)]);
}

/** Maps the kernel's raw output u to the rescaled facet score s = u·scale + 1/2 in [0, 1]. */
export function kernelScoreScale(nq: number, nt: number): number {
  return nq === 1 && nt === 1 ? 0.5 : 0.25;
}

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

const NO_PAIRS = new Int32Array(0);

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
    for (const [nq, nt, rowsOnly] of [[1, 1, true], [1, 1, false], [1, 2, false], [2, 2, true], [2, 2, false]] as const) {
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

// ---------------------------------------------------------------------------------------------
// Bounded best-K per paper.

/** Ranked neighbour lists: row p holds up to k (target, score) pairs, best first. */
export interface RankedNeighbours {
  readonly numPapers: number;
  readonly k: number;
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
  readonly scores: Float32Array;
  /** Per-entry payload carried along with each kept entry (`auxWidth` floats per entry). */
  readonly aux: Float32Array;
  readonly auxWidth: number;
}

/**
 * One min-heap of capacity k per paper in flat typed arrays; ties prefer the lower paper index.
 * Each entry can carry `auxWidth` extra floats (the linked lists keep s and c beside w).
 */
export class TopKAccumulator {
  private readonly vals: Float32Array;
  private readonly ids: Int32Array;
  private readonly aux: Float32Array;
  private readonly sizes: Int32Array;
  /**
   * Per paper, the smallest score that can still enter (-Infinity until the heap is full): a
   * cheap pre-filter so producers only call `offer` for the few values that matter.
   */
  readonly floor: Float32Array;

  constructor(
    readonly numPapers: number,
    readonly k: number,
    readonly auxWidth: 0 | 1 | 2 = 0,
  ) {
    this.vals = new Float32Array(numPapers * k);
    this.ids = new Int32Array(numPapers * k);
    this.aux = new Float32Array(numPapers * k * auxWidth);
    this.sizes = new Int32Array(numPapers);
    this.floor = new Float32Array(numPapers).fill(-Infinity);
  }

  /** True when (v1, i1) ranks below (v2, i2). */
  private static worse(v1: number, i1: number, v2: number, i2: number): boolean {
    return v1 < v2 || (v1 === v2 && i1 > i2);
  }

  private move(from: number, to: number): void {
    this.vals[to] = this.vals[from];
    this.ids[to] = this.ids[from];
    const w = this.auxWidth;
    for (let x = 0; x < w; x++) this.aux[to * w + x] = this.aux[from * w + x];
  }

  /** Offers a candidate; returns false when it was rejected. */
  offer(paper: number, target: number, score: number, aux0 = 0, aux1 = 0): boolean {
    const k = this.k;
    if (k === 0) return false;
    const base = paper * k;
    const vals = this.vals;
    const ids = this.ids;
    let size = this.sizes[paper];
    let pos: number;
    if (size < k) {
      pos = size++;
      this.sizes[paper] = size;
      while (pos > 0) {
        const parent = (pos - 1) >> 1;
        if (!TopKAccumulator.worse(score, target, vals[base + parent], ids[base + parent])) break;
        this.move(base + parent, base + pos);
        pos = parent;
      }
    } else {
      if (!TopKAccumulator.worse(vals[base], ids[base], score, target)) return false;
      pos = 0;
      for (;;) {
        const l = 2 * pos + 1;
        if (l >= size) break;
        const r = l + 1;
        let c = l;
        if (r < size && TopKAccumulator.worse(vals[base + r], ids[base + r], vals[base + l], ids[base + l])) c = r;
        if (!TopKAccumulator.worse(vals[base + c], ids[base + c], score, target)) break;
        this.move(base + c, base + pos);
        pos = c;
      }
    }
    vals[base + pos] = score;
    ids[base + pos] = target;
    const w = this.auxWidth;
    if (w > 0) this.aux[(base + pos) * w] = aux0;
    if (w > 1) this.aux[(base + pos) * w + 1] = aux1;
    if (size === k) this.floor[paper] = vals[base];
    return true;
  }

  /** Ranked lists, best first; empties the heaps (pops each heap's worst entry into the last free slot). */
  finish(): RankedNeighbours {
    const { numPapers, k, auxWidth } = this;
    const offsets = new Int32Array(numPapers + 1);
    for (let p = 0; p < numPapers; p++) offsets[p + 1] = offsets[p] + this.sizes[p];
    const total = offsets[numPapers];
    const targets = new Int32Array(total);
    const scores = new Float32Array(total);
    const aux = new Float32Array(total * auxWidth);
    const { vals, ids } = this;
    for (let p = 0; p < numPapers; p++) {
      const base = p * k;
      for (let size = this.sizes[p]; size > 0; size--) {
        const e = offsets[p] + size - 1;
        targets[e] = ids[base];
        scores[e] = vals[base];
        for (let x = 0; x < auxWidth; x++) aux[e * auxWidth + x] = this.aux[base * auxWidth + x];
        // Move the last entry to the root and sift it down over size - 1 entries.
        const last = base + size - 1;
        const lv = vals[last];
        const li = ids[last];
        const la0 = auxWidth > 0 ? this.aux[last * auxWidth] : 0;
        const la1 = auxWidth > 1 ? this.aux[last * auxWidth + 1] : 0;
        const n = size - 1;
        let pos = 0;
        for (;;) {
          const l = 2 * pos + 1;
          if (l >= n) break;
          const r = l + 1;
          let c = l;
          if (r < n && TopKAccumulator.worse(vals[base + r], ids[base + r], vals[base + l], ids[base + l])) c = r;
          if (!TopKAccumulator.worse(vals[base + c], ids[base + c], lv, li)) break;
          this.move(base + c, base + pos);
          pos = c;
        }
        vals[base + pos] = lv;
        ids[base + pos] = li;
        if (auxWidth > 0) this.aux[(base + pos) * auxWidth] = la0;
        if (auxWidth > 1) this.aux[(base + pos) * auxWidth + 1] = la1;
      }
      this.sizes[p] = 0;
      this.floor[p] = -Infinity;
    }
    return { numPapers, k, offsets, targets, scores, aux, auxWidth };
  }
}

// ---------------------------------------------------------------------------------------------
// All-pairs facet scores.

export interface KernelStats {
  /** Floating-point operations of the item-level products actually executed (2·rows·cols·dim). */
  flops: number;
  /** Same for a non-symmetric all-pairs pass (every ordered item pair), for comparison. */
  denseFlops: number;
  seconds: number;
  /** Of `seconds`, the time inside onnxruntime runs (the rest is JS: citation rows, merging). */
  onnxSeconds: number;
  blocks: number;
  /** Citation-linked pairs whose s was gathered in the kernel. */
  linkedPairs: number;
}

export interface FacetTopKOptions extends Partial<EdgeWeightParams> {
  /** Neighbours kept per paper (both lists). */
  k: number;
  /** Citation rows: when given, the linked list (2) of the header is built too. */
  citations?: CitationRows | null;
  chunkItems?: number;
  engine?: MaxSimEngine;
  threads?: number;
  /** Called after every block with (done, total). */
  onProgress?: (done: number, total: number) => void;
}

export interface FacetTopK {
  /** Each paper's top-k by facet score s, self excluded. */
  neighbours: RankedNeighbours;
  /** Each paper's top-k citation-linked papers by w, aux = [s, c] (absent without citations). */
  linked: RankedNeighbours | null;
  stats: KernelStats;
}

/** Exact top-k by facet score (and top-k linked by edge weight) for every paper of one facet. */
export async function facetTopK(items: PackedFacetItems, options: FacetTopKOptions): Promise<FacetTopK> {
  const blocks = prepareFacetBlocks(items, options.chunkItems);
  const engine = options.engine ?? (await MaxSimEngine.create({ threads: options.threads }));
  try {
    return await facetTopKOnBlocks(blocks, engine, options);
  } finally {
    if (!options.engine) await engine.release();
  }
}

/** Growable typed buffers for the per-block linked pair lists. */
class PairBucket {
  flat = new Int32Array(64);
  src = new Int32Array(64);
  dst = new Int32Array(64);
  c = new Float32Array(64);
  length = 0;
  push(flat: number, src: number, dst: number, c: number): void {
    if (this.length === this.flat.length) {
      const grow = <T extends Int32Array | Float32Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      this.flat = grow(this.flat, (n) => new Int32Array(n));
      this.src = grow(this.src, (n) => new Int32Array(n));
      this.dst = grow(this.dst, (n) => new Int32Array(n));
      this.c = grow(this.c, (n) => new Float32Array(n));
    }
    this.flat[this.length] = flat;
    this.src[this.length] = src;
    this.dst[this.length] = dst;
    this.c[this.length] = c;
    this.length++;
  }
}

export async function facetTopKOnBlocks(blocks: FacetBlocks, engine: MaxSimEngine, options: FacetTopKOptions): Promise<FacetTopK> {
  const { k, onProgress } = options;
  const citations = options.citations ?? null;
  const alpha = options.alpha ?? DEFAULT_EDGE_WEIGHT.alpha;
  const beta = options.beta ?? DEFAULT_EDGE_WEIGHT.beta;
  const { chunks, dim, numPapers } = blocks;
  if (citations && citations.numPapers !== numPapers) throw new Error("facetTopK: citation rows cover a different paper count");
  const acc = new TopKAccumulator(numPapers, k);
  const linked = citations ? new TopKAccumulator(numPapers, k, 2) : null;
  const chunkOf = new Int32Array(numPapers).fill(-1);
  const localOf = new Int32Array(numPapers);
  chunks.forEach((c, i) =>
    c.papers.forEach((p, l) => {
      chunkOf[p] = i;
      localOf[p] = l;
    }),
  );
  const started = performance.now();
  let flops = 0;
  let runs = 0;
  let linkedPairs = 0;
  let onnxMs = 0;
  const total = (chunks.length * (chunks.length + 1)) / 2;
  let done = 0;
  let totalRows = 0;
  for (const c of chunks) totalRows += c.papers.length * c.itemsPerPaper;
  const floor = acc.floor;

  for (let i = 0; i < chunks.length; i++) {
    const q = chunks[i];
    const bq = q.numPapers;
    // Citation rows of this chunk's papers, bucketed by the chunk of the other paper. A pair
    // with a chunk before i was already seen from that chunk's side; a paper without items has
    // s = 0 with everyone, so its pairs go straight to the linked list.
    const buckets: PairBucket[] = [];
    if (citations && linked) {
      for (let j = i; j < chunks.length; j++) buckets[j] = new PairBucket();
      for (let a = 0; a < bq; a++) {
        const pa = q.papers[a];
        const row = citations.row(pa);
        for (let e = 0; e < row.targets.length; e++) {
          const b = row.targets[e];
          const j = chunkOf[b];
          const c = row.scores[e];
          if (j < 0) linked.offer(pa, b, beta * c, 0, c);
          else if (j >= i) buckets[j].push(a * chunks[j].numPapers + localOf[b], pa, b, c);
        }
      }
    }
    for (let j = i; j < chunks.length; j++, done++) {
      const t = chunks[j];
      const bt = t.numPapers;
      const diagonal = i === j;
      // On the diagonal each row contains its own paper: ask for one more and drop it.
      const kRow = Math.min(diagonal ? k + 1 : k, bt);
      const kCol = diagonal ? 0 : Math.min(k, bq);
      if (k === 0 || (diagonal && bt === 1)) continue;
      const bucket = buckets[j];
      const pairs = bucket ? bucket.flat.subarray(0, bucket.length) : NO_PAIRS;
      const tRun = performance.now();
      const r = await engine.block(q, t, dim, kRow, kCol, diagonal, pairs);
      onnxMs += performance.now() - tRun;
      flops += 2 * bq * q.itemsPerPaper * bt * t.itemsPerPaper * dim;
      runs++;
      // Lists arrive best first, so the first value below a paper's floor ends its list.
      for (let a = 0; a < bq; a++) {
        const src = q.papers[a];
        for (let m = 0; m < kRow; m++) {
          const v = r.rowVals[a * kRow + m];
          if (v < floor[src]) break;
          const dst = t.papers[r.rowIdx[a * kRow + m]];
          if (dst !== src) acc.offer(src, dst, v);
        }
      }
      for (let b = 0; b < bt && !diagonal; b++) {
        const dst = t.papers[b];
        for (let m = 0; m < kCol; m++) {
          const v = r.colVals[b * kCol + m];
          if (v < floor[dst]) break;
          acc.offer(dst, q.papers[r.colIdx[b * kCol + m]], v);
        }
      }
      if (bucket && linked) {
        linkedPairs += bucket.length;
        const lfloor = linked.floor;
        for (let e = 0; e < bucket.length; e++) {
          const s = r.pairVals[e];
          const c = bucket.c[e];
          const w = Math.fround(alpha * s + beta * c);
          const src = bucket.src[e];
          const dst = bucket.dst[e];
          if (w >= lfloor[src]) linked.offer(src, dst, w, s, c);
          // Diagonal pairs also appear in the other paper's row; off-diagonal ones only here.
          if (!diagonal && w >= lfloor[dst]) linked.offer(dst, src, w, s, c);
        }
      }
      onProgress?.(done + 1, total);
    }
  }
  // Papers without items never head a chunk: all their linked pairs have s = 0.
  if (citations && linked) {
    for (let p = 0; p < numPapers; p++) {
      if (chunkOf[p] >= 0) continue;
      const row = citations.row(p);
      for (let e = 0; e < row.targets.length; e++) linked.offer(p, row.targets[e], beta * row.scores[e], 0, row.scores[e]);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    neighbours: acc.finish(),
    linked: linked ? linked.finish() : null,
    stats: { flops, denseFlops: 2 * totalRows * totalRows * dim, seconds, onnxSeconds: onnxMs / 1000, blocks: runs, linkedPairs },
  };
}

/**
 * Top-k corpus papers by s_f for one query given by its item vectors: the ephemeral insertion
 * of an out-of-corpus paper (appendix "Ephemeral insertion"), the same max-sim against every
 * corpus item, then pruned. `exclude` drops one corpus paper, e.g. the query itself when it is
 * indexed. Citation scores, if the caller has any for the query, are combined by the caller.
 */
export async function queryFacetTopK(
  engine: MaxSimEngine,
  blocks: FacetBlocks,
  queryItems: readonly Float32Array[],
  k: number,
  exclude = -1,
): Promise<{ targets: Int32Array; scores: Float32Array }> {
  const acc = new TopKAccumulator(1, k);
  if (queryItems.length > 0 && k > 0) {
    const dim = blocks.dim;
    const q = new Float32Array(queryItems.length * dim);
    queryItems.forEach((v, i) => {
      if (v.length !== dim) throw new Error(`queryFacetTopK: vector of length ${v.length}, expected ${dim}`);
      q.set(v, i * dim);
    });
    const side: BlockSide = { itemsPerPaper: queryItems.length, numPapers: 1, data: q };
    for (const t of blocks.chunks) {
      const kRow = Math.min(k + 1, t.numPapers);
      const r = await engine.block(side, t, dim, kRow, 0, true);
      for (let m = 0; m < kRow; m++) {
        const dst = t.papers[r.rowIdx[m]];
        if (dst === exclude) continue;
        if (!acc.offer(0, dst, r.rowVals[m])) break;
      }
    }
  }
  const res = acc.finish();
  return { targets: res.targets, scores: res.scores };
}

/**
 * First-hop edges of an out-of-corpus query for the dense-graph walk (`walkFacet` start): the
 * top-k corpus papers by s, weighted α·s. The query has no co-citations and no corpus maxima
 * of its own, so the citation term is 0, as for unlinked pairs inside the corpus.
 */
export async function ephemeralEdges(
  engine: MaxSimEngine,
  blocks: FacetBlocks,
  queryItems: readonly Float32Array[],
  options: { k?: number; alpha?: number; exclude?: number } = {},
): Promise<{ targets: Int32Array; weights: Float32Array; exclude: number }> {
  const alpha = options.alpha ?? DEFAULT_EDGE_WEIGHT.alpha;
  const exclude = options.exclude ?? -1;
  const { targets, scores } = await queryFacetTopK(engine, blocks, queryItems, options.k ?? 20, exclude);
  return { targets, weights: scores.map((s) => alpha * s), exclude };
}

/** An unseen paper's items in one facet: unit embedding vectors and TF-IDF vectors, aligned. */
export interface QueryFacetItems {
  vectors: readonly Float32Array[];
  lexical: readonly SparseVector[];
}

/**
 * Top-k corpus papers by s_mix for one unseen paper (ephemeral insertion under a mix build):
 * the `candidates` best by s_cos and by s_lex, scored exactly with both. `exclude` is never
 * returned.
 */
export async function mixedQueryTopK(
  engine: MaxSimEngine,
  blocks: FacetBlocks,
  dense: PackedFacetItems,
  index: LexicalIndex,
  query: QueryFacetItems,
  options: { k: number; lexicalWeight: number; candidates?: number; exclude?: number },
): Promise<{ targets: Int32Array; scores: Float32Array }> {
  const wide = options.candidates ?? MIX_CANDIDATES;
  const exclude = options.exclude ?? -1;
  const cos = query.vectors.length > 0 ? await queryFacetTopK(engine, blocks, query.vectors, wide, exclude) : { targets: new Int32Array(0), scores: new Float32Array(0) };
  const lex = index.queryTopK(query.lexical, wide, exclude);
  const sCos = new Map<number, number>();
  cos.targets.forEach((b, i) => sCos.set(b, cos.scores[i]));
  for (const b of lex.targets) if (!sCos.has(b)) sCos.set(b, query.vectors.length > 0 ? maxSimFacetScore(query.vectors, itemsOfPaper(dense, b)) : 0);
  const sLex = new Map<number, number>();
  lex.targets.forEach((b, i) => sLex.set(b, lex.scores[i]));
  const scored = [...sCos].map(([b, c]) => [b, mixScore(options.lexicalWeight, c, sLex.get(b) ?? index.queryPairScore(query.lexical, b))] as const);
  scored.sort((x, y) => y[1] - x[1] || x[0] - y[0]);
  const top = scored.slice(0, options.k);
  return { targets: Int32Array.from(top, (t) => t[0]), scores: Float32Array.from(top, (t) => t[1]) };
}

/** Plain-JS reference: scores each paper against all others with maxSimOneToMany. O(N²) per facet. */
export function bruteForceFacetTopK(items: PackedFacetItems, k: number): RankedNeighbours {
  const n = numPapersOf(items);
  const acc = new TopKAccumulator(n, k);
  const rows: Float32Array[] = [];
  for (let p = 0; p < n; p++) {
    const a = items.offsets[p];
    const b = items.offsets[p + 1];
    if (a === b) continue;
    for (let r = a; r < b; r++) rows.push(items.data.subarray(r * items.dim, (r + 1) * items.dim));
    const scores = maxSimOneToMany(rows, items);
    rows.length = 0;
    for (let t = 0; t < n; t++) {
      if (t !== p && items.offsets[t + 1] > items.offsets[t]) acc.offer(p, t, scores[t]);
    }
  }
  return acc.finish();
}

// ---------------------------------------------------------------------------------------------
// Edges: top-k by w from the two lists.

export interface FacetEdgeOptions extends Partial<EdgeWeightParams> {
  k: number;
}

/**
 * One facet's pruned top-k edges as a CSR, rows ranked by w = α s + β c (ties: lower target
 * first), from the facet-score list and the linked list of `facetTopK` (see the header for why
 * this is exact). α and β must be the ones the linked list was ranked with.
 */
export function buildFacetEdges(result: Pick<FacetTopK, "neighbours" | "linked">, options: FacetEdgeOptions): FacetCsr {
  const { k } = options;
  const alpha = options.alpha ?? DEFAULT_EDGE_WEIGHT.alpha;
  const { neighbours: cand, linked } = result;
  const n = cand.numPapers;
  if (cand.k < k || (linked && linked.k < k)) throw new Error(`buildFacetEdges: lists hold fewer than k = ${k} per paper`);
  if (linked && (linked.numPapers !== n || linked.auxWidth !== 2)) throw new Error("buildFacetEdges: linked list does not match");
  const offsets = new Int32Array(n + 1);
  const targets = new Int32Array(n * k);
  const weights = new Float32Array(n * k);
  const facetScores = new Float32Array(n * k);
  const citationScores = new Float32Array(n * k);
  const stamp = new Int32Array(n).fill(-1);
  const sOf = new Float32Array(n);
  const cOf = new Float32Array(n);
  const wOf = new Float64Array(n);
  const pool: number[] = [];
  for (let a = 0; a < n; a++) {
    pool.length = 0;
    if (linked) {
      for (let e = linked.offsets[a]; e < linked.offsets[a + 1]; e++) {
        const b = linked.targets[e];
        stamp[b] = a;
        wOf[b] = linked.scores[e];
        sOf[b] = linked.aux[2 * e];
        cOf[b] = linked.aux[2 * e + 1];
        pool.push(b);
      }
    }
    for (let e = cand.offsets[a]; e < cand.offsets[a + 1]; e++) {
      const b = cand.targets[e];
      if (stamp[b] === a) continue;
      sOf[b] = cand.scores[e];
      cOf[b] = 0;
      wOf[b] = alpha * sOf[b];
      pool.push(b);
    }
    pool.sort((x, y) => wOf[y] - wOf[x] || x - y);
    let e = offsets[a];
    for (let i = 0; i < Math.min(k, pool.length); i++, e++) {
      const b = pool[i];
      targets[e] = b;
      weights[e] = wOf[b];
      facetScores[e] = sOf[b];
      citationScores[e] = cOf[b];
    }
    offsets[a + 1] = e;
  }
  const nnz = offsets[n];
  return {
    numPapers: n,
    offsets,
    targets: targets.slice(0, nnz),
    weights: weights.slice(0, nnz),
    facetScores: facetScores.slice(0, nnz),
    citationScores: citationScores.slice(0, nnz),
  };
}

// ---------------------------------------------------------------------------------------------
// Whole typed graph.

export interface PaperGraphBuildOptions extends Partial<EdgeWeightParams> {
  /** Edges kept per paper per facet (the paper's K = 20). */
  k?: number;
  chunkItems?: number;
  threads?: number;
  onProgress?: (facet: Facet, done: number, total: number) => void;
  /**
   * Ranks one facet's edges from the kernel's lists instead of buildFacetEdges (a build whose
   * s_f is not the plain cosine max-sim rescores the candidates, see similarity.ts).
   */
  rankEdges?: (facet: Facet, lists: FacetTopK, k: number) => FacetCsr;
}

export interface FacetBuildReport {
  facet: Facet;
  papers: number;
  items: number;
  kernel: KernelStats;
  /** Seconds spent ranking the two lists into edges. */
  edgeSeconds: number;
  edges: number;
}

/**
 * Builds the typed graph: per facet, the exact lists on onnxruntime, then the top-k edges by
 * edge weight. `citations` null gives a facet-similarity-only graph (c = 0 everywhere).
 */
export async function buildPaperGraph(
  facetItems: Partial<Record<Facet, PackedFacetItems>>,
  citations: CitationRows | null,
  options: PaperGraphBuildOptions = {},
): Promise<{ graph: PaperGraph; facets: FacetBuildReport[] }> {
  const k = options.k ?? 20;
  const entries = FACETS.filter((f) => facetItems[f] !== undefined).map((f) => [f, facetItems[f] as PackedFacetItems] as const);
  if (entries.length === 0) throw new Error("buildPaperGraph: no facets given");
  const numPapers = numPapersOf(entries[0][1]);
  const engine = await MaxSimEngine.create({ threads: options.threads });
  const facets: Partial<Record<Facet, FacetCsr>> = {};
  const reports: FacetBuildReport[] = [];
  try {
    for (const [facet, items] of entries) {
      if (numPapersOf(items) !== numPapers) throw new Error(`buildPaperGraph: facet ${facet} has a different paper count`);
      const blocks = prepareFacetBlocks(items, options.chunkItems);
      const lists = await facetTopKOnBlocks(blocks, engine, {
        k,
        citations,
        alpha: options.alpha,
        beta: options.beta,
        onProgress: (d, t) => options.onProgress?.(facet, d, t),
      });
      const t0 = performance.now();
      const csr = options.rankEdges ? options.rankEdges(facet, lists, k) : buildFacetEdges(lists, { k, alpha: options.alpha });
      facets[facet] = csr;
      reports.push({ facet, papers: numPapers, items: items.offsets[numPapers], kernel: lists.stats, edgeSeconds: (performance.now() - t0) / 1000, edges: csr.targets.length });
    }
  } finally {
    await engine.release();
  }
  return { graph: { numPapers, k, facets }, facets: reports };
}
