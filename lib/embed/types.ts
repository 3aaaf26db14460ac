/**
 * A text embedder: maps facet items (short sentences) to L2-normalised vectors, so cosine
 * similarity is a dot product (lib/graph/maxsim.ts assumes unit rows).
 */
export interface Embedder {
  /**
   * Stable identity of the model and its settings, e.g. "use-lite@0.2.0" or
   * "minilm:Xenova/all-MiniLM-L12-v2". It goes into build manifests and cache keys, so it must
   * change whenever the vectors would.
   */
  readonly id: string;
  /** Length of every vector. */
  readonly dim: number;
  /** One unit-length vector per text, in input order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Releases models, sessions or worker processes. */
  close?(): Promise<void>;
}

/** Scales each vector to unit L2 norm in place (zero vectors are left as they are). */
export function normaliseRows(rows: Float32Array[]): Float32Array[] {
  for (const v of rows) {
    let ss = 0;
    for (let i = 0; i < v.length; i++) ss += v[i] * v[i];
    if (ss > 0) {
      const inv = 1 / Math.sqrt(ss);
      for (let i = 0; i < v.length; i++) v[i] *= inv;
    }
  }
  return rows;
}

/** Cosine of two unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
