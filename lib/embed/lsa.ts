/**
 * LSA: a fast offline item encoder fitted on a corpus's own text (issue 18, cold embedding at
 * 64k papers). TF-IDF over the fitting documents (titles + abstracts), reduced by a truncated
 * SVD computed with a seeded randomized range finder (Halko, Martinsson & Tropp 2011):
 *
 *   Y = Aᵀ Ω,  then q times Y ← Aᵀ (A Y), each Y orthonormalised;  B = A Q;  BᵀB = W Σ² Wᵀ;
 *   projection P = Q W  (vocabulary × dims: the top right singular vectors of A).
 *
 * A text is embedded as the L2-normalised projection x P of its TF-IDF vector x, a few
 * multiply-adds per term: thousands of items per second on one core, against ≈ 105/s for
 * USE-lite. Terms the model never saw are ignored; a text with no known term gets the zero
 * vector (cosine 0 to everything), which `normaliseRows` leaves as it is.
 *
 * Model folder (written atomically, model.json last, as the commit record):
 *   projection.f32  vocabulary × dims float32, little-endian, row-major
 *   model.json      {format, version, scheme, dims, docs, seed, vocabulary, idf, projectionSha256, fingerprint}
 * or, with `"projectionFormat": "int8"` in model.json (a quarter of the size, for a model that
 * ships in the repository), in place of projection.f32:
 *   projection.i8   vocabulary × dims int8, row-major
 *   scales.f32      one float32 per vocabulary row: its max |value| / 127 (symmetric)
 * and projectionSha256 hashing projection.i8 then scales.f32. Loading dequantises (q × scale), so
 * the embedder reads a Float32Array either way. The fingerprint (a hash of the model as loaded)
 * is part of the embedder id, so a refitted or quantised model gets its own vector cache and a
 * build records which model it used.
 *
 * Dense linear algebra (no npm package for it is installed here): Gram-matrix orthonormalisation
 * applied twice (CholeskyQR2-like, via a symmetric eigensolver) and a cyclic Jacobi eigensolver,
 * in float64.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "@/lib/atomic-write";
import { CodedError } from "@/lib/errors";
import { mulberry32 } from "@/lib/random";
import type { Embedder } from "./types";
import { lsaTerms, smoothIdf, sublinearTf } from "@/lib/text/analyzer";

export const LSA_FORMAT = "graft-lsa";
export const LSA_VERSION = 1;
/** Tokenisation (lsaTerms of lib/text/analyzer) and weighting; stored with the model so it is read the way it was made. */
export const LSA_SCHEME = "lsa-tokens-1";
const MODEL_FILE = "model.json";
const PROJECTION_FILE = "projection.f32";
const INT8_FILE = "projection.i8";
const SCALES_FILE = "scales.f32";
export const PROJECTION_FORMATS = ["f32", "int8"] as const;
export type ProjectionFormat = (typeof PROJECTION_FORMATS)[number];
/** The files holding the projection in each format (the other format's are removed on save). */
const PROJECTION_FILES: Record<ProjectionFormat, string[]> = { f32: [PROJECTION_FILE], int8: [INT8_FILE, SCALES_FILE] };

export interface LsaModel {
  dims: number;
  /** Documents the model was fitted on. */
  docs: number;
  seed: number;
  vocabulary: string[];
  idf: Float32Array;
  /** vocabulary.length × dims, row-major. */
  projection: Float32Array;
  /** "contrastive": the projection was trained further (lib/embed/contrastive.ts); absent: plain LSA. */
  kind?: LsaKind;
  /** How a contrastive projection was trained (data, objective, chosen epoch), stored in model.json. */
  training?: Record<string, unknown>;
  /** How the folder stores the projection (absent: "f32"); "int8" is saved quantised. */
  projectionFormat?: ProjectionFormat;
}

export const LSA_KINDS = ["lsa", "contrastive"] as const;
export type LsaKind = (typeof LSA_KINDS)[number];

export interface FitLsaOptions {
  /** Latent dimensions (default 256). */
  dims?: number;
  /** Seed of the random test matrix Ω (default 0). */
  seed?: number;
  /** Keep terms in at least this many documents (default 2). */
  minDf?: number;
  /** Keep at most this many terms, the most frequent (default 50,000). */
  maxVocab?: number;
  /** Extra random directions beyond `dims` (default 16). */
  oversample?: number;
  /** Power iterations (default 2). */
  powerIterations?: number;
  onProgress?: (phase: string, done: number, total: number) => void;
}

