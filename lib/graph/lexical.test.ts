import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mulberry32 } from "@/lib/random";
import {
  fitLexicalModel,
  LexicalIndex,
  lexicalFacetIndex,
  lexicalVector,
  packLexicalItems,
  parseLexicalModel,
  serialiseLexicalModel,
  type LexicalModel,
  type SparseVector,
} from "./lexical";
import { lexicalTerms, porterStem } from "@/lib/text";

const close = (a: number, b: number, eps = 1e-6): void => assert.ok(Math.abs(a - b) < eps, `${a} ≉ ${b}`);

/** t(a, b): cosine of two sparse unit vectors, by a plain map. */
function cos(a: SparseVector, b: SparseVector): number {
  const m = new Map<number, number>();
  a.terms.forEach((t, i) => m.set(t, a.weights[i]));
  let s = 0;
  b.terms.forEach((t, i) => (s += (m.get(t) ?? 0) * b.weights[i]));
  return s;
}

/** Reference s_lex by brute force over item pairs. */
function sLex(model: LexicalModel, a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const va = a.map((t) => lexicalVector(model, t));
  const vb = b.map((t) => lexicalVector(model, t));
  const row = va.reduce((s, x) => s + Math.max(...vb.map((y) => cos(x, y))), 0) / va.length;
  const col = vb.reduce((s, y) => s + Math.max(...va.map((x) => cos(x, y))), 0) / vb.length;
  return 0.5 * (row + col);
}

const WORDS =
  "translation neural machine entity recognition tagger sentiment review parsing dependency graph attention corpus bilingual lexicon tweets clinical summarization question answering retrieval".split(
    " ",
  );

