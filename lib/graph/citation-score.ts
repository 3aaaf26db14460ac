/**
 * Citation score c(A,B) (appendix eqn:citation-score): bibliographic coupling x_bc (references
 * cited by both papers) and co-citation x_cc (corpus papers citing both), each log-compressed
 * and normalised by its largest value over all corpus pairs, then averaged:
 *
 *   c(A,B) = 1/2 ( log(1+x_bc)/log(1+max x_bc) + log(1+x_cc)/log(1+max x_cc) ).
 *
 * Everything works from adjacency lists (Gustavson-style sparse products with a dense
 * accumulator per row), so cost is Σ over shared works of (citers × citers), never N².
 *
 * Reference ids: an id in [0, numPapers) is a corpus paper; any other non-negative integer is
 * an external work (it counts for coupling only, since only corpus papers are known citers).
 */

export interface CitationIndex {
  readonly numPapers: number;
  /** Corpus papers plus distinct external works. */
  readonly numWorks: number;
  /** paper → works it cites (deduplicated, sorted, self-citations dropped). */
  readonly refOffsets: Int32Array;
  readonly refs: Int32Array;
  /** work → corpus papers citing it (sorted). */
  readonly citerOffsets: Int32Array;
  readonly citers: Int32Array;
}

export interface CitationCounts {
  /** Bibliographic coupling: references shared by both papers. */
  bc: number;
  /** Co-citation: corpus papers citing both. */
  cc: number;
}

export interface CitationMaxima {
  maxBc: number;
  maxCc: number;
}

/** All citation-linked pairs (x_bc > 0 or x_cc > 0), both directions, rows sorted by target. */
export interface CitationScores extends CitationMaxima {
  readonly numPapers: number;
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
  readonly bc: Int32Array;
  readonly cc: Int32Array;
  readonly scores: Float32Array;
}

