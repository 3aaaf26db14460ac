/**
 * Lexical item similarity (issue 17, "lexical signal in item similarity"): TF-IDF cosine
 * between facet items, aggregated per paper pair with the same symmetric, item-count-normalised
 * max-sim as the embedding score (maxsim.ts),
 *
 *   s_lex(A,B) = 1/2 ( 1/|A| Σ_i max_j t(a_i, b_j) + 1/|B| Σ_j max_i t(a_i, b_j) ),
 *
 * t = cosine of the items' TF-IDF vectors (Porter-stemmed terms, sublinear tf 1 + ln tf, smooth
 * idf ln((1 + N)/(1 + df)) + 1 with N and df counted over the corpus papers' titles + abstracts,
 * which measured better than counting over the items themselves). t ≥ 0, so s_lex is already in
 * [0, 1]; papers that share no term score 0.
 *
 * Everything is sparse: items are short (a sentence or two), so an item vector has a dozen
 * terms. The all-pairs pass walks an inverted file (postings per term), which costs
 * Σ_t df_t² instead of N² item pairs. At 64k papers a few common words ("model": 10,000+
 * items) make that 47,000 (problems) to 101,000 (methods) postings a row, so candidate
 * generation reads at most a term's `maxPostings` highest-weighted postings and every candidate
 * is then rescored exactly (`LexicalIndex.pairScore`; DEFAULT_LEXICAL_BOUND, its recall in
 * reports/scale.md section 4).
 *
 * The fitted vocabulary and idf are a build artefact (`lexical.json`), so an unseen paper's
 * items are weighted with the corpus's idf (terms the corpus never saw get the largest idf:
 * they count in the item's norm but match nothing).
 */
import { config } from "@/lib/config";
import { FACETS, type Facet } from "@/lib/corpus/types";
import { ProgressLines, progressIntervalMs } from "@/lib/progress";
import { porterStem } from "./porter";
import type { RankedNeighbours } from "./topk-accumulator";
import { STOPWORDS, WORD } from "@/lib/text/words";

/** Version of tokenisation and weighting; stored with the model so a build is read the way it was made. */
export const LEXICAL_SCHEME = "tfidf-porter-1";

/**
 * Index terms of a text: lowercased runs of letters and digits, stopwords and one-character
 * tokens dropped, Porter-stemmed ("translation", "translating" → "translat").
 */
export function lexicalTerms(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const t = m[0];
    if (t.length < 2 || STOPWORDS.has(t)) continue;
    out.push(stem(t));
  }
  return out;
}

// Stems of the words seen so far (a corpus repeats its words; bounded for a long-running server).
const stems = new Map<string, string>();
function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = porterStem(word);
    if (stems.size >= 500_000) stems.clear();
    stems.set(word, s);
  }
  return s;
}

/** Vocabulary and document frequencies fitted on a corpus's items. */
export interface LexicalModel {
  readonly scheme: string;
  /** Documents (items) the frequencies were counted over. */
  readonly numDocs: number;
  readonly terms: readonly string[];
  readonly df: Int32Array;
  /** Smooth idf per term, and the idf of a term the corpus never saw (df 0). */
  readonly idf: Float32Array;
  readonly unseenIdf: number;
  readonly termIndex: ReadonlyMap<string, number>;
}

const smoothIdf = (n: number, df: number): number => Math.log((1 + n) / (1 + df)) + 1;

function modelOf(numDocs: number, terms: readonly string[], df: Int32Array): LexicalModel {
  const idf = new Float32Array(terms.length);
  for (let t = 0; t < terms.length; t++) idf[t] = smoothIdf(numDocs, df[t]);
  return { scheme: LEXICAL_SCHEME, numDocs, terms, df, idf, unseenIdf: smoothIdf(numDocs, 0), termIndex: new Map(terms.map((t, i) => [t, i])) };
}

/**
 * Counts document frequencies over `docs` (each text one document). The vocabulary is every
 * term of `docs` and of `vocabulary` (the items to be indexed: a term only the items use gets
 * df 0, the largest idf, and still matches). Terms are sorted for a stable artefact.
 */
