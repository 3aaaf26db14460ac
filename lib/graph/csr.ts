/**
 * Compact per-facet sparse adjacency of the typed paper graph (CSR), the "one lightweight sparse
 * adjacency matrix per facet" that graph-RRF reads edge weights from. Rows hold a paper's pruned
 * top-K neighbours ranked by edge weight (best first), so a neighbour lookup is O(degree) and a
 * walk can take the first `fanout` entries as the top-`fanout` edges.
 *
 * Binary file (all little-endian, every section 4-byte aligned so arrays can be viewed in place):
 *   magic "GRAFTCSR" (8 bytes) | version u32 | numPapers u32 | numFacets u32 | k u32
 *   per facet: nameLength u32 | name (UTF-8, zero-padded to 4) | nnz u32 |
 *              offsets i32[numPapers+1] | targets i32[nnz] | weights f32[nnz] |
 *              facetScores f32[nnz] | citationScores f32[nnz]
 */
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "@/lib/atomic-write";
import { endianness } from "node:os";
import { FACETS, type Facet } from "@/lib/corpus";

export interface FacetCsr {
  readonly numPapers: number;
  /** Length numPapers + 1. */
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
  /** Edge weight w_f = α s_f + β c. */
  readonly weights: Float32Array;
  /** s_f in [0, 1]. */
  readonly facetScores: Float32Array;
  /** c in [0, 1]. */
  readonly citationScores: Float32Array;
}

export interface PaperGraph {
  readonly numPapers: number;
  /** The pruning level the rows were built with (rows may be shorter, never longer). */
  readonly k: number;
  readonly facets: Partial<Record<Facet, FacetCsr>>;
}

export interface Neighbours {
  readonly targets: Int32Array;
  readonly weights: Float32Array;
  readonly facetScores: Float32Array;
  readonly citationScores: Float32Array;
}

const MAGIC = "GRAFTCSR";
export const CSR_FILE_VERSION = 1;

export function degreeOf(csr: FacetCsr, paper: number): number {
  return csr.offsets[paper + 1] - csr.offsets[paper];
}

/** Views (no copy) on a paper's ranked row. */
export function neighboursOf(csr: FacetCsr, paper: number): Neighbours {
  const a = csr.offsets[paper];
  const b = csr.offsets[paper + 1];
  return {
    targets: csr.targets.subarray(a, b),
    weights: csr.weights.subarray(a, b),
    facetScores: csr.facetScores.subarray(a, b),
    citationScores: csr.citationScores.subarray(a, b),
  };
}

/** w_f(source, target) if target is among source's kept neighbours, else 0 (as graph-RRF needs). */
export function edgeWeightOf(csr: FacetCsr, source: number, target: number): number {
  for (let e = csr.offsets[source]; e < csr.offsets[source + 1]; e++) {
    if (csr.targets[e] === target) return csr.weights[e];
  }
  return 0;
}

/** Keeps the first k entries of every row: the top-k graph from one built at a larger K. */
export function pruneCsr(csr: FacetCsr, k: number): FacetCsr {
  const n = csr.numPapers;
  const offsets = new Int32Array(n + 1);
  for (let p = 0; p < n; p++) offsets[p + 1] = offsets[p] + Math.min(k, degreeOf(csr, p));
  const nnz = offsets[n];
  const out = {
    numPapers: n,
    offsets,
    targets: new Int32Array(nnz),
    weights: new Float32Array(nnz),
    facetScores: new Float32Array(nnz),
    citationScores: new Float32Array(nnz),
  };
  for (let p = 0; p < n; p++) {
    const from = csr.offsets[p];
    const len = offsets[p + 1] - offsets[p];
    for (const key of ["targets", "weights", "facetScores", "citationScores"] as const) {
      out[key].set(csr[key].subarray(from, from + len), offsets[p]);
    }
  }
  return out;
}