/** Sparse documents × terms matrix, rows L2-normalised TF-IDF. */
interface Csr {
  rows: number;
  cols: number;
  offsets: Int32Array;
  cols_: Int32Array;
  values: Float64Array;
}

/** Fits the model: vocabulary and idf over `texts`, then the truncated SVD of their TF-IDF matrix. */
export function fitLsa(texts: readonly string[], options: FitLsaOptions = {}): LsaModel {
  const dims = options.dims ?? 256;
  const seed = options.seed ?? 0;
  const minDf = options.minDf ?? 2;
  const maxVocab = options.maxVocab ?? 50_000;
  const power = options.powerIterations ?? 2;
  const report = options.onProgress ?? (() => {});
  if (!Number.isInteger(dims) || dims < 1) throw new CodedError("invalid_request", `dims must be a positive integer, got ${dims}`);

  // ── vocabulary: provisional ids while tokenising, then the kept terms by df ──
  const provisional = new Map<string, number>();
  const df: number[] = [];
  const docTerms: Int32Array[] = [];
  for (let d = 0; d < texts.length; d++) {
    const seen = new Set<number>();
    const ids: number[] = [];
    for (const t of lsaTerms(texts[d])) {
      let id = provisional.get(t);
      if (id === undefined) {
        id = df.length;
        provisional.set(t, id);
        df.push(0);
      }
      ids.push(id);
      if (!seen.has(id)) {
        seen.add(id);
        df[id]++;
      }
    }
    docTerms.push(Int32Array.from(ids));
    if ((d + 1) % 5000 === 0) report("tokenise", d + 1, texts.length);
  }
  const terms = [...provisional.keys()];
  const kept = terms
    .map((t, id) => ({ t, id }))
    .filter(({ id }) => df[id] >= minDf)
    .sort((a, b) => df[b.id] - df[a.id] || (a.t < b.t ? -1 : a.t > b.t ? 1 : 0))
    .slice(0, maxVocab);
  const remap = new Int32Array(terms.length).fill(-1);
  kept.forEach(({ id }, i) => (remap[id] = i));
  const vocabulary = kept.map(({ t }) => t);
  const idf = Float32Array.from(kept, ({ id }) => smoothIdf(texts.length, df[id]));
  const maxRank = Math.min(texts.length, vocabulary.length);
  if (dims > maxRank) {
    throw new CodedError("invalid_request", `dims ${dims} exceeds what ${texts.length} documents with ${vocabulary.length} kept terms can give (${maxRank})`);
  }

  // ── the TF-IDF matrix ──
  const a = tfidfMatrix(docTerms, remap, idf);
  docTerms.length = 0;

  // ── randomized range finder over the term space ──
  const l = Math.min(dims + (options.oversample ?? 16), maxRank);
  const steps = power + 2;
  // Progress inside each long loop: the fit is synchronous, so a timer could not report it.
  const at = (step: number, what: string): Tick => {
    const phase = `svd ${step}/${steps} ${what}`;
    return (done, total) => report(phase, done, total);
  };
  const rnd = mulberry32(seed);
  const omega = new Float64Array(a.rows * l);
  for (let i = 0; i < omega.length; i++) omega[i] = gaussian(rnd);
  let y = multiplyTransposed(a, omega, l, at(1, "Aᵀ×Ω"));
  orthonormalise(y, a.cols, l, at(1, "orthonormalise"));
  for (let q = 0; q < power; q++) {
    y = multiplyTransposed(a, multiply(a, y, l, at(q + 2, "A×Q")), l, at(q + 2, "Aᵀ×(A×Q)"));
    orthonormalise(y, a.cols, l, at(q + 2, "orthonormalise"));
  }
  // Rayleigh–Ritz: B = A Q, BᵀB = W Σ² Wᵀ, right singular vectors Q W.
  const b = multiply(a, y, l, at(steps, "A×Q"));
  const { values, vectors } = symmetricEigen(gram(b, a.rows, l, at(steps, "BᵀB")), l);
  const order = [...values.keys()].sort((i, j) => values[j] - values[i]).slice(0, dims);
  const projection = new Float32Array(vocabulary.length * dims);
  for (let c = 0; c < dims; c++) {
    const w = order[c];
    // Column c of Q W, its sign fixed (largest entry positive) so a fit is reproducible.
    const col = new Float64Array(vocabulary.length);
    let big = 0;
    for (let r = 0; r < vocabulary.length; r++) {
      let s = 0;
      for (let k = 0; k < l; k++) s += y[r * l + k] * vectors[k * l + w];
      col[r] = s;
      if (Math.abs(s) > Math.abs(big)) big = s;
    }
    const sign = big < 0 ? -1 : 1;
    for (let r = 0; r < vocabulary.length; r++) projection[r * dims + c] = sign * col[r];
    if ((c + 1) % 32 === 0) report(`svd ${steps}/${steps} projection`, c + 1, dims);
  }
  return { dims, docs: texts.length, seed, vocabulary, idf, projection };
}