export function fitLexicalModel(docs: Iterable<string>, vocabulary: Iterable<string> = []): LexicalModel {
  const counts = new Map<string, number>();
  let n = 0;
  for (const d of docs) {
    n++;
    for (const t of new Set(lexicalTerms(d))) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  for (const text of vocabulary) for (const t of lexicalTerms(text)) if (!counts.has(t)) counts.set(t, 0);
  const terms = [...counts.keys()].sort();
  return modelOf(
    n,
    terms,
    Int32Array.from(terms, (t) => counts.get(t) as number),
  );
}

/** The artefact form: { scheme, numDocs, terms, df }. */
export function serialiseLexicalModel(model: LexicalModel): string {
  return JSON.stringify({ scheme: model.scheme, numDocs: model.numDocs, terms: model.terms, df: Array.from(model.df) });
}

export function parseLexicalModel(json: string): LexicalModel {
  const raw = JSON.parse(json) as { scheme?: string; numDocs?: number; terms?: string[]; df?: number[] };
  if (raw.scheme !== LEXICAL_SCHEME) throw new Error(`lexical model: scheme "${raw.scheme}" is not "${LEXICAL_SCHEME}" (rebuild the graph)`);
  if (!Array.isArray(raw.terms) || !Array.isArray(raw.df) || raw.terms.length !== raw.df.length || typeof raw.numDocs !== "number") {
    throw new Error("lexical model: malformed artefact");
  }
  return modelOf(raw.numDocs, raw.terms, Int32Array.from(raw.df));
}

/** One item's unit TF-IDF vector: known term ids ascending, their weights. */
export interface SparseVector {
  readonly terms: Int32Array;
  readonly weights: Float32Array;
}

/** The unit TF-IDF vector of a text (unknown terms count in the norm only). */
export function lexicalVector(model: LexicalModel, text: string): SparseVector {
  const tf = new Map<string, number>();
  for (const t of lexicalTerms(text)) tf.set(t, (tf.get(t) ?? 0) + 1);
  const known: [number, number][] = [];
  let ss = 0;
  for (const [t, n] of tf) {
    const id = model.termIndex.get(t);
    const w = (1 + Math.log(n)) * (id === undefined ? model.unseenIdf : model.idf[id]);
    ss += w * w;
    if (id !== undefined) known.push([id, w]);
  }
  known.sort((a, b) => a[0] - b[0]);
  const inv = ss > 0 ? 1 / Math.sqrt(ss) : 0;
  return { terms: Int32Array.from(known, (k) => k[0]), weights: Float32Array.from(known, (k) => k[1] * inv) };
}

/** Items of one facet for a whole corpus, sparse: paper p owns items offsets[p]..offsets[p+1], item i its entries itemPtr[i]..itemPtr[i+1]. */
export interface SparseFacetItems {
  readonly numTerms: number;
  readonly offsets: Int32Array;
  readonly itemPtr: Int32Array;
  readonly terms: Int32Array;
  readonly weights: Float32Array;
}

/** Packs per-paper item texts (papers × items) into the sparse layout. */
export function packLexicalItems(model: LexicalModel, perPaper: readonly (readonly string[])[]): SparseFacetItems {
  return packSparse(
    model.terms.length,
    perPaper.map((texts) => texts.map((t) => lexicalVector(model, t))),
  );
}

/** Packs per-paper sparse item vectors. */
export function packSparse(numTerms: number, perPaper: readonly (readonly SparseVector[])[]): SparseFacetItems {
  const offsets = new Int32Array(perPaper.length + 1);
  let items = 0;
  let nnz = 0;
  perPaper.forEach((list, p) => {
    items += list.length;
    offsets[p + 1] = items;
    for (const v of list) nnz += v.terms.length;
  });
  const itemPtr = new Int32Array(items + 1);
  const terms = new Int32Array(nnz);
  const weights = new Float32Array(nnz);
  let i = 0;
  for (const list of perPaper) {
    for (const v of list) {
      terms.set(v.terms, itemPtr[i]);
      weights.set(v.weights, itemPtr[i]);
      itemPtr[i + 1] = itemPtr[i] + v.terms.length;
      i++;
    }
  }
  return { numTerms, offsets, itemPtr, terms, weights };
}

/** Dot product of two sparse vectors with ascending term ids. */
function sparseDot(aT: Int32Array, aW: Float32Array, a0: number, a1: number, bT: Int32Array, bW: Float32Array, b0: number, b1: number): number {
  let s = 0;
  let i = a0;
  let j = b0;
  while (i < a1 && j < b1) {
    const x = aT[i];
    const y = bT[j];
    if (x === y) s += aW[i++] * bW[j++];
    else if (x < y) i++;
    else j++;
  }
  return s;
}

export interface LexicalTopKOptions {
  /**
   * Candidate generation reads at most this many postings of a term: a term in more items (a
   * common word, low idf) contributes only its `maxPostings` highest-weighted postings (the items
   * where it weighs most: short items, where a match on it decides the cosine). Default:
   * `DEFAULT_LEXICAL_BOUND.maxPostings`; Infinity makes the lists exact.
   */
  maxPostings?: number;
  /**
   * A row whose candidates came from a truncated scan (it has a term above `maxPostings`) keeps
   * its best `candidates` papers by partial score, rescores them exactly (`pairScore`) and
   * returns the best k of those. Default: `DEFAULT_LEXICAL_BOUND.candidates`.
   */
  candidates?: number;
  /**
   * Rows done of the pass, every 1,024 rows and at the end. Default: progress lines on stderr
   * ("lexical: all-pairs … rows …", lib/progress.ts) once the pass has run for one progress
   * interval, so a long pass at scale shows it is alive and small ones stay quiet.
   */
  onProgress?: (done: number, total: number) => void;
}

/**
 * The bound of the all-pairs pass: each term reads at most its 1,000 highest-weighted postings
 * ("model", "languag", "task"… are in 10,000+ of the 64k corpus's items), and a row with such a
 * term rescores its best 400 candidates exactly. Chosen on the 64k ACL Anthology
 * (reports/scale.md section 4): recall@20 of the exact lists ≥ 0.994 on every facet (a sample of
 * 500 rows each), recall@50 ≥ 0.983, with 4–5× fewer postings read than the exact pass. On the
 * 3k demo corpus every list is the exact one (recall 1.0000 on every row of every facet).
 */
export const DEFAULT_LEXICAL_BOUND: Readonly<Required<Pick<LexicalTopKOptions, "maxPostings" | "candidates">>> = Object.freeze({
  maxPostings: 1_000,
  candidates: 400,
});

/** Progress lines on stderr that start once the pass has run for one interval (LexicalTopKOptions.onProgress). */
function lexicalProgressLines(numItems: number): { update: (done: number, total: number) => void; done: () => void } {
  if (config().GRAFT_PROGRESS === "off") return { update: () => {}, done: () => {} };
  const started = performance.now();
  const interval = progressIntervalMs();
  const lines = new ProgressLines("lexical", (line) => process.stderr.write(`${line}\n`), { timer: false });
  const phase = `all-pairs over ${numItems.toLocaleString("en-US")} items, rows`;
  return {
    update: (done, total) => {
      if (performance.now() - started >= interval) lines.update(done, total, phase);
    },
    done: () => lines.done(),
  };
}

/** Postings of term t: items[ptr[t]..ptr[t+1]) with their weights. */
interface Postings {
  readonly ptr: Int32Array;
  readonly items: Int32Array;
  readonly weights: Float32Array;
}

/**
 * An inverted file over one facet's sparse items: all-pairs top-K by s_lex for the graph build,
 * one query against every paper for ephemeral insertion, and exact scores of given pairs.
 */
export class LexicalIndex {
  readonly numPapers: number;
  readonly numItems: number;
  /** Postings of term t: items postItems[postPtr[t]..postPtr[t+1]) with their weights. */
  private readonly postPtr: Int32Array;
  private readonly postItems: Int32Array;
  private readonly postWeights: Float32Array;
  private readonly paperOf: Int32Array;
  // Scratch, reused across calls (an index serves one call at a time).
  private readonly acc: Float64Array;
  private readonly colMax: Float64Array;
  private readonly itemStamp: Int32Array;
  private readonly rowMax: Float64Array;
  private readonly rowSum: Float64Array;
  private readonly colSum: Float64Array;
  private readonly paperStamp: Int32Array;
  private readonly rowStamp: Int32Array;
  private readonly touchedItems: Int32Array;
  private readonly rowTouched: Int32Array;
  private readonly touchedPapers: Int32Array;
  private readonly rowPapers: Int32Array;
  private epoch = 0;
  private rowCounter = 0;
  private readonly pool = new CandidatePool();
  private truncated: { cap: number; postings: Postings } | null = null;

  constructor(readonly items: SparseFacetItems) {
    const { offsets, itemPtr, terms, weights, numTerms } = items;
    this.numPapers = offsets.length - 1;
    this.numItems = itemPtr.length - 1;
    this.paperOf = new Int32Array(this.numItems);
    for (let p = 0; p < this.numPapers; p++) this.paperOf.fill(p, offsets[p], offsets[p + 1]);
    const count = new Int32Array(numTerms + 1);
    for (let e = 0; e < terms.length; e++) count[terms[e] + 1]++;
    for (let t = 0; t < numTerms; t++) count[t + 1] += count[t];
    this.postPtr = count.slice();
    this.postItems = new Int32Array(terms.length);
    this.postWeights = new Float32Array(terms.length);
    const fill = count.slice(0, numTerms);
    for (let i = 0; i < this.numItems; i++) {
      for (let e = itemPtr[i]; e < itemPtr[i + 1]; e++) {
        const at = fill[terms[e]]++;
        this.postItems[at] = i;
        this.postWeights[at] = weights[e];
      }
    }
    this.acc = new Float64Array(this.numItems);
    this.colMax = new Float64Array(this.numItems);
    this.itemStamp = new Int32Array(this.numItems).fill(-1);
    this.rowMax = new Float64Array(this.numPapers);
    this.rowSum = new Float64Array(this.numPapers);
    this.colSum = new Float64Array(this.numPapers);
    this.paperStamp = new Int32Array(this.numPapers).fill(-1);
    this.rowStamp = new Int32Array(this.numPapers).fill(-1);
    this.touchedItems = new Int32Array(this.numItems);
    this.rowTouched = new Int32Array(this.numItems);
    this.touchedPapers = new Int32Array(this.numPapers);
    this.rowPapers = new Int32Array(this.numPapers);
  }

  /** Items of term t (its document frequency within this facet). */
  df(t: number): number {
    return this.postPtr[t + 1] - this.postPtr[t];
  }

  /** Exact s_lex of corpus papers a and b. */
  pairScore(a: number, b: number): number {
    const { offsets } = this.items;
    return this.maxSimAgainst(this.items, offsets[a], offsets[a + 1], b);
  }

  /** Exact s_lex of query items (rows q0..q1 of `q`) against corpus paper b. */
  private maxSimAgainst(q: SparseFacetItems, q0: number, q1: number, b: number): number {
    const { offsets, itemPtr, terms, weights } = this.items;
    const b0 = offsets[b];
    const b1 = offsets[b + 1];
    const na = q1 - q0;
    const nb = b1 - b0;
    if (na === 0 || nb === 0) return 0;
    let rowSum = 0;
    const col = this.colMax;
    for (let j = 0; j < nb; j++) col[j] = 0;
    for (let i = q0; i < q1; i++) {
      let best = 0;
      for (let j = b0; j < b1; j++) {
        const d = sparseDot(q.terms, q.weights, q.itemPtr[i], q.itemPtr[i + 1], terms, weights, itemPtr[j], itemPtr[j + 1]);
        if (d > best) best = d;
        if (d > col[j - b0]) col[j - b0] = d;
      }
      rowSum += best;
    }
    let colSum = 0;
    for (let j = 0; j < nb; j++) colSum += col[j];
    return 0.5 * (rowSum / na + colSum / nb);
  }

  /** Exact s_lex of a query (its sparse items) against corpus paper b. */
  queryPairScore(query: readonly SparseVector[], b: number): number {
    return this.maxSimAgainst(packSparse(this.items.numTerms, [query]), 0, query.length, b);
  }

  /**
   * s_lex of source items q0..q1 (of `q`) against every paper sharing a term with them, through
   * the postings; calls `visit(paper, score)` for each such paper (never `skip`).
   */
  private scan(q: SparseFacetItems, q0: number, q1: number, skip: number, postings: Postings, visit: (paper: number, score: number) => void): void {
    const na = q1 - q0;
    if (na === 0) return;
    const epoch = ++this.epoch;
    const { offsets } = this.items;
    const { paperOf, acc, colMax, itemStamp, rowMax, rowSum, colSum, paperStamp, rowStamp } = this;
    const { ptr: postPtr, items: postItems, weights: postWeights } = postings;
    // Scratch lists in typed arrays: this loop runs once per posting, ≈ 50,000 times a row at 64k.
    const { touchedItems, rowTouched, touchedPapers, rowPapers } = this;
    let nItems = 0;
    let nPapers = 0;
    for (let i = q0; i < q1; i++) {
      const row = ++this.rowCounter;
      let nRow = 0;
      for (let e = q.itemPtr[i]; e < q.itemPtr[i + 1]; e++) {
        const t = q.terms[e];
        if (t >= this.items.numTerms) continue;
        const p0 = postPtr[t];
        const p1 = postPtr[t + 1];
        const w = q.weights[e];
        for (let x = p0; x < p1; x++) {
          const j = postItems[x];
          if (paperOf[j] === skip) continue;
          if (itemStamp[j] !== epoch) {
            itemStamp[j] = epoch;
            colMax[j] = 0;
            touchedItems[nItems++] = j;
          }
          if (acc[j] === 0) rowTouched[nRow++] = j;
          acc[j] += w * postWeights[x];
        }
      }
      // Row i: best item per touched paper, added to that paper's row sum.
      let nRowPapers = 0;
      for (let r = 0; r < nRow; r++) {
        const j = rowTouched[r];
        const d = acc[j];
        acc[j] = 0;
        if (d > colMax[j]) colMax[j] = d;
        const b = paperOf[j];
        if (paperStamp[b] !== epoch) {
          paperStamp[b] = epoch;
          rowSum[b] = 0;
          touchedPapers[nPapers++] = b;
        }
        if (rowStamp[b] !== row) {
          rowStamp[b] = row;
          rowMax[b] = 0;
          rowPapers[nRowPapers++] = b;
        }
        if (d > rowMax[b]) rowMax[b] = d;
      }
      for (let r = 0; r < nRowPapers; r++) rowSum[rowPapers[r]] += rowMax[rowPapers[r]];
    }
    for (let r = 0; r < nPapers; r++) colSum[touchedPapers[r]] = 0;
    for (let r = 0; r < nItems; r++) colSum[paperOf[touchedItems[r]]] += colMax[touchedItems[r]];
    for (let r = 0; r < nPapers; r++) {
      const b = touchedPapers[r];
      const nb = offsets[b + 1] - offsets[b];
      visit(b, 0.5 * (rowSum[b] / na + colSum[b] / nb));
    }
  }

  /**
   * Top-k corpus papers by s_lex of each corpus paper (ties: lower index), through the inverted
   * file; scores are exact. The lists are exact when no term has more than `maxPostings`
   * postings; otherwise each row with a cut term is ranked over its best `candidates` by partial
   * score (see LexicalTopKOptions, DEFAULT_LEXICAL_BOUND).
   */
  allPairsTopK(k: number, options: LexicalTopKOptions = {}): RankedNeighbours {
    const cap = options.maxPostings ?? DEFAULT_LEXICAL_BOUND.maxPostings;
    const candidates = Math.max(k, options.candidates ?? DEFAULT_LEXICAL_BOUND.candidates);
    const n = this.numPapers;
    const lines = options.onProgress ? null : lexicalProgressLines(this.numItems);
    const report = options.onProgress ?? (lines as { update: (done: number, total: number) => void }).update;
    const heap = new BoundedLists(n, k);
    for (let a = 0; a < n; a++) {
      this.rankRow(a, cap, candidates, (b, s) => heap.offer(a, b, s));
      if ((a + 1) % 1024 === 0 || a + 1 === n) report(a + 1, n);
    }
    lines?.done();
    return heap.finish();
  }

  /** Row a of allPairsTopK alone (the same bound and options), to measure a bound's recall on a sample of rows. */
  rowTopK(a: number, k: number, options: LexicalTopKOptions = {}): { targets: Int32Array; scores: Float32Array } {
    const heap = new BoundedLists(1, k);
    const cap = options.maxPostings ?? DEFAULT_LEXICAL_BOUND.maxPostings;
    this.rankRow(a, cap, Math.max(k, options.candidates ?? DEFAULT_LEXICAL_BOUND.candidates), (b, s) => heap.offer(0, b, s));
    const r = heap.finish();
    return { targets: r.targets, scores: r.scores };
  }

  /**
   * Calls `visit(b, exact s_lex)` for row a's candidates: every paper sharing a term with it
   * when none of its terms has more than `cap` postings, else its best `candidates` by the
   * partial score of the truncated postings.
   */
  private rankRow(a: number, cap: number, candidates: number, visit: (paper: number, score: number) => void): void {
    const { offsets, itemPtr, terms } = this.items;
    const a0 = offsets[a];
    const a1 = offsets[a + 1];
    const postings = this.postingsUpTo(cap);
    // Partial scores only where the row has a truncated term; otherwise they are exact.
    let partial = false;
    for (let e = itemPtr[a0]; e < itemPtr[a1] && !partial; e++) partial = this.df(terms[e]) > cap;
    if (!partial) {
      this.scan(this.items, a0, a1, a, postings, visit);
      return;
    }
    const pool = this.pool;
    pool.reset(candidates);
    this.scan(this.items, a0, a1, a, postings, (b, s) => pool.offer(b, s));
    for (let i = 0; i < pool.size; i++) visit(pool.targets[i], this.pairScore(a, pool.targets[i]));
  }

  /** The postings with each term's list cut to its `cap` highest weights (ties: lower item), cached for the last cap. */
  private postingsUpTo(cap: number): Postings {
    const full = { ptr: this.postPtr, items: this.postItems, weights: this.postWeights };
    if (!(cap < this.numItems)) return full;
    if (this.truncated?.cap === cap) return this.truncated.postings;
    const numTerms = this.items.numTerms;
    const ptr = new Int32Array(numTerms + 1);
    for (let t = 0; t < numTerms; t++) ptr[t + 1] = ptr[t] + Math.min(cap, this.df(t));
    const items = new Int32Array(ptr[numTerms]);
    const weights = new Float32Array(ptr[numTerms]);
    for (let t = 0; t < numTerms; t++) {
      const p0 = this.postPtr[t];
      const p1 = this.postPtr[t + 1];
      if (p1 - p0 <= cap) {
        // Untruncated lists keep their order, so a row without a truncated term sums as the exact scan does.
        items.set(this.postItems.subarray(p0, p1), ptr[t]);
        weights.set(this.postWeights.subarray(p0, p1), ptr[t]);
        continue;
      }
      const order = Array.from({ length: p1 - p0 }, (_, i) => p0 + i);
      order.sort((x, y) => this.postWeights[y] - this.postWeights[x] || this.postItems[x] - this.postItems[y]);
      for (let i = 0; i < cap; i++) {
        items[ptr[t] + i] = this.postItems[order[i]];
        weights[ptr[t] + i] = this.postWeights[order[i]];
      }
    }
    const postings = { ptr, items, weights };
    this.truncated = { cap, postings };
    return postings;
  }

  /** Top-k corpus papers by s_lex for one query's items (ephemeral insertion); `exclude` is never returned. */
  queryTopK(query: readonly SparseVector[], k: number, exclude = -1): { targets: Int32Array; scores: Float32Array } {
    const heap = new BoundedLists(1, k);
    this.scan(packSparse(this.items.numTerms, [query]), 0, query.length, exclude, this.postingsUpTo(Infinity), (b, s) => heap.offer(0, b, s));
    const r = heap.finish();
    return { targets: r.targets, scores: r.scores };
  }
}

/**
 * One row's best c candidates by partial score (ties: lower target), as a binary min-heap on
 * (score, −target): the worst kept candidate is at the root.
 */
class CandidatePool {
  targets = new Int32Array(0);
  private scores = new Float64Array(0);
  size = 0;
  private capacity = 0;

  reset(capacity: number): void {
    if (this.targets.length < capacity) {
      this.targets = new Int32Array(capacity);
      this.scores = new Float64Array(capacity);
    }
    this.capacity = capacity;
    this.size = 0;
  }

  /** Whether (s, t) ranks below (s2, t2). */
  private static worse(s: number, t: number, s2: number, t2: number): boolean {
    return s < s2 || (s === s2 && t > t2);
  }

  offer(t: number, s: number): void {
    if (!(s > 0)) return;
    const { targets, scores } = this;
    if (this.size < this.capacity) {
      let i = this.size++;
      while (i > 0) {
        const up = (i - 1) >> 1;
        if (!CandidatePool.worse(s, t, scores[up], targets[up])) break;
        targets[i] = targets[up];
        scores[i] = scores[up];
        i = up;
      }
      targets[i] = t;
      scores[i] = s;
      return;
    }
    if (this.capacity === 0 || CandidatePool.worse(s, t, scores[0], targets[0])) return;
    // Replace the root and sift down.
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && CandidatePool.worse(scores[r], targets[r], scores[l], targets[l]) ? r : l;
      if (!CandidatePool.worse(scores[c], targets[c], s, t)) break;
      targets[i] = targets[c];
      scores[i] = scores[c];
      i = c;
    }
    targets[i] = t;
    scores[i] = s;
  }
}