/** Throws on a structurally broken CSR (so a corrupt file fails at load, not mid-query). */
export function validateCsr(csr: FacetCsr): void {
  const { numPapers, offsets, targets } = csr;
  if (offsets.length !== numPapers + 1) throw new Error(`csr: offsets length ${offsets.length}, expected ${numPapers + 1}`);
  if (offsets[0] !== 0) throw new Error("csr: offsets[0] must be 0");
  for (let p = 0; p < numPapers; p++) {
    if (offsets[p + 1] < offsets[p]) throw new Error(`csr: offsets decrease at row ${p}`);
  }
  const nnz = offsets[numPapers];
  for (const [name, arr] of [
    ["targets", targets],
    ["weights", csr.weights],
    ["facetScores", csr.facetScores],
    ["citationScores", csr.citationScores],
  ] as const) {
    if (arr.length !== nnz) throw new Error(`csr: ${name} length ${arr.length}, expected ${nnz}`);
  }
  for (let e = 0; e < nnz; e++) {
    if (targets[e] < 0 || targets[e] >= numPapers) throw new Error(`csr: target ${targets[e]} out of range`);
  }
}

const LITTLE = endianness() === "LE";

/** Copies a 4-byte typed array's bytes into `out` at `pos` in little-endian order. */
function putArray(out: Uint8Array, pos: number, arr: Int32Array | Float32Array): number {
  const bytes = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
  out.set(bytes, pos);
  if (!LITTLE) for (let i = pos; i < pos + bytes.length; i += 4) out.subarray(i, i + 4).reverse();
  return pos + bytes.length;
}

/** Reads n 4-byte values: a zero-copy view when the host is little-endian and aligned, else a swapped copy. */
function takeArray<T extends Int32Array | Float32Array>(
  ctor: { new (buf: ArrayBufferLike, off: number, len: number): T; new (len: number): T },
  bytes: Uint8Array,
  pos: number,
  n: number,
): T {
  if (pos + n * 4 > bytes.length) throw new Error("csr file: truncated");
  const abs = bytes.byteOffset + pos;
  if (LITTLE && abs % 4 === 0) return new ctor(bytes.buffer, abs, n);
  const copy = bytes.slice(pos, pos + n * 4);
  if (!LITTLE) for (let i = 0; i < copy.length; i += 4) copy.subarray(i, i + 4).reverse();
  return new ctor(copy.buffer, 0, n);
}

const pad4 = (n: number): number => (n + 3) & ~3;

export function encodePaperGraph(graph: PaperGraph): Uint8Array {
  const entries = FACETS.filter((f) => graph.facets[f] !== undefined).map((f) => [f, graph.facets[f] as FacetCsr] as const);
  const enc = new TextEncoder();
  let size = 8 + 16;
  const names = entries.map(([f]) => enc.encode(f));
  entries.forEach(([, csr], i) => {
    validateCsr(csr);
    if (csr.numPapers !== graph.numPapers) throw new Error("csr: facet numPapers differs from graph numPapers");
    size += 4 + pad4(names[i].length) + 4 + 4 * (csr.numPapers + 1) + 16 * csr.targets.length;
  });
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(enc.encode(MAGIC), 0);
  view.setUint32(8, CSR_FILE_VERSION, true);
  view.setUint32(12, graph.numPapers, true);
  view.setUint32(16, entries.length, true);
  view.setUint32(20, graph.k, true);
  let pos = 24;
  entries.forEach(([, csr], i) => {
    view.setUint32(pos, names[i].length, true);
    out.set(names[i], pos + 4);
    pos += 4 + pad4(names[i].length);
    view.setUint32(pos, csr.targets.length, true);
    pos += 4;
    pos = putArray(out, pos, csr.offsets);
    pos = putArray(out, pos, csr.targets);
    pos = putArray(out, pos, csr.weights);
    pos = putArray(out, pos, csr.facetScores);
    pos = putArray(out, pos, csr.citationScores);
  });
  return out;
}

