/**
 * Bounded best-K per paper: the heaps into which the top-K passes (topk.ts) and the lexical and
 * mixed candidate lists (lexical.ts, similarity.ts) merge their scores, and the ranked lists
 * they hand back.
 */

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