/** Per-paper best-k lists (ties: lower target), small enough to keep as sorted arrays. */
class BoundedLists {
  private readonly rows: { t: number; s: number }[][];
  constructor(
    readonly numPapers: number,
    readonly k: number,
  ) {
    this.rows = Array.from({ length: numPapers }, () => []);
  }
  offer(p: number, t: number, s: number): void {
    if (this.k === 0 || !(s > 0)) return;
    const row = this.rows[p];
    if (row.length === this.k) {
      const last = row[row.length - 1];
      if (s < last.s || (s === last.s && t > last.t)) return;
      row.pop();
    }
    let at = row.length;
    while (at > 0 && (row[at - 1].s < s || (row[at - 1].s === s && row[at - 1].t > t))) at--;
    row.splice(at, 0, { t, s });
  }
  finish(): RankedNeighbours {
    const offsets = new Int32Array(this.numPapers + 1);
    this.rows.forEach((r, p) => (offsets[p + 1] = offsets[p] + r.length));
    const targets = new Int32Array(offsets[this.numPapers]);
    const scores = new Float32Array(offsets[this.numPapers]);
    this.rows.forEach((r, p) =>
      r.forEach((e, i) => {
        targets[offsets[p] + i] = e.t;
        scores[offsets[p] + i] = e.s;
      }),
    );
    return { numPapers: this.numPapers, k: this.k, offsets, targets, scores, aux: new Float32Array(0), auxWidth: 0 };
  }
}

/** The lexical side of a mix build for serving: the build's model and one inverted file per facet. */
export interface LexicalFacetIndex {
  readonly model: LexicalModel;
  readonly facets: Partial<Record<Facet, LexicalIndex>>;
}

/** Inverted files over every facet's items (texts per paper, in node order). */
export function lexicalFacetIndex(model: LexicalModel, texts: Partial<Record<Facet, readonly (readonly string[])[]>>): LexicalFacetIndex {
  const facets: Partial<Record<Facet, LexicalIndex>> = {};
  for (const f of FACETS) {
    const perPaper = texts[f];
    if (perPaper) facets[f] = new LexicalIndex(packLexicalItems(model, perPaper));
  }
  return { model, facets };
}
