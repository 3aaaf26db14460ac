/**
 * The one text analyzer of lib/: how a text becomes terms (tokenise → drop stopwords and short
 * tokens → stem) and how terms are weighted (TF-IDF). BM25, the TF-IDF indexes, the lexical graph
 * pass, LSA, the offline facet extractor and evaluation all read text through it.
 *
 * The callers' variants differ on purpose (BM25 and LSA fold different word forms; the offline
 * extractor keeps "state-of-the-art" whole; the TF-IDF indexes follow scikit-learn), so each
 * variant is a named option here and every caller keeps its exact terms: a stored build
 * (lexical.json, an LSA model) is read the way it was made, and rankings stay bit-identical.
 */
import { porterStem } from "./porter";

/** Token patterns, matched against lowercased text. */
export const TOKEN_PATTERNS = {
  /** Runs of letters and digits, any script: "BiLSTM-CRF" → "bilstm", "crf". */
  words: /[\p{L}\p{N}]+/gu,
  /** scikit-learn's default token_pattern (\b\w\w+\b): two or more letters, digits or underscores. */
  sklearn: /[\p{L}\p{N}_]{2,}/gu,
  /** ASCII words keeping inner hyphens and apostrophes ("state-of-the-art", "don't"); other scripts are dropped. */
  hyphenated: /[a-z0-9]+(?:[-'][a-z0-9]+)*/g,
} as const;
export type TokenPattern = keyof typeof TOKEN_PATTERNS;

const words = (list: string): ReadonlySet<string> => new Set(list.split(" "));

/** English function words only (BM25's optional filter, as rank-bm25 users apply one). */
export const ENGLISH_STOPWORDS = words(
  "a an and are as at be been being but by can could did do does for from had has have how if in into is it its " +
    "itself may might more most no nor not of on or our should so such than that the their them then there these " +
    "they this those through to too under up very was we were what when where which while who whom why will with " +
    "would you your",
);

/** Function words plus a few every scientific sentence uses, dropped before weighting (lexical graph pass, LSA). */
export const INDEX_STOPWORDS = words(
  "a about above after again against all also am an and any are as at be because been before being below between both but by " +
    "can could did do does doing down during each either etc few for from further had has have having he her here hers him his how " +
    "i if in into is it its itself just may me might more most much must my no nor not now of off on once only or other our ours " +
    "out over own same she should so some such than that the their theirs them themselves then there these they this those through " +
    "thus to too under until up upon us very via was we well were what when where whether which while who whom whose why will with " +
    "within without would yet you your",
);

/**
 * Function words plus the words that describe the writing rather than its content ("paper",
 * "work", "study", "using"): ignored when the offline extractor measures content overlap.
 */
export const OVERLAP_STOPWORDS = words(
  "a an the of to in on for and or but with by from as at is are was were be been being this that these those it its " +
    "we our us they their them which who whom whose what when where how than then there here such can could may might " +
    "will would should do does did has have had not no also both each more most other some into over under between " +
    "through about via using use used based while all any only very well so thus however further paper work study",
);

/**
 * Plurals folded, nothing else ("models" → "model", "studies" → "study"; "class", "corpus",
 * "analysis" kept): LSA joins the other variants through their co-occurrence.
 */
export function foldPlural(t: string): string {
  if (t.length > 4 && t.endsWith("ies")) return `${t.slice(0, -3)}y`;
  if (t.length > 3 && t.endsWith("s") && !/(ss|us|is)$/.test(t)) return t.slice(0, -1);
  return t;
}

// Porter stems of the words seen so far (a corpus repeats its words; bounded for a long-running server).
const porterCache = new Map<string, string>();
function cachedPorterStem(word: string): string {
  let s = porterCache.get(word);
  if (s === undefined) {
    s = porterStem(word);
    if (porterCache.size >= 500_000) porterCache.clear();
    porterCache.set(word, s);
  }
  return s;
}

export const STEMMERS = {
  none: null,
  /** Porter (1980): "translation", "translating" → "translat". */
  porter: cachedPorterStem,
  plural: foldPlural,
} as const;
export type Stemmer = keyof typeof STEMMERS;

export interface AnalyzerOptions {
  /** Default "words". */
  pattern?: TokenPattern;
  /** Tokens dropped before stemming; default none. */
  stopwords?: ReadonlySet<string>;
  /** Tokens shorter than this (UTF-16 units, before stemming) are dropped; default 1. */
  minLength?: number;
  /** Default "none". */
  stemmer?: Stemmer;
}

/** Text → terms, in text order, repeats kept (term frequencies count them). */
export type Analyzer = (text: string) => string[];

export function analyzer(options: AnalyzerOptions = {}): Analyzer {
  const pattern = TOKEN_PATTERNS[options.pattern ?? "words"];
  const stop = options.stopwords;
  const minLength = options.minLength ?? 1;
  const stem = STEMMERS[options.stemmer ?? "none"];
  return (text) => {
    const out: string[] = [];
    for (const m of text.toLowerCase().matchAll(pattern)) {
      const t = m[0];
      if (t.length < minLength || stop?.has(t)) continue;
      out.push(stem === null ? t : stem(t));
    }
    return out;
  };
}

// ── The named analyzers of lib/ (each caller's exact terms) ──

/** The lexical graph pass (its LEXICAL_SCHEME): words, INDEX_STOPWORDS, two characters or more, Porter-stemmed. */
export const lexicalTerms = analyzer({ stopwords: INDEX_STOPWORDS, minLength: 2, stemmer: "porter" });
/** LSA (its LSA_SCHEME): as lexicalTerms, with plurals folded instead of a full stemmer. */
export const lsaTerms = analyzer({ stopwords: INDEX_STOPWORDS, minLength: 2, stemmer: "plural" });
/** The TF-IDF indexes and evaluation's TF-IDF reference: scikit-learn's tokens, no stopword list (idf weighs function words down). */
export const tfidfTokens = analyzer({ pattern: "sklearn" });
/** The offline extractor's words: hyphenated, nothing dropped. */
export const extractorTokens = analyzer({ pattern: "hyphenated" });
/** The offline extractor's content words: extractorTokens minus OVERLAP_STOPWORDS and one-letter tokens. */
export const contentTokens = analyzer({ pattern: "hyphenated", stopwords: OVERLAP_STOPWORDS, minLength: 2 });

export interface TokenizeOptions {
  /** true: ENGLISH_STOPWORDS; or a custom set; default none. */
  stopwords?: boolean | ReadonlySet<string>;
  /** Tokens shorter than this are dropped; default 1. */
  minLength?: number;
}

/** BM25's tokens: lowercased runs of letters and digits (any script), optionally without stopwords. */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const stopwords = options.stopwords === true ? ENGLISH_STOPWORDS : options.stopwords || undefined;
  return analyzer({ stopwords, minLength: options.minLength })(text);
}

// ── Weighting ──

/** Documents as token lists: an array, or anything that hands out document d's tokens on demand. */
export interface TokenDocs {
  readonly length: number;
  at(d: number): readonly string[] | undefined;
}

/** Occurrences of each term, in order of first occurrence. */
export function termCounts(tokens: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/** Sublinear term frequency, 1 + ln count (scikit-learn's sublinear_tf). */
export const sublinearTf = (count: number): number => 1 + Math.log(count);

/** Smooth idf, ln((1 + N) / (1 + df)) + 1 (scikit-learn's smooth_idf): a term of no document gets ln(1 + N) + 1. */
export const smoothIdf = (docs: number, df: number): number => Math.log((1 + docs) / (1 + df)) + 1;

/** rank-bm25's BM25Okapi idf, ln((N − df + 0.5) / (df + 0.5)): negative for a term in over half the documents. */
export const bm25Idf = (docs: number, df: number): number => Math.log(docs - df + 0.5) - Math.log(df + 0.5);

/** Lucene's BM25 idf, ln(1 + (N − df + 0.5) / (df + 0.5)): never negative. */
export const luceneIdf = (docs: number, df: number): number => Math.log(1 + (docs - df + 0.5) / (df + 0.5));

export interface Idf {
  /** Smoothed idf of a term; a term of no reference document gets the largest, ln(1 + N) + 1. */
  of(term: string): number;
  /**
   * The reference documents' terms, term → id: indexes built with this idf share it as their
   * vocabulary (at 64k papers a vocabulary Map per index was ≈ 5 MiB of heap each).
   */
  readonly terms?: ReadonlyMap<string, number>;
}

/** Smooth idf over the reference documents (token lists, or tokenised on demand). */
export function idfFrom(docs: TokenDocs): Idf {
  const terms = new Map<string, number>();
  const df: number[] = [];
  for (let d = 0; d < docs.length; d++)
    for (const t of new Set(docs.at(d))) {
      const id = terms.get(t);
      if (id === undefined) terms.set(t, df.push(1) - 1);
      else df[id]++;
    }
  const n = docs.length;
  const idf = Float64Array.from(df, (c) => smoothIdf(n, c));
  const unseen = smoothIdf(n, 0);
  return {
    of: (t) => {
      const id = terms.get(t);
      return id === undefined ? unseen : idf[id];
    },
    terms,
  };
}

/** The L2-normalised sublinear tf·idf vector of a token list, as term → weight (terms in order of first occurrence). */
export function tfidfVector(tokens: readonly string[], idf: Idf): Map<string, number> {
  const v = new Map<string, number>();
  let norm = 0;
  for (const [t, c] of termCounts(tokens)) {
    const w = sublinearTf(c) * idf.of(t);
    v.set(t, w);
    norm += w * w;
  }
  norm = Math.sqrt(norm);
  if (norm > 0) for (const [t, w] of v) v.set(t, w / norm);
  return v;
}