export function decodePaperGraph(bytes: Uint8Array): PaperGraph {
  if (bytes.length < 24 || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) throw new Error("csr file: bad magic");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== CSR_FILE_VERSION) throw new Error(`csr file: version ${version}, this build reads ${CSR_FILE_VERSION}`);
  const numPapers = view.getUint32(12, true);
  const numFacets = view.getUint32(16, true);
  const k = view.getUint32(20, true);
  const facets: Partial<Record<Facet, FacetCsr>> = {};
  let pos = 24;
  const dec = new TextDecoder();
  for (let i = 0; i < numFacets; i++) {
    if (pos + 4 > bytes.length) throw new Error("csr file: truncated");
    const nameLength = view.getUint32(pos, true);
    const name = dec.decode(bytes.subarray(pos + 4, pos + 4 + nameLength));
    if (!(FACETS as readonly string[]).includes(name)) throw new Error(`csr file: unknown facet "${name}"`);
    pos += 4 + pad4(nameLength);
    if (pos + 4 > bytes.length) throw new Error("csr file: truncated");
    const nnz = view.getUint32(pos, true);
    pos += 4;
    const offsets = takeArray(Int32Array, bytes, pos, numPapers + 1);
    pos += 4 * (numPapers + 1);
    const targets = takeArray(Int32Array, bytes, pos, nnz);
    pos += 4 * nnz;
    const weights = takeArray(Float32Array, bytes, pos, nnz);
    pos += 4 * nnz;
    const facetScores = takeArray(Float32Array, bytes, pos, nnz);
    pos += 4 * nnz;
    const citationScores = takeArray(Float32Array, bytes, pos, nnz);
    pos += 4 * nnz;
    const csr: FacetCsr = { numPapers, offsets, targets, weights, facetScores, citationScores };
    validateCsr(csr);
    facets[name as Facet] = csr;
  }
  if (pos !== bytes.length) throw new Error(`csr file: ${bytes.length - pos} trailing bytes`);
  return { numPapers, k, facets };
}

/** Writes through a temporary file and a rename, so a reader never sees a half-written graph. */
export function writePaperGraph(path: string, graph: PaperGraph): void {
  writeFileAtomic(path, encodePaperGraph(graph));
}

export function readPaperGraph(path: string): PaperGraph {
  return decodePaperGraph(readFileSync(path));
}

/**
 * A facet's top-k rows written paper by paper (the graph stage's edge assembly): each row takes
 * the first k of its candidate pool, sorted best first by w, with their w, s_f and c.
 */
export class FacetRowWriter {
  private readonly offsets: Int32Array;
  private readonly targets: Int32Array;
  private readonly weights: Float32Array;
  private readonly facetScores: Float32Array;
  private readonly citationScores: Float32Array;

  constructor(
    private readonly n: number,
    private readonly k: number,
  ) {
    this.offsets = new Int32Array(n + 1);
    this.targets = new Int32Array(n * k);
    this.weights = new Float32Array(n * k);
    this.facetScores = new Float32Array(n * k);
    this.citationScores = new Float32Array(n * k);
  }

  /** Row a (rows in order): `pool` sorted by w descending; w, s, c indexed by paper. */
  writeRow(a: number, pool: readonly number[], w: ArrayLike<number>, s: ArrayLike<number>, c: ArrayLike<number>): void {
    let e = this.offsets[a];
    for (let i = 0; i < Math.min(this.k, pool.length); i++, e++) {
      const b = pool[i];
      this.targets[e] = b;
      this.weights[e] = w[b];
      this.facetScores[e] = s[b];
      this.citationScores[e] = c[b];
    }
    this.offsets[a + 1] = e;
  }

  csr(): FacetCsr {
    const nnz = this.offsets[this.n];
    return {
      numPapers: this.n,
      offsets: this.offsets,
      targets: this.targets.slice(0, nnz),
      weights: this.weights.slice(0, nnz),
      facetScores: this.facetScores.slice(0, nnz),
      citationScores: this.citationScores.slice(0, nnz),
    };
  }
}