function randomPapers(seed: number, n: number): string[][] {
  const rand = mulberry32(seed);
  return Array.from({ length: n }, (_, p) =>
    Array.from({ length: p % 5 === 0 ? 0 : 1 + Math.floor(rand() * 3) }, () =>
      Array.from({ length: 2 + Math.floor(rand() * 5) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" "),
    ),
  );
}

describe("lexical terms and weights", () => {
  it("lowercases, drops stopwords and one-letter tokens, and stems", () => {
    assert.deepEqual(lexicalTerms("We translate the Translations of a BiLSTM-CRF tagger, 2 times."), [
      "translat",
      "translat",
      "bilstm",
      "crf",
      "tagger",
      "time",
    ]);
    assert.equal(porterStem("generalization"), "gener");
    assert.equal(porterStem("embeddings"), "embed");
    assert.equal(porterStem("caresses"), "caress");
    assert.equal(porterStem("relational"), "relat");
    assert.equal(porterStem("bert"), "bert");
  });

  it("weights with sublinear tf and smooth idf; unseen terms count in the norm only", () => {
    const model = fitLexicalModel(["neural translation", "neural parsing", "sentiment"], ["tweets"]);
    assert.equal(model.numDocs, 3);
    const id = (t: string) => model.termIndex.get(t) as number;
    assert.equal(model.df[id("neural")], 2);
    assert.equal(model.df[id("tweet")], 0, "an item-only term is in the vocabulary with df 0");
    close(model.idf[id("neural")], Math.log(4 / 3) + 1);
    close(model.unseenIdf, Math.log(4) + 1);
    const v = lexicalVector(model, "neural neural translation");
    const wn = (1 + Math.log(2)) * model.idf[id("neural")];
    const wt = model.idf[id("translat")];
    close(v.weights[Array.from(v.terms).indexOf(id("neural"))], wn / Math.hypot(wn, wt));
    const u = lexicalVector(model, "translation zebra");
    assert.deepEqual(Array.from(u.terms), [id("translat")]);
    close(u.weights[0], wt / Math.hypot(wt, model.unseenIdf));
    assert.equal(lexicalVector(model, "the of").terms.length, 0);
  });

  it("round-trips through its artefact and refuses another scheme", () => {
    const model = fitLexicalModel(["neural translation", "sentiment of reviews"]);
    const back = parseLexicalModel(serialiseLexicalModel(model));
    assert.deepEqual(back.terms, model.terms);
    assert.deepEqual(Array.from(back.idf), Array.from(model.idf));
    assert.throws(() => parseLexicalModel(JSON.stringify({ scheme: "other", numDocs: 1, terms: [], df: [] })), /scheme/);
  });
});

describe("LexicalIndex", () => {
  const papers = randomPapers(3, 60);
  const model = fitLexicalModel(papers.flat());
  const index = new LexicalIndex(packLexicalItems(model, papers));

  it("scores pairs exactly, symmetric, 0 for a paper without items", () => {
    for (const [a, b] of [
      [1, 2],
      [3, 7],
      [11, 4],
      [8, 8],
    ]) {
      close(index.pairScore(a, b), sLex(model, papers[a], papers[b]));
      close(index.pairScore(a, b), index.pairScore(b, a));
    }
    assert.equal(index.pairScore(0, 1), 0);
    close(index.pairScore(6, 6), 1, 1e-5);
  });

  it("all-pairs top-k equals brute force, ties by lower index, without the paper itself", () => {
    const k = 6;
    const got = index.allPairsTopK(k);
    for (let a = 0; a < papers.length; a++) {
      const s = papers.map((_, b) => (b === a ? -1 : sLex(model, papers[a], papers[b])));
      const want = Array.from(s.keys())
        .filter((b) => s[b] > 0)
        .sort((x, y) => s[y] - s[x] || x - y)
        .slice(0, k);
      const row = Array.from(got.targets.subarray(got.offsets[a], got.offsets[a + 1]));
      assert.equal(row.length, want.length, `paper ${a}`);
      row.forEach((b, i) => {
        close(got.scores[got.offsets[a] + i], s[want[i]], 1e-5);
        if (b !== want[i]) close(s[b], s[want[i]], 1e-5);
      });
    }
  });

  it("a query against every paper matches pairScore, never returns the excluded paper", () => {
    const query = papers[7].map((t) => lexicalVector(model, t));
    const top = index.queryTopK(query, 5, 7);
    assert.ok(!Array.from(top.targets).includes(7));
    top.targets.forEach((b, i) => close(top.scores[i], index.pairScore(7, b), 1e-5));
    const self = index.queryTopK(query, 1);
    assert.equal(self.targets[0], 7);
    close(index.queryPairScore(query, 3), index.pairScore(7, 3));
    assert.equal(index.queryTopK([], 5).targets.length, 0);
  });

  it("a posting cap ranks rows over rescored candidates: exact scores, exact lists when nothing is cut", () => {
    const k = 6;
    const exact = index.allPairsTopK(k, { maxPostings: Infinity });
    assert.deepEqual(index.allPairsTopK(k), exact, "no term of this small corpus exceeds the default cap");
    assert.ok(
      Array.from(model.terms.keys()).some((t) => index.df(t) > 3),
      "the cap of 3 cuts some terms",
    );
    const capped = index.allPairsTopK(k, { maxPostings: 3, candidates: k });
    for (let a = 0; a < papers.length; a++) {
      const [e0, e1] = [capped.offsets[a], capped.offsets[a + 1]];
      for (let e = e0; e < e1; e++) {
        assert.notEqual(capped.targets[e], a);
        close(capped.scores[e], index.pairScore(a, capped.targets[e]), 1e-5);
        // The exact list is the best there is: the capped one never ranks higher at any position.
        assert.ok(capped.scores[e] <= exact.scores[exact.offsets[a] + e - e0] + 1e-6);
      }
      assert.deepEqual(index.rowTopK(a, k, { maxPostings: 3, candidates: k }).targets, capped.targets.subarray(e0, e1));
    }
  });

  it("a capped term keeps its highest-weighted postings (where a match on it decides the cosine)", () => {
    // "alpha" is in every item; it weighs most in paper 6's one-word item, least in the long ones.
    const texts = [
      ["alpha beta"],
      ["alpha gamma delta epsilon"],
      ["alpha zeta eta theta"],
      ["alpha iota kappa lambda"],
      ["alpha mu nu xi"],
      ["alpha omicron rho sigma"],
      ["alpha"],
    ];
    const m = fitLexicalModel(texts.flat());
    const idx = new LexicalIndex(packLexicalItems(m, texts));
    const top = idx.rowTopK(0, 1, { maxPostings: 1, candidates: 1 });
    assert.deepEqual(Array.from(top.targets), [6]);
    assert.deepEqual(top.targets, idx.rowTopK(0, 1, { maxPostings: Infinity }).targets);
    close(top.scores[0], idx.pairScore(0, 6));
  });

  it("pair scores are the plain item-by-item max-sim, bit for bit (the scattered query changes no sum)", () => {
    const vectors = papers.map((texts) => texts.map((t) => lexicalVector(model, t)));
    // Dots by merging the two term lists, summed in ascending term order as the index sums them.
    const dot = (x: SparseVector, y: SparseVector): number => {
      let s = 0;
      for (let i = 0, j = 0; i < x.terms.length && j < y.terms.length;) {
        if (x.terms[i] === y.terms[j]) s += x.weights[i++] * y.weights[j++];
        else if (x.terms[i] < y.terms[j]) i++;
        else j++;
      }
      return s;
    };
    const plain = (a: number, b: number): number => {
      const [va, vb] = [vectors[a], vectors[b]];
      if (va.length === 0 || vb.length === 0) return 0;
      let rowSum = 0;
      const col = vb.map(() => 0);
      for (const x of va) {
        let best = 0;
        vb.forEach((y, j) => {
          const d = dot(x, y);
          if (d > best) best = d;
          if (d > col[j]) col[j] = d;
        });
        rowSum += best;
      }
      return 0.5 * (rowSum / va.length + col.reduce((s, c) => s + c, 0) / vb.length);
    };
    for (let a = 0; a < papers.length; a++) for (let b = 0; b < papers.length; b += 7) assert.equal(index.pairScore(a, b), plain(a, b), `pair ${a}, ${b}`);
    assert.equal(index.queryPairScore(vectors[9], 4), plain(9, 4));
  });

  it("ranks a larger corpus (many items a paper, several radix passes) as brute force does, capped or not", () => {
    const big = randomPapers(5, 400).map((texts, p) => (p % 7 === 1 ? [...texts, ...texts.map((t) => `${t} corpus`), "tweets"] : texts));
    const m = fitLexicalModel(big.flat());
    const idx = new LexicalIndex(packLexicalItems(m, big));
    assert.ok(idx.numItems > 512, "more items than one radix digit");
    const k = 5;
    const exact = idx.allPairsTopK(k, { maxPostings: Infinity });
    for (let a = 0; a < big.length; a += 3) {
      const s = big.map((_, b) => (b === a ? -1 : idx.pairScore(a, b)));
      const want = Array.from(s.keys())
        .filter((b) => s[b] > 0)
        .sort((x, y) => s[y] - s[x] || x - y)
        .slice(0, k);
      const row = Array.from(exact.targets.subarray(exact.offsets[a], exact.offsets[a + 1]));
      assert.equal(row.length, want.length, `paper ${a}`);
      row.forEach((b, i) => {
        close(exact.scores[exact.offsets[a] + i], s[want[i]], 1e-6);
        if (b !== want[i]) close(s[b], s[want[i]], 1e-9);
      });
    }
    // Capped: every listed score is the exact pair score, and the rows are those of rowTopK.
    const capped = idx.allPairsTopK(k, { maxPostings: 20, candidates: 30 });
    for (let a = 0; a < big.length; a += 5) {
      const [e0, e1] = [capped.offsets[a], capped.offsets[a + 1]];
      for (let e = e0; e < e1; e++) assert.equal(capped.scores[e], Math.fround(idx.pairScore(a, capped.targets[e])));
      assert.deepEqual(idx.rowTopK(a, k, { maxPostings: 20, candidates: 30 }).targets, capped.targets.subarray(e0, e1));
    }
  });

  it("reports progress every 1,024 rows and at the end", () => {
    const calls: [number, number][] = [];
    index.allPairsTopK(3, { onProgress: (d, t) => calls.push([d, t]) });
    assert.deepEqual(calls, [[papers.length, papers.length]]);
  });

  it("builds one index per facet for serving", () => {
    const both = lexicalFacetIndex(model, { methods: papers, problems: papers.slice().reverse() });
    assert.deepEqual(Object.keys(both.facets).sort(), ["methods", "problems"]);
    close(both.facets.methods?.pairScore(1, 2) as number, index.pairScore(1, 2));
  });
});
