/**
 * Facet score s_f(A, B): the symmetric, item-count-normalised maximum similarity of the
 * paper's appendix "Edge Construction and Weight Selection" (eqn:maxsim),
 *
 *   s_f(A,B) = 1/2 ( 1/|A| Σ_i max_j cos(a_i, b_j) + 1/|B| Σ_j max_i cos(a_i, b_j) ),
 *
 * "then rescaled to [0,1]". The paper does not spell out the rescaling; we use the affine map
 * of the cosine range, (s + 1) / 2, because it is corpus-independent: a min-max rescale would
 * change every score whenever the corpus changes and would make an ephemerally inserted query
 * (appendix "Ephemeral insertion") score on a different scale from indexed papers.
 *
 * All vectors are assumed L2-normalised (cosine = dot product); `l2Normalise` is provided for
 * callers whose embedder does not normalise. Papers with no item in a facet have no facet
 * evidence: their score is 0 (the lowest value of the rescaled range).
 */

/** Items of one facet for a whole corpus, packed row-major: paper p owns rows offsets[p]..offsets[p+1]. */
export interface PackedFacetItems {
  readonly dim: number;
  /** Length numPapers + 1, non-decreasing, offsets[0] = 0. */
  readonly offsets: Int32Array;
  /** offsets[numPapers] × dim floats, each row L2-normalised. */
  readonly data: Float32Array;
}

/** Maps a cosine-range score in [-1, 1] to [0, 1]. */
export function rescaleCosine(x: number): number {
  return (x + 1) / 2;
}

/** Scales a vector to unit L2 norm in place (zero vectors are left as they are) and returns it. */
export function l2Normalise(v: Float32Array): Float32Array {
  let ss = 0;
  for (let i = 0; i < v.length; i++) ss += v[i] * v[i];
  if (ss > 0) {
    const inv = 1 / Math.sqrt(ss);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
  }
  return v;
}

function dot(a: Float32Array, aOff: number, b: Float32Array, bOff: number, dim: number): number {
  // Four independent sums let V8 overlap the multiply-adds (about 2× over one accumulator).
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let k = 0;
  for (; k + 3 < dim; k += 4) {
    s0 += a[aOff + k] * b[bOff + k];
    s1 += a[aOff + k + 1] * b[bOff + k + 1];
    s2 += a[aOff + k + 2] * b[bOff + k + 2];
    s3 += a[aOff + k + 3] * b[bOff + k + 3];
  }
  for (; k < dim; k++) s0 += a[aOff + k] * b[bOff + k];
  return s0 + s1 + s2 + s3;
}

/**
 * Max-sim between item rows [a0, a1) of `aData` and [b0, b1) of `bData`, before rescaling.
 * Returns NaN when either side is empty so callers can apply their own empty-facet rule.
 */
function maxSimRawRows(aData: Float32Array, a0: number, a1: number, bData: Float32Array, b0: number, b1: number, dim: number, colMax: Float64Array): number {
  const na = a1 - a0;
  const nb = b1 - b0;
  if (na === 0 || nb === 0) return NaN;
  colMax.fill(-Infinity, 0, nb);
  let rowSum = 0;
  for (let i = a0; i < a1; i++) {
    let rowMax = -Infinity;
    for (let j = b0; j < b1; j++) {
      const c = dot(aData, i * dim, bData, j * dim, dim);
      if (c > rowMax) rowMax = c;
      if (c > colMax[j - b0]) colMax[j - b0] = c;
    }
    rowSum += rowMax;
  }
  let colSum = 0;
  for (let j = 0; j < nb; j++) colSum += colMax[j];
  return 0.5 * (rowSum / na + colSum / nb);
}

function checkDims(vs: readonly Float32Array[], dim: number): void {
  for (const v of vs) {
    if (v.length !== dim) throw new Error(`maxsim: vector of length ${v.length}, expected ${dim}`);
  }
}

/** Packs one paper's item vectors into a single row-major buffer. */
function packRows(items: readonly Float32Array[], dim: number): Float32Array {
  const out = new Float32Array(items.length * dim);
  items.forEach((v, i) => out.set(v, i * dim));
  return out;
}