export function buildCitationIndex(references: readonly ArrayLike<number>[]): CitationIndex {
  const numPapers = references.length;
  // Compact external ids after the corpus ids so every work has a dense index.
  const external = new Map<number, number>();
  const refOffsets = new Int32Array(numPapers + 1);
  const rows: Int32Array[] = [];
  for (let p = 0; p < numPapers; p++) {
    const src = references[p];
    const row = new Int32Array(src.length);
    let n = 0;
    for (let i = 0; i < src.length; i++) {
      const id = src[i];
      if (!Number.isInteger(id) || id < 0) throw new Error(`citation: paper ${p} has invalid reference id ${id}`);
      if (id === p) continue;
      let w = id;
      if (id >= numPapers) {
        let e = external.get(id);
        if (e === undefined) {
          e = numPapers + external.size;
          external.set(id, e);
        }
        w = e;
      }
      row[n++] = w;
    }
    const sorted = row.subarray(0, n).sort();
    let m = 0;
    for (let i = 0; i < n; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[m++] = sorted[i];
    rows.push(sorted.subarray(0, m));
    refOffsets[p + 1] = refOffsets[p] + m;
  }
  const refs = new Int32Array(refOffsets[numPapers]);
  rows.forEach((r, p) => refs.set(r, refOffsets[p]));

  const numWorks = numPapers + external.size;
  const citerOffsets = new Int32Array(numWorks + 1);
  for (let i = 0; i < refs.length; i++) citerOffsets[refs[i] + 1]++;
  for (let w = 0; w < numWorks; w++) citerOffsets[w + 1] += citerOffsets[w];
  const fill = citerOffsets.slice(0, numWorks);
  const citers = new Int32Array(refs.length);
  // Papers are visited in increasing order, so each citer list comes out sorted.
  for (let p = 0; p < numPapers; p++) {
    for (let i = refOffsets[p]; i < refOffsets[p + 1]; i++) citers[fill[refs[i]]++] = p;
  }
  return { numPapers, numWorks, refOffsets, refs, citerOffsets, citers };
}

function intersectCount(a: Int32Array, a0: number, a1: number, b: Int32Array, b0: number, b1: number): number {
  let n = 0;
  while (a0 < a1 && b0 < b1) {
    if (a[a0] === b[b0]) {
      n++;
      a0++;
      b0++;
    } else if (a[a0] < b[b0]) a0++;
    else b0++;
  }
  return n;
}

/** Raw counts for one pair, by merging sorted adjacency lists. */
export function citationCounts(index: CitationIndex, a: number, b: number): CitationCounts {
  const { refOffsets: ro, refs, citerOffsets: co, citers } = index;
  return {
    bc: intersectCount(refs, ro[a], ro[a + 1], refs, ro[b], ro[b + 1]),
    cc: intersectCount(citers, co[a], co[a + 1], citers, co[b], co[b + 1]),
  };
}

function compressed(x: number, max: number): number {
  return max > 0 ? Math.log1p(x) / Math.log1p(max) : 0;
}

/** The equation itself; a corpus without any coupling (or co-citation) contributes 0 for that term. */
export function citationScore(counts: CitationCounts, maxima: CitationMaxima): number {
  return 0.5 * (compressed(counts.bc, maxima.maxBc) + compressed(counts.cc, maxima.maxCc));
}

/** Counts are small integers ≤ their maxima, so each term is a table lookup in bulk passes. */
function termTable(max: number): Float64Array {
  const t = new Float64Array(max + 1);
  for (let x = 0; x <= max; x++) t[x] = compressed(x, max);
  return t;
}

/** Growable Int32 buffer: the number of citation-linked pairs is unknown until computed. */
class IntBuffer {
  data = new Int32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  finish(): Int32Array {
    return this.data.slice(0, this.length);
  }
}

/**
 * Sparse accumulation of one row (Gustavson): every paper b ≠ a linked to a by coupling or
 * co-citation, with its counts. Scratch arrays are reused across rows, so a row costs
 * Σ over a's works of their citers (plus Σ over a's citers of their references), never N.
 */
class RowAccumulator {
  readonly bc: Int32Array;
  readonly cc: Int32Array;
  private readonly seen: Uint8Array;
  /** Linked papers of the last row, sorted; valid up to `length`. */
  readonly touched: Int32Array;
  length = 0;

  constructor(private readonly index: CitationIndex) {
    const n = index.numPapers;
    this.bc = new Int32Array(n);
    this.cc = new Int32Array(n);
    this.seen = new Uint8Array(n);
    this.touched = new Int32Array(n);
  }

  /** Computes row a; call `clear()` once its values have been read. */
  compute(a: number): void {
    const { numPapers, refOffsets: ro, refs, citerOffsets: co, citers } = this.index;
    const { bc, cc, seen, touched } = this;
    let nt = 0;
    // Coupling: B shares reference X with A iff B is a citer of X.
    for (let i = ro[a]; i < ro[a + 1]; i++) {
      const x = refs[i];
      for (let j = co[x]; j < co[x + 1]; j++) {
        const b = citers[j];
        if (b === a) continue;
        if (!seen[b]) {
          seen[b] = 1;
          touched[nt++] = b;
        }
        bc[b]++;
      }
    }
    // Co-citation: Y cites A and B iff B is a corpus reference of a citer Y of A.
    for (let i = co[a]; i < co[a + 1]; i++) {
      const y = citers[i];
      for (let j = ro[y]; j < ro[y + 1]; j++) {
        const b = refs[j];
        if (b >= numPapers) break; // refs are sorted and external works sit after the corpus ids
        if (b === a) continue;
        if (!seen[b]) {
          seen[b] = 1;
          touched[nt++] = b;
        }
        cc[b]++;
      }
    }
    touched.subarray(0, nt).sort();
    this.length = nt;
  }

  clear(): void {
    for (let t = 0; t < this.length; t++) {
      const b = this.touched[t];
      this.bc[b] = 0;
      this.cc[b] = 0;
      this.seen[b] = 0;
    }
    this.length = 0;
  }
}

/**
 * Largest coupling and co-citation counts over all corpus pairs, and the number of linked
 * (directed) pairs: one streaming pass, O(N) memory.
 */
export function citationMaxima(index: CitationIndex): CitationMaxima & { linkedPairs: number } {
  const acc = new RowAccumulator(index);
  let maxBc = 0;
  let maxCc = 0;
  let linkedPairs = 0;
  for (let a = 0; a < index.numPapers; a++) {
    acc.compute(a);
    linkedPairs += acc.length;
    for (let t = 0; t < acc.length; t++) {
      const b = acc.touched[t];
      if (acc.bc[b] > maxBc) maxBc = acc.bc[b];
      if (acc.cc[b] > maxCc) maxCc = acc.cc[b];
    }
    acc.clear();
  }
  return { maxBc, maxCc, linkedPairs };
}

/** Paper a's citation-linked papers (sorted) and their scores c(a, ·). */
export interface CitationRow {
  readonly targets: Int32Array;
  readonly scores: Float32Array;
}

/** Row-by-row access to c, whether stored or computed on the fly. */
export interface CitationRows {
  readonly numPapers: number;
  /** The returned arrays may be reused by the next call. */
  row(a: number): CitationRow;
}

/**
 * Citation rows computed on demand: nothing is stored beyond the adjacency lists, which keeps
 * large corpora (where shared popular references link a sizeable share of all pairs) in O(N)
 * memory. Costs one pass for the maxima up front, then one row computation per call.
 */
export class CitationRowScanner implements CitationRows {
  readonly numPapers: number;
  readonly maxima: CitationMaxima;
  private readonly acc: RowAccumulator;
  private readonly bcTerm: Float64Array;
  private readonly ccTerm: Float64Array;
  private readonly targets: Int32Array;
  private readonly scores: Float32Array;

  constructor(
    readonly index: CitationIndex,
    maxima?: CitationMaxima,
  ) {
    this.numPapers = index.numPapers;
    this.maxima = maxima ?? citationMaxima(index);
    this.acc = new RowAccumulator(index);
    this.bcTerm = termTable(this.maxima.maxBc);
    this.ccTerm = termTable(this.maxima.maxCc);
    this.targets = new Int32Array(index.numPapers);
    this.scores = new Float32Array(index.numPapers);
  }

  row(a: number): CitationRow {
    const acc = this.acc;
    acc.compute(a);
    const n = acc.length;
    const { bcTerm, ccTerm } = this;
    for (let t = 0; t < n; t++) {
      const b = acc.touched[t];
      this.targets[t] = b;
      this.scores[t] = 0.5 * (bcTerm[acc.bc[b]] + ccTerm[acc.cc[b]]);
    }
    acc.clear();
    return { targets: this.targets.subarray(0, n), scores: this.scores.subarray(0, n) };
  }
}

/** Counts and scores for every citation-linked pair of the corpus, stored (self-pairs excluded). */
export function citationScores(input: CitationIndex | readonly ArrayLike<number>[]): CitationScores {
  const index = "refOffsets" in input ? input : buildCitationIndex(input);
  const { numPapers } = index;
  const acc = new RowAccumulator(index);
  const offsets = new Int32Array(numPapers + 1);
  const targets = new IntBuffer();
  const bcOut = new IntBuffer();
  const ccOut = new IntBuffer();
  let maxBc = 0;
  let maxCc = 0;
  for (let a = 0; a < numPapers; a++) {
    acc.compute(a);
    for (let t = 0; t < acc.length; t++) {
      const b = acc.touched[t];
      targets.push(b);
      bcOut.push(acc.bc[b]);
      ccOut.push(acc.cc[b]);
      if (acc.bc[b] > maxBc) maxBc = acc.bc[b];
      if (acc.cc[b] > maxCc) maxCc = acc.cc[b];
    }
    offsets[a + 1] = offsets[a] + acc.length;
    acc.clear();
  }
  const bc = bcOut.finish();
  const cc = ccOut.finish();
  const scores = new Float32Array(bc.length);
  const bcTerm = termTable(maxBc);
  const ccTerm = termTable(maxCc);
  for (let e = 0; e < bc.length; e++) scores[e] = 0.5 * (bcTerm[bc[e]] + ccTerm[cc[e]]);
  return { numPapers, offsets, targets: targets.finish(), bc, cc, scores, maxBc, maxCc };
}

/** Row access over stored scores (views, no copy). */
export function storedCitationRows(scores: CitationScores): CitationRows {
  return {
    numPapers: scores.numPapers,
    row: (a) => ({
      targets: scores.targets.subarray(scores.offsets[a], scores.offsets[a + 1]),
      scores: scores.scores.subarray(scores.offsets[a], scores.offsets[a + 1]),
    }),
  };
}

/** c(a, b) read from the precomputed sparse scores (binary search in a's row); 0 when unlinked. */
export function citationScoreOf(scores: CitationScores, a: number, b: number): number {
  let lo = scores.offsets[a];
  let hi = scores.offsets[a + 1] - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = scores.targets[mid];
    if (t === b) return scores.scores[mid];
    if (t < b) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

/**
 * Citation rows for the graph build: stored when the linked pairs fit `maxStoredPairs`
 * (8 bytes each, default 64M = 512 MB; the four facets then share one computation), streamed
 * (recomputed per facet, O(N) memory) otherwise.
 */
export function citationRows(
  input: CitationIndex | readonly ArrayLike<number>[],
  options: { maxStoredPairs?: number } = {},
): CitationRows & { readonly stored: boolean; readonly maxima: CitationMaxima; readonly linkedPairs: number } {
  const index = "refOffsets" in input ? input : buildCitationIndex(input);
  const stats = citationMaxima(index);
  const maxima = { maxBc: stats.maxBc, maxCc: stats.maxCc };
  if (stats.linkedPairs <= (options.maxStoredPairs ?? 64_000_000)) {
    // Sizes are known from the maxima pass, so the second pass fills exact-size arrays.
    const n = index.numPapers;
    const offsets = new Int32Array(n + 1);
    const targets = new Int32Array(stats.linkedPairs);
    const scores = new Float32Array(stats.linkedPairs);
    const bcTerm = termTable(maxima.maxBc);
    const ccTerm = termTable(maxima.maxCc);
    const acc = new RowAccumulator(index);
    for (let a = 0; a < n; a++) {
      acc.compute(a);
      let e = offsets[a];
      for (let t = 0; t < acc.length; t++, e++) {
        const b = acc.touched[t];
        targets[e] = b;
        scores[e] = 0.5 * (bcTerm[acc.bc[b]] + ccTerm[acc.cc[b]]);
      }
      offsets[a + 1] = e;
      acc.clear();
    }
    const row = (a: number): CitationRow => ({ targets: targets.subarray(offsets[a], offsets[a + 1]), scores: scores.subarray(offsets[a], offsets[a + 1]) });
    return { numPapers: n, row, stored: true, maxima, linkedPairs: stats.linkedPairs };
  }
  const scanner = new CitationRowScanner(index, maxima);
  return { numPapers: index.numPapers, row: (a) => scanner.row(a), stored: false, maxima, linkedPairs: stats.linkedPairs };
}
