import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  analyzer,
  bm25Idf,
  contentTokens,
  ENGLISH_STOPWORDS,
  extractorTokens,
  foldPlural,
  idfFrom,
  INDEX_STOPWORDS,
  lexicalTerms,
  lsaTerms,
  luceneIdf,
  OVERLAP_STOPWORDS,
  smoothIdf,
  sublinearTf,
  termCounts,
  tfidfTokens,
  tfidfVector,
  tokenize,
} from "./analyzer";
import { porterStem } from "./porter";

const MIXED = "State-of-the-art BiLSTM_CRF: don't a 中文 naïve x";

describe("token patterns", () => {
  it("words: runs of letters and digits in any script, split at hyphens, apostrophes and underscores", () => {
    assert.deepEqual(analyzer({ pattern: "words" })(MIXED), ["state", "of", "the", "art", "bilstm", "crf", "don", "t", "a", "中文", "naïve", "x"]);
    assert.deepEqual(analyzer()(MIXED), analyzer({ pattern: "words" })(MIXED), "words is the default");
  });

  it("sklearn: two or more word characters, underscores kept, one-letter tokens never match", () => {
    assert.deepEqual(analyzer({ pattern: "sklearn" })(MIXED), ["state", "of", "the", "art", "bilstm_crf", "don", "中文", "naïve"]);
  });

  it("hyphenated: ASCII words keeping inner hyphens and apostrophes; other letters split or drop the word", () => {
    assert.deepEqual(analyzer({ pattern: "hyphenated" })(MIXED), ["state-of-the-art", "bilstm", "crf", "don't", "a", "na", "ve", "x"]);
  });

  it("match lowercased text and give nothing for empty text", () => {
    assert.deepEqual(analyzer()("BERT Bert bert"), ["bert", "bert", "bert"]);
    for (const pattern of ["words", "sklearn", "hyphenated"] as const) assert.deepEqual(analyzer({ pattern })(""), []);
  });
});

describe("stopword lists", () => {
  it("ENGLISH_STOPWORDS (function words) is contained in INDEX_STOPWORDS, which adds words like 'about' and 'within'", () => {
    for (const w of ENGLISH_STOPWORDS) assert.ok(INDEX_STOPWORDS.has(w), w);
    for (const w of ["about", "within", "etc", "whether"]) {
      assert.ok(INDEX_STOPWORDS.has(w), w);
      assert.ok(!ENGLISH_STOPWORDS.has(w), w);
    }
  });

  it("OVERLAP_STOPWORDS adds the words that describe the writing, absent from the other lists", () => {
    for (const w of ["paper", "work", "study", "using", "use", "used", "based", "however"]) {
      assert.ok(OVERLAP_STOPWORDS.has(w), w);
      assert.ok(!INDEX_STOPWORDS.has(w) && !ENGLISH_STOPWORDS.has(w), w);
    }
    for (const w of ["the", "of", "we", "which"]) assert.ok(ENGLISH_STOPWORDS.has(w) && INDEX_STOPWORDS.has(w) && OVERLAP_STOPWORDS.has(w), w);
  });

  it("are applied to the token before stemming, and minLength counts the token before stemming", () => {
    const drop = analyzer({ stopwords: new Set(["used"]), minLength: 4, stemmer: "porter" });
    // "used" is dropped as itself; "uses" (not listed) stems to "us", below minLength only after stemming.
    assert.deepEqual(drop("used uses them cats the"), ["us", "them", "cat"]);
  });
});

describe("stemmers", () => {
  it("porter: the Porter (1980) stemmer, cached", () => {
    assert.deepEqual(analyzer({ stemmer: "porter" })("translations translating generalization caresses bert"), [
      "translat",
      "translat",
      "gener",
      "caress",
      "bert",
    ]);
    assert.equal(porterStem("relational"), "relat");
    assert.equal(porterStem("naïve"), "naïve", "non-ASCII words are left alone");
  });

  it("plural: folds -ies and -s only, keeping -ss, -us, -is and short words", () => {
    assert.deepEqual(["studies", "models", "parses", "class", "corpus", "analysis", "gas", "flies", "ies", "bias"].map(foldPlural), [
      "study",
      "model",
      "parse",
      "class",
      "corpus",
      "analysis",
      "gas",
      "fly",
      "ies",
      "bia",
    ]);
  });
});