/** Facet score s_f(A, B) in [0, 1] of two papers given their item vectors in one facet. */
export function maxSimFacetScore(a: readonly Float32Array[], b: readonly Float32Array[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const dim = a[0].length;
  checkDims(a, dim);
  checkDims(b, dim);
  const raw = maxSimRawRows(packRows(a, dim), 0, a.length, packRows(b, dim), 0, b.length, dim, new Float64Array(b.length));
  return rescaleCosine(raw);
}

/** Packs per-paper item lists (papers × items × dim) into the layout the batched scorers use. */
export function packFacetItems(perPaper: readonly (readonly Float32Array[])[], dim?: number): PackedFacetItems {
  const d = dim ?? perPaper.find((p) => p.length > 0)?.[0].length;
  if (d === undefined) throw new Error("packFacetItems: no items and no dim given");
  const offsets = new Int32Array(perPaper.length + 1);
  for (let p = 0; p < perPaper.length; p++) offsets[p + 1] = offsets[p] + perPaper[p].length;
  const data = new Float32Array(offsets[perPaper.length] * d);
  for (let p = 0; p < perPaper.length; p++) {
    checkDims(perPaper[p], d);
    perPaper[p].forEach((v, i) => data.set(v, (offsets[p] + i) * d));
  }
  return { dim: d, offsets, data };
}

export function numPapersOf(items: PackedFacetItems): number {
  return items.offsets.length - 1;
}

function maxItemsOf(items: PackedFacetItems): number {
  let m = 0;
  for (let p = 0; p < items.offsets.length - 1; p++) m = Math.max(m, items.offsets[p + 1] - items.offsets[p]);
  return m;
}

/** A reusable scorer s_f(a, b) for papers of one packed corpus (scratch allocated once). */
export function pairScorer(items: PackedFacetItems): (a: number, b: number) => number {
  const { dim, offsets, data } = items;
  const colMax = new Float64Array(Math.max(1, maxItemsOf(items)));
  return (a, b) => {
    const raw = maxSimRawRows(data, offsets[a], offsets[a + 1], data, offsets[b], offsets[b + 1], dim, colMax);
    return Number.isNaN(raw) ? 0 : rescaleCosine(raw);
  };
}

/**
 * Batched form for sparse pairs: s_f(sources[e], targets[e]) for every e.
 */
export function maxSimPairs(items: PackedFacetItems, sources: ArrayLike<number>, targets: ArrayLike<number>): Float32Array {
  if (sources.length !== targets.length) throw new Error("maxSimPairs: sources and targets differ in length");
  const score = pairScorer(items);
  const out = new Float32Array(sources.length);
  for (let e = 0; e < sources.length; e++) out[e] = score(sources[e], targets[e]);
  return out;
}

/**
 * Batched form for one query against the whole corpus: the query's items are scored against
 * every corpus item once and reduced per paper. This is the plain-JS reference for the blocked
 * onnxruntime all-pairs kernel in topk.ts, and works for an out-of-corpus query
 * (ephemeral insertion) as well as for an indexed paper.
 */
export function maxSimOneToMany(query: readonly Float32Array[], corpus: PackedFacetItems): Float32Array {
  const n = numPapersOf(corpus);
  const out = new Float32Array(n);
  if (query.length === 0) return out;
  const { dim, offsets, data } = corpus;
  checkDims(query, dim);
  const q = packRows(query, dim);
  const colMax = new Float64Array(Math.max(1, maxItemsOf(corpus)));
  for (let p = 0; p < n; p++) {
    const raw = maxSimRawRows(q, 0, query.length, data, offsets[p], offsets[p + 1], dim, colMax);
    out[p] = Number.isNaN(raw) ? 0 : rescaleCosine(raw);
  }
  return out;
}

/** Item vectors of paper p as views into the packed buffer (no copy). */
export function itemsOfPaper(items: PackedFacetItems, p: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let r = items.offsets[p]; r < items.offsets[p + 1]; r++) out.push(items.data.subarray(r * items.dim, (r + 1) * items.dim));
  return out;
}