function tfidfMatrix(docTerms: Int32Array[], remap: Int32Array, idf: Float32Array): Csr {
  const offsets = new Int32Array(docTerms.length + 1);
  const colsOut: number[] = [];
  const valuesOut: number[] = [];
  const counts = new Map<number, number>();
  for (let d = 0; d < docTerms.length; d++) {
    counts.clear();
    for (const p of docTerms[d]) {
      const t = remap[p];
      if (t >= 0) counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    const ids = [...counts.keys()].sort((x, y) => x - y);
    let ss = 0;
    const start = valuesOut.length;
    for (const t of ids) {
      const v = sublinearTf(counts.get(t) as number) * idf[t];
      colsOut.push(t);
      valuesOut.push(v);
      ss += v * v;
    }
    if (ss > 0) for (let i = start; i < valuesOut.length; i++) valuesOut[i] /= Math.sqrt(ss);
    offsets[d + 1] = valuesOut.length;
  }
  return { rows: docTerms.length, cols: idf.length, offsets, cols_: Int32Array.from(colsOut), values: Float64Array.from(valuesOut) };
}

/** Progress of a loop over rows (called every few thousand rows). */
type Tick = (done: number, total: number) => void;
const TICK_ROWS = 4096;

/** Box–Muller normal draw from a uniform source. */
function gaussian(rnd: () => number): number {
  const u = 1 - rnd();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
}

/** A X: (rows × cols sparse) · (cols × l dense, row-major) → rows × l. */
function multiply(a: Csr, x: Float64Array, l: number, tick?: Tick): Float64Array {
  const out = new Float64Array(a.rows * l);
  for (let i = 0; i < a.rows; i++) {
    if (tick && i % TICK_ROWS === 0) tick(i, a.rows);
    const o = i * l;
    for (let p = a.offsets[i]; p < a.offsets[i + 1]; p++) {
      const v = a.values[p];
      const xo = a.cols_[p] * l;
      for (let k = 0; k < l; k++) out[o + k] += v * x[xo + k];
    }
  }
  return out;
}

/** Aᵀ X: (rows × cols sparse)ᵀ · (rows × l dense) → cols × l. */
function multiplyTransposed(a: Csr, x: Float64Array, l: number, tick?: Tick): Float64Array {
  const out = new Float64Array(a.cols * l);
  for (let i = 0; i < a.rows; i++) {
    if (tick && i % TICK_ROWS === 0) tick(i, a.rows);
    const xo = i * l;
    for (let p = a.offsets[i]; p < a.offsets[i + 1]; p++) {
      const v = a.values[p];
      const o = a.cols_[p] * l;
      for (let k = 0; k < l; k++) out[o + k] += v * x[xo + k];
    }
  }
  return out;
}

/** MᵀM of a rows × l row-major matrix (full symmetric l × l). */
function gram(m: Float64Array, rows: number, l: number, tick?: Tick): Float64Array {
  const g = new Float64Array(l * l);
  for (let r = 0; r < rows; r++) {
    if (tick && r % TICK_ROWS === 0) tick(r, rows);
    const o = r * l;
    for (let i = 0; i < l; i++) {
      const v = m[o + i];
      if (v === 0) continue;
      const gi = i * l;
      for (let j = i; j < l; j++) g[gi + j] += v * m[o + j];
    }
  }
  for (let i = 0; i < l; i++) for (let j = 0; j < i; j++) g[i * l + j] = g[j * l + i];
  return g;
}

/** Condition of MᵀM above which one pass leaves columns measurably non-orthogonal (≈ 1e-16 · κ). */
const SECOND_PASS_CONDITION = 1e6;

/** Orthonormalises columns in place: one pass, and a second when the first was ill-conditioned. */
function orthonormalise(m: Float64Array, rows: number, l: number, tick?: Tick): void {
  if (orthonormaliseColumns(m, rows, l, tick) > SECOND_PASS_CONDITION) orthonormaliseColumns(m, rows, l, tick);
}

/**
 * Orthonormalises the columns of a rows × l row-major matrix in place: with MᵀM = W Λ Wᵀ,
 * M ← M W Λ^(-1/2) (columns of a numerically null direction become zero). Returns the
 * condition number of MᵀM (Infinity when a direction was dropped): the Gram matrix squares it,
 * so the columns are orthonormal to about 1e-16 times it, and a second pass (starting from
 * nearly orthonormal columns) restores machine precision.
 */
export function orthonormaliseColumns(m: Float64Array, rows: number, l: number, tick?: Tick): number {
  const { values, vectors } = symmetricEigen(gram(m, rows, l, tick), l);
  const top = Math.max(0, ...values);
  const t = new Float64Array(l * l);
  for (let c = 0; c < l; c++) {
    if (!(values[c] > top * 1e-13) || values[c] <= 0) continue;
    const s = 1 / Math.sqrt(values[c]);
    for (let k = 0; k < l; k++) t[k * l + c] = vectors[k * l + c] * s;
  }
  const row = new Float64Array(l);
  for (let r = 0; r < rows; r++) {
    if (tick && r % TICK_ROWS === 0) tick(r, rows);
    const o = r * l;
    row.fill(0);
    for (let k = 0; k < l; k++) {
      const v = m[o + k];
      if (v === 0) continue;
      const tk = k * l;
      for (let c = 0; c < l; c++) row[c] += v * t[tk + c];
    }
    m.set(row, o);
  }
  let least = Infinity;
  for (const v of values) if (v > 0) least = Math.min(least, v);
  const dropped = values.some((v) => !(v > top * 1e-13));
  return dropped ? Infinity : top / least;
}

/**
 * Eigen-decomposition of a symmetric n × n matrix (row-major, destroyed) by cyclic Jacobi
 * rotations: `values[c]` with eigenvector column c of `vectors` (row-major n × n), unsorted.
 */
export function symmetricEigen(a: Float64Array, n: number, maxSweeps = 60): { values: Float64Array; vectors: Float64Array } {
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < maxSweeps; sweep++) {
    let off = 0;
    let diag = 0;
    for (let i = 0; i < n; i++) {
      diag += a[i * n + i] * a[i * n + i];
      for (let j = i + 1; j < n; j++) off += a[i * n + j] * a[i * n + j];
    }
    if (off <= 1e-30 * diag || off === 0) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q];
        if (apq === 0) continue;
        const app = a[p * n + p];
        const aqq = a[q * n + q];
        if (Math.abs(apq) < 1e-300 || Math.abs(apq) <= 1e-18 * Math.sqrt(Math.abs(app * aqq))) {
          a[p * n + q] = a[q * n + p] = 0;
          continue;
        }
        const theta = (aqq - app) / (2 * apq);
        const tan = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const cos = 1 / Math.sqrt(tan * tan + 1);
        const sin = tan * cos;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p];
          const akq = a[k * n + q];
          a[k * n + p] = cos * akp - sin * akq;
          a[k * n + q] = sin * akp + cos * akq;
        }
        const rp = p * n;
        const rq = q * n;
        for (let k = 0; k < n; k++) {
          const apk = a[rp + k];
          const aqk = a[rq + k];
          a[rp + k] = cos * apk - sin * aqk;
          a[rq + k] = sin * apk + cos * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p];
          const vkq = v[k * n + q];
          v[k * n + p] = cos * vkp - sin * vkq;
          v[k * n + q] = sin * vkp + cos * vkq;
        }
      }
    }
  }
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = a[i * n + i];
  return { values, vectors: v };
}

