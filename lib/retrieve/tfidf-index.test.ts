import assert from "node:assert/strict";
import { test } from "node:test";
import { idfFrom, tfidfTokens, tfidfVector } from "@/lib/text";
import { TfidfIndex } from "./tfidf-index";

test("TF-IDF: scikit-learn's sublinear tf, smoothed idf, cosine of unit vectors", () => {
  assert.deepEqual(tfidfTokens("A BiLSTM-CRF tagger, x2 and a_b!"), ["bilstm", "crf", "tagger", "x2", "and", "a_b"]);
  const docs = [
    ["neural", "translation", "translation"],
    ["neural", "tagger"],
    ["sentiment", "lexicon"],
  ].map((d) => d);
  const idf = idfFrom(docs);
  assert.equal(idf.of("neural"), Math.log(4 / 3) + 1);
  assert.equal(idf.of("unseen"), Math.log(4) + 1);
  const v = tfidfVector(["translation", "translation", "neural"], idf);
  const wt = (1 + Math.log(2)) * (Math.log(4 / 2) + 1);
  const wn = Math.log(4 / 3) + 1;
  assert.ok(Math.abs((v.get("translation") as number) - wt / Math.hypot(wt, wn)) < 1e-12);
  const index = new TfidfIndex(docs, idf);
  const hits = index.search(["translation", "neural"], 5);
  assert.deepEqual(
    hits.map((h) => h.doc),
    [0, 1],
    "a document sharing no term is not returned",
  );
  assert.ok(Math.abs(index.search(docs[0], 1)[0].score - 1) < 1e-6, "a document is its own nearest, cosine 1");
  assert.deepEqual(index.search(["nothing"], 5), []);
});

test("TF-IDF over documents tokenised on demand: the same idf and hits as token lists", () => {
  const texts = ["Neural translation, translation", "neural tagger", "sentiment lexicon", ""];
  const idfLazy = idfFrom({ length: texts.length, at: (d) => tfidfTokens(texts[d]) });
  const idf = idfFrom(texts.map(tfidfTokens));
  for (const t of ["neural", "translation", "lexicon", "unseen"]) assert.equal(idfLazy.of(t), idf.of(t));
  const lazy = new TfidfIndex({ length: texts.length, at: (d) => tfidfTokens(texts[d]) }, idfLazy);
  const eager = new TfidfIndex(texts.map(tfidfTokens), idf);
  for (const q of [["neural"], ["translation", "neural", "lexicon"], ["absent"]]) assert.deepEqual(lazy.search(q, 10), eager.search(q, 10));
});

test("TF-IDF indexes share the idf's vocabulary, and index terms outside it too", () => {
  const reference = [["neural", "translation"], ["neural", "tagger"], ["parsing"]];
  const idf = idfFrom(reference);
  assert.deepEqual([...(idf.terms?.keys() ?? [])], ["neural", "translation", "tagger", "parsing"]);
  // "lexicon" and "sentiment" are in no reference document: they get the unseen idf and are still searchable.
  const docs = [["neural", "translation", "translation"], ["sentiment", "lexicon"], ["neural", "lexicon", "parsing"], []];
  const index = new TfidfIndex(docs, idf);
  const cosine = (a: Map<string, number>, b: Map<string, number>) => [...a].reduce((s, [t, w]) => s + w * (b.get(t) ?? 0), 0);
  for (const query of [["lexicon"], ["neural", "parsing"], ["translation", "sentiment", "neural"], ["absent"]]) {
    const q = tfidfVector(query, idf);
    const expected = docs
      .map((d, doc) => ({ doc, score: cosine(q, tfidfVector(d, idf)) }))
      .filter((h) => h.score > 0)
      .sort((x, y) => y.score - x.score || x.doc - y.doc);
    const hits = index.search(query, 10);
    assert.deepEqual(
      hits.map((h) => h.doc),
      expected.map((h) => h.doc),
      query.join(" "),
    );
    hits.forEach((h, i) => assert.ok(Math.abs(h.score - expected[i].score) < 1e-6, `${query.join(" ")}: score of doc ${h.doc}`));
  }
});