describe("the named analyzers", () => {
  const text = "The studies of translations, using models; a BiLSTM-CRF 2 times";

  it("lexicalTerms and lsaTerms drop the same words and differ only in stemming", () => {
    assert.deepEqual(lexicalTerms(text), ["studi", "translat", "us", "model", "bilstm", "crf", "time"]);
    assert.deepEqual(lsaTerms(text), ["study", "translation", "using", "model", "bilstm", "crf", "time"]);
  });

  it("tfidfTokens keeps stopwords (idf weighs them down) and underscores", () => {
    assert.deepEqual(tfidfTokens("The word_piece of a model"), ["the", "word_piece", "of", "model"]);
  });

  it("the extractor's words keep hyphenated compounds; its content words drop the words about the writing", () => {
    const sentence = "This paper studies state-of-the-art models, using a BiLSTM";
    assert.deepEqual(extractorTokens(sentence), ["this", "paper", "studies", "state-of-the-art", "models", "using", "a", "bilstm"]);
    assert.deepEqual(contentTokens(sentence), ["studies", "state-of-the-art", "models", "bilstm"]);
  });

  it("tokenize (BM25): no filter by default; stopwords true is ENGLISH_STOPWORDS; a custom set and minLength", () => {
    assert.deepEqual(tokenize("The cat, a Cat."), ["the", "cat", "a", "cat"]);
    assert.deepEqual(tokenize("The cat, a Cat.", { stopwords: true }), ["cat", "cat"]);
    assert.deepEqual(tokenize("The cat, a Cat.", { stopwords: new Set(["cat"]) }), ["the", "a"]);
    assert.deepEqual(tokenize("The cat, a Cat.", { minLength: 3 }), ["the", "cat", "cat"]);
    assert.deepEqual(tokenize("about the cat", { stopwords: true }), ["about", "cat"], "'about' is an index stopword, not an English one");
  });
});

describe("weighting", () => {
  it("termCounts counts in order of first occurrence", () => {
    assert.deepEqual(
      [...termCounts(["b", "a", "b", "c", "b"])],
      [
        ["b", 3],
        ["a", 1],
        ["c", 1],
      ],
    );
  });

  it("sublinear tf, smooth idf and the two BM25 idfs", () => {
    assert.equal(sublinearTf(1), 1);
    assert.equal(sublinearTf(3), 1 + Math.log(3));
    assert.equal(smoothIdf(3, 2), Math.log(4 / 3) + 1);
    assert.equal(smoothIdf(3, 0), Math.log(4) + 1);
    // rank-bm25's idf turns negative for a term in over half the documents; Lucene's never does.
    assert.equal(bm25Idf(10, 1), Math.log(9.5) - Math.log(1.5));
    assert.ok(bm25Idf(10, 8) < 0);
    assert.equal(luceneIdf(10, 8), Math.log(1 + 2.5 / 8.5));
    assert.ok(luceneIdf(10, 10) > 0);
  });

  it("idfFrom counts document frequency once per document and gives unseen terms the largest idf", () => {
    const idf = idfFrom([["a", "a", "b"], ["a"], ["c"]]);
    assert.equal(idf.of("a"), smoothIdf(3, 2));
    assert.equal(idf.of("b"), smoothIdf(3, 1));
    assert.equal(idf.of("zzz"), Math.log(4) + 1);
    assert.deepEqual(
      [...(idf.terms ?? [])],
      [
        ["a", 0],
        ["b", 1],
        ["c", 2],
      ],
    );
  });

  it("tfidfVector is the unit sublinear tf·idf vector, weights exactly (1 + ln tf)·idf / norm", () => {
    const idf = idfFrom([["a", "b"], ["a"], ["c"]]);
    const v = tfidfVector(["b", "a", "b"], idf);
    const wb = (1 + Math.log(2)) * smoothIdf(3, 1);
    const wa = smoothIdf(3, 2);
    const norm = Math.sqrt(wb * wb + wa * wa);
    assert.deepEqual(
      [...v],
      [
        ["b", wb / norm],
        ["a", wa / norm],
      ],
    );
    assert.deepEqual([...tfidfVector([], idf)], []);
  });
});