// ── model folder ──

const modelSchema = z.object({
  format: z.literal(LSA_FORMAT),
  version: z.literal(LSA_VERSION),
  scheme: z.literal(LSA_SCHEME),
  dims: z.number().int().positive(),
  docs: z.number().int().nonnegative(),
  seed: z.number().int(),
  vocabulary: z.array(z.string()),
  idf: z.array(z.number()),
  projectionSha256: z.string(),
  fingerprint: z.string(),
  kind: z.enum(LSA_KINDS).default("lsa"),
  training: z.record(z.string(), z.unknown()).optional(),
  projectionFormat: z.enum(PROJECTION_FORMATS).default("f32"),
});

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
const bytesOf = (a: Int8Array | Float32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** The model's identity: a hash of its vocabulary, idf and projection (12 hex digits). */
export function lsaFingerprint(model: LsaModel): string {
  // A plain LSA fit hashes as it always has, so the fingerprints recorded in builds stay valid.
  const kind = model.kind && model.kind !== "lsa" ? { kind: model.kind } : {};
  const head = JSON.stringify({ scheme: LSA_SCHEME, dims: model.dims, vocabulary: model.vocabulary, idf: Array.from(model.idf), ...kind });
  return sha256(`${sha256(head)}:${sha256(bytesOf(model.projection))}`).slice(0, 12);
}

/** int8 rows with one symmetric scale each: q = round(v / scale), scale = max |v| / 127. */
export interface QuantisedProjection {
  values: Int8Array;
  scales: Float32Array;
}

export function quantiseProjection(projection: Float32Array, dims: number): QuantisedProjection {
  const rows = projection.length / dims;
  const values = new Int8Array(projection.length);
  const scales = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    const o = r * dims;
    let max = 0;
    for (let k = 0; k < dims; k++) max = Math.max(max, Math.abs(projection[o + k]));
    scales[r] = max / 127;
    if (scales[r] === 0) continue; // an all-zero row stays zero
    for (let k = 0; k < dims; k++) values[o + k] = Math.max(-127, Math.min(127, Math.round(projection[o + k] / scales[r])));
  }
  return { values, scales };
}

