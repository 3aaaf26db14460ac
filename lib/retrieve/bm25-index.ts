/**
 * Okapi BM25, the paper's lexical baseline ("BM25 over title and facets"). The paper lists
 * rank-bm25 0.2.2 among its packages, so the defaults reproduce its BM25Okapi:
 *   score(D, Q) = Σ_{t ∈ Q} idf(t) · tf(t,D)·(k1+1) / (tf(t,D) + k1·(1 − b + b·|D|/avgdl)),
 *   idf(t) = ln((N − n_t + 0.5) / (n_t + 0.5)), with a negative idf (term in over half the
 *   documents) replaced by ε·mean(idf), k1 = 1.5, b = 0.75, ε = 0.25.
 * A repeated query token counts once per occurrence, as there. idf: "lucene" gives the
 * non-negative ln(1 + (N − n + 0.5)/(n + 0.5)) instead.
 *
 * The index is an inverted file in CSR form (postings of doc ids and term frequencies in typed
 * arrays), and per-document length norms are precomputed, so a query touches only its postings.
 * Tokens and the idf formulas come from the text analyzer (lib/text/analyzer.ts).
 */

import { bm25Idf, luceneIdf, tokenize, type TokenDocs, type TokenizeOptions } from "@/lib/text";

/**
 * (term id, value) pairs in growable typed arrays: per-document postings before the transpose.
 * Values are float32: a term frequency (an integer) is exact, a TF-IDF weight is stored as float32
 * in the index anyway.
 */
export class PairBuffer {
  terms = new Int32Array(1024);
  values = new Float32Array(1024);
  length = 0;

  push(term: number, value: number): void {
    if (this.length === this.terms.length) {
      const terms = new Int32Array(this.length * 2);
      terms.set(this.terms);
      const values = new Float32Array(this.length * 2);
      values.set(this.values);
      this.terms = terms;
      this.values = values;
    }
    this.terms[this.length] = term;
    this.values[this.length++] = value;
  }
}

/**
 * The first k of `docs` by score, best first (ties: lower doc), among those `keep` accepts, as
 * hit objects. Sorts the doc ids in place (a typed array: no object per reached document, which
 * at 64k papers was most of a query's garbage), then makes objects for the k it returns.
 */
export function topHits(docs: Int32Array, scores: Float64Array, k: number, keep: (doc: number) => boolean): { doc: number; score: number }[] {
  docs.sort((x, y) => scores[y] - scores[x] || x - y);
  const hits: { doc: number; score: number }[] = [];
  for (let i = 0; i < docs.length && hits.length < k; i++) if (keep(docs[i])) hits.push({ doc: docs[i], score: scores[docs[i]] });
  return hits;
}

export interface Bm25Options {
  k1?: number;
  b?: number;
  /** Floor factor for negative idf (rank-bm25's epsilon); default 0.25. */
  epsilon?: number;
  idf?: "rank-bm25" | "lucene";
}

export interface Bm25Hit {
  doc: number;
  score: number;
}

export interface SearchOptions {
  /** A document never to return (e.g. the query paper itself). */
  exclude?: number;
}

export class Bm25Index {
  readonly numDocs: number;
  readonly avgdl: number;
  readonly k1: number;
  readonly b: number;
  private readonly vocab: Map<string, number>;
  /** Postings of term t are [offsets[t], offsets[t+1]). */
  private readonly offsets: Int32Array;
  private readonly postingDocs: Int32Array;
  /** Term frequencies (integers: exact in the float arithmetic of the score). */
  private readonly postingTf: Int32Array;
  private readonly idfs: Float64Array;
  /** k1·(1 − b + b·|D|/avgdl) per document. */
  private readonly norms: Float64Array;
  private readonly acc: Float64Array;
  private readonly stamp: Int32Array;
  /** Scratch: the documents a query reached. */
  private readonly touched: Int32Array;
  private epoch = 0;

