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
 * reports/scale.md section 4). Rows are independent: lexical-pool.ts ranks them on worker
 * threads, with the same lists.
 *
 * The fitted vocabulary and idf are a build artefact (`lexical.json`), so an unseen paper's
 * items are weighted with the corpus's idf (terms the corpus never saw get the largest idf:
 * they count in the item's norm but match nothing).
 */
import { config } from "@/lib/config";
import { FACETS, type Facet } from "@/lib/corpus/types";
import { ProgressLines, progressIntervalMs } from "@/lib/progress";
import type { RankedNeighbours } from "./topk-accumulator";
import { lexicalTerms, smoothIdf, sublinearTf, termCounts } from "@/lib/text/analyzer";

/**
 * Version of tokenisation (lexicalTerms of lib/text/analyzer) and weighting; stored with the model
 * so a build is read the way it was made.
 */
export const LEXICAL_SCHEME = "tfidf-porter-1";

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
  const known: [number, number][] = [];
  let ss = 0;
  for (const [t, n] of termCounts(lexicalTerms(text))) {
    const id = model.termIndex.get(t);
    const w = sublinearTf(n) * (id === undefined ? model.unseenIdf : model.idf[id]);
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
export function lexicalProgressLines(numItems: number): { update: (done: number, total: number) => void; done: () => void } {
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
export interface LexicalPostings {
  readonly ptr: Int32Array;
  readonly items: Int32Array;
  readonly weights: Float32Array;
}

/**
 * The typed arrays a LexicalIndex is made of: the items, the full postings and, when one was
 * built, the postings cut at `cap`. A worker thread rebuilds the same index from them
 * (lexical-pool.ts shares them as SharedArrayBuffers) without sorting the postings again.
 */
export interface LexicalIndexArrays {
  readonly items: SparseFacetItems;
  readonly full: LexicalPostings;
  readonly truncated: { readonly cap: number; readonly postings: LexicalPostings } | null;
}

/** One row's list: targets best first, float32 scores (as the lists of allPairsTopK hold them). */
export interface LexicalRow {
  targets: Int32Array;
  scores: Float32Array;
}

/** Lists of rows from..to of allPairsTopK: row from + r owns entries offsets[r]..offsets[r+1]. */
export interface LexicalRowLists {
  readonly from: number;
  readonly to: number;
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
  readonly scores: Float32Array;
}

/** The `maxPostings` and `candidates` an all-pairs pass runs with (defaults filled in). */
export function lexicalBound(k: number, options: LexicalTopKOptions = {}): { cap: number; candidates: number } {
  return {
    cap: options.maxPostings ?? DEFAULT_LEXICAL_BOUND.maxPostings,
    candidates: Math.max(k, options.candidates ?? DEFAULT_LEXICAL_BOUND.candidates),
  };
}

/** Bits per pass of the scan's radix sort by item (two passes up to 262,144 items in a facet). */
const RADIX_BITS = 9;
const RADIX_MASK = (1 << RADIX_BITS) - 1;
const RADIX_SLOTS = RADIX_MASK + 2;

/**
 * An inverted file over one facet's sparse items: all-pairs top-K by s_lex for the graph build,
 * one query against every paper for ephemeral insertion, and exact scores of given pairs.
 *
 * The all-pairs pass reads ≈ 10,000–20,000 postings a row at 64k papers; `scan` groups them by
 * item with a radix sort over small arrays instead of scattering into per-item arrays (see
 * there). Exact pair scores scatter the query items' weights by term once (reused while the same
 * row is rescored against many papers) instead of merging two term lists per item pair. Every
 * sum is taken in the order of a plain item-by-item evaluation, so the scores are the same
 * numbers whatever the layout.
 */
export class LexicalIndex {
  readonly numPapers: number;
  readonly numItems: number;
  private readonly full: LexicalPostings;
  private readonly paperOf: Int32Array;
  private truncated: { cap: number; postings: LexicalPostings } | null = null;
  // Scratch, reused across calls (an index serves one call at a time).
  /** A scan's gathered postings: item, query item, product; two position buffers of its radix sort. */
  private gKey = new Int32Array(0);
  private gItem = new Int32Array(0);
  private gProd = new Float64Array(0);
  private keysA = new Int32Array(0);
  private keysB = new Int32Array(0);
  private permA = new Int32Array(0);
  private permB = new Int32Array(0);
  /** Where the last radix sort left the sorted items and their gather positions (two of the buffers above). */
  private sortedKeys = new Int32Array(0);
  private sortedPerm = new Int32Array(0);
  /** Radix passes that cover the item indices, and one digit histogram per pass. */
  private readonly radixPasses: number;
  private readonly counts: Int32Array;
  private rowBest = new Float64Array(0);
  /** Column maxima of the paper being reduced, and the gather position that first reached each item. */
  private readonly paperCols: Float64Array;
  private readonly paperFirst: Int32Array;
  private readonly touchedPapers: Int32Array;
  /** Score of touchedPapers[r] after a scan. */
  private readonly scanScores: Float64Array;
  private readonly pool = new CandidatePool();
  private readonly top = new RowTop();
  // The scattered query of exact pair scores: slot of a term, its weight in each query item.
  private readonly slotOf: Int32Array;
  private readonly slotStamp: Int32Array;
  private slotWeights = new Float64Array(0);
  private dots = new Float64Array(0);
  private colBest = new Float64Array(0);
  private scatterStamp = 0;
  private scattered: { q: SparseFacetItems; q0: number; q1: number } | null = null;

  constructor(
    readonly items: SparseFacetItems,
    built?: Omit<LexicalIndexArrays, "items">,
  ) {
    const { offsets, itemPtr, terms, weights, numTerms } = items;
    this.numPapers = offsets.length - 1;
    this.numItems = itemPtr.length - 1;
    this.paperOf = new Int32Array(this.numItems);
    for (let p = 0; p < this.numPapers; p++) this.paperOf.fill(p, offsets[p], offsets[p + 1]);
    if (built) {
      this.full = built.full;
      this.truncated = built.truncated;
    } else {
      const count = new Int32Array(numTerms + 1);
      for (let e = 0; e < terms.length; e++) count[terms[e] + 1]++;
      for (let t = 0; t < numTerms; t++) count[t + 1] += count[t];
      const full = { ptr: count.slice(), items: new Int32Array(terms.length), weights: new Float32Array(terms.length) };
      const fill = count.slice(0, numTerms);
      for (let i = 0; i < this.numItems; i++) {
        for (let e = itemPtr[i]; e < itemPtr[i + 1]; e++) {
          const at = fill[terms[e]]++;
          full.items[at] = i;
          full.weights[at] = weights[e];
        }
      }
      this.full = full;
    }
    let widest = 0;
    for (let p = 0; p < this.numPapers; p++) widest = Math.max(widest, offsets[p + 1] - offsets[p]);
    this.radixPasses = 0;
    while (this.numItems - 1 >= 2 ** (this.radixPasses * RADIX_BITS)) this.radixPasses++;
    this.counts = new Int32Array(this.radixPasses * RADIX_SLOTS);
    this.paperCols = new Float64Array(widest);
    this.paperFirst = new Int32Array(widest);
    this.touchedPapers = new Int32Array(this.numPapers);
    this.scanScores = new Float64Array(this.numPapers);
    this.slotOf = new Int32Array(numTerms);
    this.slotStamp = new Int32Array(numTerms);
  }

  /** Items of term t (its document frequency within this facet). */
  df(t: number): number {
    return this.full.ptr[t + 1] - this.full.ptr[t];
  }

  /** The arrays to rebuild this index elsewhere, with the postings cut at `cap` built (lexical-pool.ts). */
  arrays(cap: number): LexicalIndexArrays {
    this.postingsUpTo(cap);
    return { items: this.items, full: this.full, truncated: this.truncated };
  }

  /** Exact s_lex of corpus papers a and b. */
  pairScore(a: number, b: number): number {
    const { offsets } = this.items;
    return this.maxSimAgainst(this.items, offsets[a], offsets[a + 1], b);
  }

  /**
   * Query items q0..q1 of `q` by term: slotOf[t] for their terms t, and slotWeights[slot·na + i]
   * the weight of that term in item q0 + i (0 where the item lacks it). Kept for the next call
   * with the same rows: a row is rescored against hundreds of papers in a row.
   */
  private scatterQuery(q: SparseFacetItems, q0: number, q1: number): void {
    const s = this.scattered;
    if (s !== null && s.q === q && s.q0 === q0 && s.q1 === q1) return;
    const na = q1 - q0;
    const stamp = ++this.scatterStamp;
    const { slotOf, slotStamp } = this;
    const numTerms = this.items.numTerms;
    const need = (q.itemPtr[q1] - q.itemPtr[q0]) * na;
    if (this.slotWeights.length < need) this.slotWeights = new Float64Array(Math.max(need, 2 * this.slotWeights.length));
    const slotWeights = this.slotWeights;
    let slots = 0;
    for (let i = q0; i < q1; i++) {
      for (let e = q.itemPtr[i]; e < q.itemPtr[i + 1]; e++) {
        const t = q.terms[e];
        if (t >= numTerms) continue;
        if (slotStamp[t] !== stamp) {
          slotStamp[t] = stamp;
          slotOf[t] = slots;
          slotWeights.fill(0, slots * na, slots * na + na);
          slots++;
        }
        slotWeights[slotOf[t] * na + (i - q0)] = q.weights[e];
      }
    }
    this.scattered = { q, q0, q1 };
  }

  /** Exact s_lex of query items (rows q0..q1 of `q`) against corpus paper b. */
  private maxSimAgainst(q: SparseFacetItems, q0: number, q1: number, b: number): number {
    const { offsets, itemPtr, terms, weights } = this.items;
    const b0 = offsets[b];
    const na = q1 - q0;
    const nb = offsets[b + 1] - b0;
    if (na === 0 || nb === 0) return 0;
    this.scatterQuery(q, q0, q1);
    if (this.dots.length < na * nb) this.dots = new Float64Array(Math.max(na * nb, 2 * this.dots.length));
    if (this.colBest.length < nb) this.colBest = new Float64Array(Math.max(nb, 2 * this.colBest.length));
    const { dots, colBest, slotOf, slotStamp, slotWeights } = this;
    const stamp = this.scatterStamp;
    dots.fill(0, 0, na * nb);
    // dots[i·nb + j] = t(query item i, item j of b), summed over shared terms in ascending term
    // order (item j's order); a term item i lacks adds an exact 0.
    for (let j = 0; j < nb; j++) {
      for (let e = itemPtr[b0 + j]; e < itemPtr[b0 + j + 1]; e++) {
        const t = terms[e];
        if (slotStamp[t] !== stamp) continue;
        const w = weights[e];
        const base = slotOf[t] * na;
        for (let i = 0; i < na; i++) dots[i * nb + j] += slotWeights[base + i] * w;
      }
    }
    let rowSum = 0;
    for (let j = 0; j < nb; j++) colBest[j] = 0;
    for (let i = 0; i < na; i++) {
      let best = 0;
      for (let j = 0; j < nb; j++) {
        const d = dots[i * nb + j];
        if (d > best) best = d;
        if (d > colBest[j]) colBest[j] = d;
      }
      rowSum += best;
    }
    let colSum = 0;
    for (let j = 0; j < nb; j++) colSum += colBest[j];
    return 0.5 * (rowSum / na + colSum / nb);
  }

  /** Exact s_lex of a query (its sparse items) against corpus paper b. */
  queryPairScore(query: readonly SparseVector[], b: number): number {
    return this.maxSimAgainst(packSparse(this.items.numTerms, [query]), 0, query.length, b);
  }

  /**
   * s_lex of source items q0..q1 (of `q`) against every paper sharing a term with them, through
   * `postings` (never the paper whose items are the index's items skip0..skip1): returns how many
   * papers it reached, in ascending order: touchedPapers[r] and scanScores[r] for each.
   *
   * Sort-based rather than a scatter into per-item and per-paper arrays: at 64k papers those
   * arrays are megabytes and every posting missed the cache (≈ 150–400 ns a posting on the
   * shared 2-core machine). Here the row's postings are gathered in traversal order, sorted by
   * item with a stable radix sort on small arrays that stay in cache, and reduced in one
   * ascending sweep, where a paper's items are adjacent. Every sum is taken in the order the
   * scatter took it: a dot over the query item's terms in their order, a row sum over the query
   * items in order, a column sum over the paper's items in the order the traversal first
   * reached them.
   */
  private scan(q: SparseFacetItems, q0: number, q1: number, skip0: number, skip1: number, postings: LexicalPostings): number {
    const na = q1 - q0;
    if (na === 0) return 0;
    const n = this.gather(q, q0, q1, skip0, skip1, postings);
    if (n === 0) return 0;
    this.radixSortGathered(n);
    return this.reducePapers(n, na);
  }

  /**
   * Gathers (item, query item, product) in traversal order (query items, their terms, postings),
   * counting each radix digit of the items as they come; returns how many.
   */
  private gather(q: SparseFacetItems, q0: number, q1: number, skip0: number, skip1: number, postings: LexicalPostings): number {
    const na = q1 - q0;
    const { numTerms } = this.items;
    const { ptr: postPtr, items: postItems, weights: postWeights } = postings;
    const qPtr = q.itemPtr;
    const qTerms = q.terms;
    const qWeights = q.weights;
    let need = 0;
    for (let e = qPtr[q0]; e < qPtr[q1]; e++) if (qTerms[e] < numTerms) need += postPtr[qTerms[e] + 1] - postPtr[qTerms[e]];
    this.reserveGather(need, na);
    const { gKey, gItem, gProd } = this;
    const passes = this.radixPasses;
    const counts = this.counts;
    counts.fill(0);
    let n = 0;
    for (let i = 0; i < na; i++) {
      for (let e = qPtr[q0 + i]; e < qPtr[q0 + i + 1]; e++) {
        const t = qTerms[e];
        if (t >= numTerms) continue;
        const w = qWeights[e];
        const p1 = postPtr[t + 1];
        for (let x = postPtr[t]; x < p1; x++) {
          const j = postItems[x];
          if (j >= skip0 && j < skip1) continue;
          gKey[n] = j;
          if (na > 1) gItem[n] = i;
          gProd[n] = w * postWeights[x];
          n++;
          counts[(j & RADIX_MASK) + 1]++;
          if (passes > 1) {
            counts[RADIX_SLOTS + ((j >>> RADIX_BITS) & RADIX_MASK) + 1]++;
            for (let d = 2; d < passes; d++) counts[d * RADIX_SLOTS + ((j >>> (d * RADIX_BITS)) & RADIX_MASK) + 1]++;
          }
        }
      }
    }
    return n;
  }

  /**
   * Stable LSD radix sort of the n gathered items: positions and their items move together, so
   * each pass reads in sequence (equal items keep traversal order). The sorted items end in
   * sortedKeys, their gather positions in sortedPerm.
   */
  private radixSortGathered(n: number): void {
    const passes = this.radixPasses;
    const counts = this.counts;
    let keys = this.gKey;
    let perm = this.permA;
    let nextKeys = this.keysB;
    let nextPerm = this.permB;
    for (let d = 0; d < passes; d++) {
      const base = d * RADIX_SLOTS;
      for (let c = 0; c < RADIX_MASK; c++) counts[base + c + 1] += counts[base + c];
      const shift = d * RADIX_BITS;
      for (let x = 0; x < n; x++) {
        const k = keys[x];
        const at = counts[base + ((k >>> shift) & RADIX_MASK)]++;
        nextKeys[at] = k;
        nextPerm[at] = d === 0 ? x : perm[x];
      }
      const swapKeys = d === 0 ? this.keysA : keys;
      const swapPerm = perm;
      keys = nextKeys;
      perm = nextPerm;
      nextKeys = swapKeys;
      nextPerm = swapPerm;
    }
    if (passes === 0) for (let x = 0; x < n; x++) perm[x] = x;
    this.sortedKeys = keys;
    this.sortedPerm = perm;
  }

  /**
   * One sweep over the n sorted postings: per item its dots (one run per query item), per paper
   * its row maxima and column maxima (a paper's items are the index range offsets[b]..offsets[b + 1]);
   * writes touchedPapers and scanScores, and returns how many papers.
   */
  private reducePapers(n: number, na: number): number {
    const { offsets } = this.items;
    const { gItem, gProd, rowBest, paperCols, paperFirst, touchedPapers, scanScores, sortedKeys: keys, sortedPerm: perm } = this;
    const paperOf = this.paperOf;
    let nPapers = 0;
    let r = 0;
    while (r < n) {
      const b = paperOf[keys[r]];
      const end = offsets[b + 1];
      for (let i = 0; i < na; i++) rowBest[i] = 0;
      let nCols = 0;
      while (r < n && keys[r] < end) {
        const j = keys[r];
        const first = perm[r];
        let col = 0;
        if (na === 1) {
          // One query item (most rows): the item's run is one dot.
          let d = 0;
          while (r < n && keys[r] === j) d += gProd[perm[r++]];
          if (d > col) col = d;
          if (d > rowBest[0]) rowBest[0] = d;
        } else {
          while (r < n && keys[r] === j) {
            const i = gItem[perm[r]];
            let d = 0;
            while (r < n && keys[r] === j && gItem[perm[r]] === i) d += gProd[perm[r++]];
            if (d > col) col = d;
            if (d > rowBest[i]) rowBest[i] = d;
          }
        }
        // Column maxima in the order the traversal first reached their items (insertion by first position).
        let at = nCols++;
        while (at > 0 && paperFirst[at - 1] > first) {
          paperFirst[at] = paperFirst[at - 1];
          paperCols[at] = paperCols[at - 1];
          at--;
        }
        paperFirst[at] = first;
        paperCols[at] = col;
      }
      let rowSum = 0;
      for (let i = 0; i < na; i++) rowSum += rowBest[i];
      let colSum = 0;
      for (let c = 0; c < nCols; c++) colSum += paperCols[c];
      touchedPapers[nPapers] = b;
      scanScores[nPapers++] = 0.5 * (rowSum / na + colSum / (end - offsets[b]));
    }
    return nPapers;
  }

  /** Gather and sort scratch for `postings` postings of `na` query items. */
  private reserveGather(postings: number, na: number): void {
    if (this.gKey.length < postings) {
      const size = Math.max(postings, 2 * this.gKey.length);
      this.gKey = new Int32Array(size);
      this.gItem = new Int32Array(size);
      this.gProd = new Float64Array(size);
      this.keysA = new Int32Array(size);
      this.keysB = new Int32Array(size);
      this.permA = new Int32Array(size);
      this.permB = new Int32Array(size);
    }
    if (this.rowBest.length < na) this.rowBest = new Float64Array(na);
  }

  /**
   * Top-k corpus papers by s_lex of each corpus paper (ties: lower index), through the inverted
   * file; scores are exact. The lists are exact when no term has more than `maxPostings`
   * postings; otherwise each row with a cut term is ranked over its best `candidates` by partial
   * score (see LexicalTopKOptions, DEFAULT_LEXICAL_BOUND). lexical-pool.ts runs the same rows on
   * worker threads.
   */
  allPairsTopK(k: number, options: LexicalTopKOptions = {}): RankedNeighbours {
    const n = this.numPapers;
    const lines = options.onProgress ? null : lexicalProgressLines(this.numItems);
    const report = options.onProgress ?? (lines as { update: (done: number, total: number) => void }).update;
    const parts: LexicalRowLists[] = [];
    for (let from = 0; from < n; from += 1024) {
      parts.push(this.rowsTopK(from, Math.min(n, from + 1024), k, options));
      report(Math.min(n, from + 1024), n);
    }
    lines?.done();
    return concatRowLists(n, k, parts);
  }

  /** Rows from..to of allPairsTopK (the same bound and options): the unit lexical-pool.ts hands a thread. */
  rowsTopK(from: number, to: number, k: number, options: LexicalTopKOptions = {}): LexicalRowLists {
    const { cap, candidates } = lexicalBound(k, options);
    const rows = to - from;
    const offsets = new Int32Array(rows + 1);
    let targets = new Int32Array(rows * Math.min(k, 64));
    let scores = new Float32Array(targets.length);
    for (let r = 0; r < rows; r++) {
      const row = this.rankRow(from + r, k, cap, candidates);
      const at = offsets[r];
      if (at + row.size > targets.length) {
        const grownT = new Int32Array(Math.max(at + row.size, 2 * targets.length));
        grownT.set(targets);
        targets = grownT;
        const grownS = new Float32Array(grownT.length);
        grownS.set(scores);
        scores = grownS;
      }
      for (let i = 0; i < row.size; i++) {
        targets[at + i] = row.targets[i];
        scores[at + i] = row.scores[i];
      }
      offsets[r + 1] = at + row.size;
    }
    return { from, to, offsets, targets: targets.slice(0, offsets[rows]), scores: scores.slice(0, offsets[rows]) };
  }

  /** Row a of allPairsTopK alone (the same bound and options), to measure a bound's recall on a sample of rows. */
  rowTopK(a: number, k: number, options: LexicalTopKOptions = {}): LexicalRow {
    const { cap, candidates } = lexicalBound(k, options);
    const row = this.rankRow(a, k, cap, candidates);
    return { targets: row.targets.slice(0, row.size), scores: Float32Array.from(row.scores.subarray(0, row.size)) };
  }

  /**
   * Row a's top k by exact s_lex over its candidates: every paper sharing a term with it when
   * none of its terms has more than `cap` postings, else its best `candidates` by the partial
   * score of the truncated postings. The returned RowTop is scratch, valid until the next call.
   */
  private rankRow(a: number, k: number, cap: number, candidates: number): RowTop {
    const { offsets, itemPtr, terms } = this.items;
    const a0 = offsets[a];
    const a1 = offsets[a + 1];
    const postings = this.postingsUpTo(cap);
    const top = this.top;
    top.reset(k);
    // Partial scores only where the row has a truncated term; otherwise they are exact.
    let partial = false;
    for (let e = itemPtr[a0]; e < itemPtr[a1] && !partial; e++) partial = this.df(terms[e]) > cap;
    const reached = this.scan(this.items, a0, a1, a0, a1, postings);
    const { touchedPapers, scanScores } = this;
    if (!partial) {
      for (let r = 0; r < reached; r++) top.offer(touchedPapers[r], scanScores[r]);
      return top;
    }
    const pool = this.pool;
    pool.reset(candidates);
    for (let r = 0; r < reached; r++) pool.offer(touchedPapers[r], scanScores[r]);
    for (let i = 0; i < pool.size; i++) top.offer(pool.targets[i], this.pairScore(a, pool.targets[i]));
    return top;
  }

  /** The postings with each term's list cut to its `cap` highest weights (ties: lower item), cached for the last cap. */
  private postingsUpTo(cap: number): LexicalPostings {
    if (!(cap < this.numItems)) return this.full;
    if (this.truncated?.cap === cap) return this.truncated.postings;
    const full = this.full;
    const numTerms = this.items.numTerms;
    const ptr = new Int32Array(numTerms + 1);
    for (let t = 0; t < numTerms; t++) ptr[t + 1] = ptr[t] + Math.min(cap, this.df(t));
    const items = new Int32Array(ptr[numTerms]);
    const weights = new Float32Array(ptr[numTerms]);
    for (let t = 0; t < numTerms; t++) {
      const p0 = full.ptr[t];
      const p1 = full.ptr[t + 1];
      if (p1 - p0 <= cap) {
        // Untruncated lists keep their order, so a row without a truncated term sums as the exact scan does.
        items.set(full.items.subarray(p0, p1), ptr[t]);
        weights.set(full.weights.subarray(p0, p1), ptr[t]);
        continue;
      }
      const order = Array.from({ length: p1 - p0 }, (_, i) => p0 + i);
      order.sort((x, y) => full.weights[y] - full.weights[x] || full.items[x] - full.items[y]);
      for (let i = 0; i < cap; i++) {
        items[ptr[t] + i] = full.items[order[i]];
        weights[ptr[t] + i] = full.weights[order[i]];
      }
    }
    const postings = { ptr, items, weights };
    this.truncated = { cap, postings };
    return postings;
  }

  /** Top-k corpus papers by s_lex for one query's items (ephemeral insertion); `exclude` is never returned. */
  queryTopK(query: readonly SparseVector[], k: number, exclude = -1): LexicalRow {
    const { offsets } = this.items;
    const skip = exclude >= 0 && exclude < this.numPapers;
    const reached = this.scan(
      packSparse(this.items.numTerms, [query]),
      0,
      query.length,
      skip ? offsets[exclude] : 0,
      skip ? offsets[exclude + 1] : 0,
      this.full,
    );
    const top = this.top;
    top.reset(k);
    for (let r = 0; r < reached; r++) top.offer(this.touchedPapers[r], this.scanScores[r]);
    return { targets: top.targets.slice(0, top.size), scores: Float32Array.from(top.scores.subarray(0, top.size)) };
  }
}

/** Row lists of consecutive row ranges (in row order, covering 0..numPapers) as one RankedNeighbours. */
export function concatRowLists(numPapers: number, k: number, parts: readonly LexicalRowLists[]): RankedNeighbours {
  const offsets = new Int32Array(numPapers + 1);
  let total = 0;
  let next = 0;
  for (const part of parts) {
    if (part.from !== next) throw new Error(`lexical row lists: rows ${next}.. missing (a part starts at ${part.from})`);
    for (let r = 0; r < part.to - part.from; r++) offsets[part.from + r + 1] = total + part.offsets[r + 1];
    total += part.offsets[part.to - part.from];
    next = part.to;
  }
  if (next !== numPapers) throw new Error(`lexical row lists: rows ${next}..${numPapers} missing`);
  const targets = new Int32Array(total);
  const scores = new Float32Array(total);
  for (const part of parts) {
    targets.set(part.targets, offsets[part.from]);
    scores.set(part.scores, offsets[part.from]);
  }
  return { numPapers, k, offsets, targets, scores, aux: new Float32Array(0), auxWidth: 0 };
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

/** One row's best k (ties: lower target), kept sorted best first; scores ranked in float64. */
class RowTop {
  targets = new Int32Array(0);
  scores = new Float64Array(0);
  size = 0;
  private k = 0;

  reset(k: number): void {
    if (this.targets.length < k) {
      this.targets = new Int32Array(k);
      this.scores = new Float64Array(k);
    }
    this.k = k;
    this.size = 0;
  }

  offer(t: number, s: number): void {
    if (this.k === 0 || !(s > 0)) return;
    const { targets, scores } = this;
    let at = this.size;
    if (at === this.k) {
      const ls = scores[at - 1];
      if (s < ls || (s === ls && t > targets[at - 1])) return;
      at--;
    } else this.size++;
    while (at > 0 && (scores[at - 1] < s || (scores[at - 1] === s && targets[at - 1] > t))) {
      targets[at] = targets[at - 1];
      scores[at] = scores[at - 1];
      at--;
    }
    targets[at] = t;
    scores[at] = s;
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