export function dequantiseProjection({ values, scales }: QuantisedProjection, dims: number): Float32Array {
  const out = new Float32Array(values.length);
  for (let r = 0; r < scales.length; r++) {
    const o = r * dims;
    for (let k = 0; k < dims; k++) out[o + k] = values[o + k] * scales[r];
  }
  return out;
}

/**
 * The projection's files as saved, and the projection a load will give back (for int8 the
 * dequantised values, so the fingerprint written is that of the model as loaded).
 */
function projectionFiles(model: LsaModel, format: ProjectionFormat): { files: [string, Uint8Array][]; loaded: Float32Array } {
  if (format === "f32") return { files: [[PROJECTION_FILE, bytesOf(model.projection)]], loaded: model.projection };
  const q = quantiseProjection(model.projection, model.dims);
  return {
    files: [
      [INT8_FILE, bytesOf(q.values)],
      [SCALES_FILE, bytesOf(q.scales)],
    ],
    loaded: dequantiseProjection(q, model.dims),
  };
}

/** One hash over a format's files, in order (for f32: the hash of projection.f32, as always). */
function filesSha256(parts: Uint8Array[]): string {
  const hash = createHash("sha256");
  for (const p of parts) hash.update(p);
  return hash.digest("hex");
}

/**
 * Writes the model folder (created if needed) in `model.projectionFormat` (default f32):
 * projection files first, model.json last, then the other format's stale files are removed.
 * Returns its fingerprint.
 */
export function saveLsaModel(folder: string, model: LsaModel): string {
  mkdirSync(folder, { recursive: true });
  const format = model.projectionFormat ?? "f32";
  const { files, loaded } = projectionFiles(model, format);
  for (const [name, bytes] of files) writeFileAtomic(path.join(folder, name), bytes);
  const fingerprint = lsaFingerprint({ ...model, projection: loaded });
  const json = {
    format: LSA_FORMAT,
    version: LSA_VERSION,
    scheme: LSA_SCHEME,
    dims: model.dims,
    docs: model.docs,
    seed: model.seed,
    ...(format === "f32" ? {} : { projectionFormat: format }),
    projectionSha256: filesSha256(files.map(([, bytes]) => bytes)),
    fingerprint,
    kind: model.kind ?? "lsa",
    ...(model.training ? { training: model.training } : {}),
    vocabulary: model.vocabulary,
    idf: Array.from(model.idf),
  };
  writeFileAtomic(path.join(folder, MODEL_FILE), JSON.stringify(json));
  for (const other of PROJECTION_FORMATS.filter((f) => f !== format)) {
    for (const name of PROJECTION_FILES[other]) rmSync(path.join(folder, name), { force: true });
  }
  return fingerprint;
}