  /**
   * `docs` are token lists (see lib/text/analyzer's `tokenize`); use `Bm25Index.fromTexts` for raw text. Any
   * `{ length, at(d) }` will do besides an array: the documents are then tokenised one at a time
   * and only their postings are kept (a 64k-paper corpus's token lists would take ≈ 0.5 GB).
   */
  constructor(docs: TokenDocs, options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 1.5;
    this.b = options.b ?? 0.75;
    const epsilon = options.epsilon ?? 0.25;
    const n = docs.length;
    this.numDocs = n;
    this.vocab = new Map();

    // Pass 1: per-document (term, count) pairs in growable typed arrays, document frequencies.
    const pairs = new PairBuffer();
    const docStart = new Int32Array(n + 1);
    const df: number[] = [];
    let totalLen = 0;
    const lengths = new Float64Array(n);
    const counts = new Map<number, number>();
    for (let d = 0; d < n; d++) {
      const tokens = docs.at(d) ?? [];
      counts.clear();
      for (const tok of tokens) {
        let id = this.vocab.get(tok);
        if (id === undefined) {
          id = this.vocab.size;
          this.vocab.set(tok, id);
          df.push(0);
        }
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      for (const [id, tf] of counts) {
        df[id]++;
        pairs.push(id, tf);
      }
      docStart[d + 1] = pairs.length;
      lengths[d] = tokens.length;
      totalLen += tokens.length;
    }
    this.avgdl = n === 0 ? 0 : totalLen / n;

    // Pass 2: postings in CSR form, doc ids ascending within a term.
    const v = this.vocab.size;
    this.offsets = new Int32Array(v + 1);
    for (let t = 0; t < v; t++) this.offsets[t + 1] = this.offsets[t] + df[t];
    this.postingDocs = new Int32Array(this.offsets[v]);
    this.postingTf = new Int32Array(this.offsets[v]);
    const fill = this.offsets.slice(0, v);
    for (let d = 0; d < n; d++) {
      for (let e = docStart[d]; e < docStart[d + 1]; e++) {
        const at = fill[pairs.terms[e]]++;
        this.postingDocs[at] = d;
        this.postingTf[at] = pairs.values[e];
      }
    }

    this.idfs = new Float64Array(v);
    if ((options.idf ?? "rank-bm25") === "lucene") {
      for (let t = 0; t < v; t++) this.idfs[t] = luceneIdf(n, df[t]);
    } else {
      let sum = 0;
      for (let t = 0; t < v; t++) sum += this.idfs[t] = bm25Idf(n, df[t]);
      const floor = v === 0 ? 0 : (epsilon * sum) / v;
      for (let t = 0; t < v; t++) if (this.idfs[t] < 0) this.idfs[t] = floor;
    }

    this.norms = new Float64Array(n);
    for (let d = 0; d < n; d++) this.norms[d] = this.k1 * (1 - this.b + (this.avgdl === 0 ? 0 : (this.b * lengths[d]) / this.avgdl));
    this.acc = new Float64Array(n);
    this.stamp = new Int32Array(n);
    this.touched = new Int32Array(n);
  }

  static fromTexts(texts: readonly string[], options: Bm25Options & TokenizeOptions = {}): { index: Bm25Index; tokenize: (text: string) => string[] } {
    const tok = (text: string): string[] => tokenize(text, options);
    return { index: new Bm25Index(texts.map(tok), options), tokenize: tok };
  }

  get vocabularySize(): number {
    return this.vocab.size;
  }

  idf(term: string): number {
    const t = this.vocab.get(term);
    return t === undefined ? 0 : this.idfs[t];
  }

  /** BM25 score of every document for a tokenised query. */
  scores(query: readonly string[]): Float64Array {
    const out = new Float64Array(this.numDocs);
    this.accumulate(query, (d, s) => (out[d] += s));
    return out;
  }

  /** Top-k documents with at least one query term, best first (ties: lower doc index). */
  search(query: readonly string[], k: number, options: SearchOptions = {}): Bm25Hit[] {
    // Epoch stamps reset the shared accumulator lazily, so a query costs its postings, not N.
    this.epoch++;
    let touched = 0;
    this.accumulate(query, (d, s) => {
      if (this.stamp[d] !== this.epoch) {
        this.stamp[d] = this.epoch;
        this.acc[d] = 0;
        this.touched[touched++] = d;
      }
      this.acc[d] += s;
    });
    return topHits(this.touched.subarray(0, touched), this.acc, k, (d) => d !== options.exclude);
  }

  private accumulate(query: readonly string[], add: (doc: number, score: number) => void): void {
    const k1p1 = this.k1 + 1;
    for (const term of query) {
      const t = this.vocab.get(term);
      if (t === undefined) continue;
      const idf = this.idfs[t];
      for (let e = this.offsets[t]; e < this.offsets[t + 1]; e++) {
        const d = this.postingDocs[e];
        const tf = this.postingTf[e];
        add(d, (idf * tf * k1p1) / (tf + this.norms[d]));
      }
    }
  }
}