/** Reads the projection in the folder's format; refuses files that are missing, torn or not those model.json hashed. */
function readProjection(folder: string, format: ProjectionFormat, rows: number, dims: number, expectSha256: string): Float32Array {
  const names = PROJECTION_FILES[format];
  const sizes = format === "f32" ? [rows * dims * 4] : [rows * dims, rows * 4];
  const torn = (what: string) => new CodedError("conflict", `${folder}/${what} (interrupted write?): refit the model`);
  const bufs = names.map((name) => {
    const file = path.join(folder, name);
    if (!existsSync(file)) throw torn(`${name} is missing but ${MODEL_FILE} names it`);
    return readFileSync(file);
  });
  if (bufs.some((b, i) => b.byteLength !== sizes[i]) || filesSha256(bufs) !== expectSha256) throw torn(`${names.join(" + ")} does not match ${MODEL_FILE}`);
  if (format === "f32") {
    const projection = new Float32Array(rows * dims);
    bytesOf(projection).set(bufs[0]);
    return projection;
  }
  const values = new Int8Array(rows * dims);
  bytesOf(values).set(bufs[0]);
  const scales = new Float32Array(rows);
  bytesOf(scales).set(bufs[1]);
  return dequantiseProjection({ values, scales }, dims);
}

/** Reads a model folder written by saveLsaModel; refuses a torn or foreign one. */
export function loadLsaModel(folder: string): LsaModel & { fingerprint: string } {
  const file = path.join(folder, MODEL_FILE);
  if (!existsSync(file))
    throw new CodedError("not_ready", `No LSA model in ${folder} (missing ${MODEL_FILE}): run \`graft fit-encoder --out ${folder}\` first`);
  const parsed = modelSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new CodedError("invalid_request", `${file} is not a ${LSA_FORMAT} v${LSA_VERSION} model: ${parsed.error.issues[0]?.message}`);
  const m = parsed.data;
  const projection = readProjection(folder, m.projectionFormat, m.vocabulary.length, m.dims, m.projectionSha256);
  if (m.idf.length !== m.vocabulary.length) throw new CodedError("invalid_request", `${file}: idf and vocabulary differ in length`);
  return {
    dims: m.dims,
    docs: m.docs,
    seed: m.seed,
    vocabulary: m.vocabulary,
    idf: Float32Array.from(m.idf),
    projection,
    kind: m.kind,
    ...(m.training ? { training: m.training } : {}),
    projectionFormat: m.projectionFormat,
    fingerprint: m.fingerprint,
  };
}

// ── the embedder ──

/** The embedder id: a valid registry spec naming the folder and the model it must hold. */
export const lsaEmbedderId = (folder: string, fingerprint: string) => `lsa:${path.resolve(folder)};fp=${fingerprint}`;

export class LsaEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  private readonly termIds: Map<string, number>;

  constructor(
    private readonly model: LsaModel,
    id: string,
  ) {
    this.id = id;
    this.dim = model.dims;
    this.termIds = new Map(model.vocabulary.map((t, i) => [t, i]));
  }

  /**
   * A text's bag of words: known term ids with their weights, log tf × idf (the input of the
   * projection; also what the contrastive trainer is fed, so both read a text the same way).
   */
  termWeights(text: string): Map<number, number> {
    const counts = new Map<number, number>();
    for (const t of lsaTerms(text)) {
      const id = this.termIds.get(t);
      if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const [id, tf] of counts) counts.set(id, sublinearTf(tf) * this.model.idf[id]);
    return counts;
  }

  /** One text's unit vector (zero when it has no known term). */
  embedOne(text: string): Float32Array {
    const { dims, projection } = this.model;
    const acc = new Float64Array(dims);
    for (const [id, w] of this.termWeights(text)) {
      const o = id * dims;
      for (let k = 0; k < dims; k++) acc[k] += w * projection[o + k];
    }
    let ss = 0;
    for (let k = 0; k < dims; k++) ss += acc[k] * acc[k];
    const out = new Float32Array(dims);
    if (ss > 0) {
      const inv = 1 / Math.sqrt(ss);
      for (let k = 0; k < dims; k++) out[k] = acc[k] * inv;
    }
    return out;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }
}

/**
 * Loads the embedder of a model folder. `expectFingerprint` (from a recorded id) refuses a folder
 * that now holds another model, so a build never silently mixes two models' vectors.
 */
export function createLsaEmbedder(folder: string, expectFingerprint?: string): LsaEmbedder {
  const model = loadLsaModel(folder);
  if (expectFingerprint && expectFingerprint !== model.fingerprint) {
    throw new CodedError("conflict", `LSA model ${folder} is ${model.fingerprint}, not ${expectFingerprint} (refitted since?)`);
  }
  return new LsaEmbedder(model, lsaEmbedderId(folder, model.fingerprint));
}
