import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encoderEvidence, encoderSearch, textEncoder, type PaperEncoder } from "./text-encoder";

const PAPERS = [
  "Neural machine translation with attention. We translate sentences between languages with an encoder-decoder and attention.",
  "Dependency parsing with transition systems. A greedy transition-based parser for syntactic dependency trees.",
  "Sentiment analysis of product reviews. We classify the polarity of customer reviews with a lexicon.",
];

function corpus(): PaperEncoder {
  const encoder = textEncoder("models/acl-contrastive");
  assert.ok(encoder, "the shipped encoder loads");
  const vectors = new Float32Array(PAPERS.length * encoder.dim);
  PAPERS.forEach((t, n) => vectors.set(encoder.embedOne(t), n * encoder.dim));
  return { encoder, vectors };
}

describe("the text encoder", () => {
  it("is off when the setting says so, and loaded once per folder", () => {
    assert.equal(textEncoder("off"), null);
    assert.equal(textEncoder("models/acl-contrastive"), textEncoder("models/acl-contrastive"));
  });

  it("ranks whole papers by cosine, best first, leaving out the papers it must never return", () => {
    const pe = corpus();
    const hits = encoderSearch(pe, "attention-based neural translation of sentences", 3);
    assert.equal(hits[0].doc, 0);
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
    assert.ok(hits[0].score > 0 && hits[0].score <= 1 + 1e-6);
    assert.ok(!encoderSearch(pe, "attention-based neural translation of sentences", 3, new Set([0])).some((h) => h.doc === 0));
    assert.equal(encoderSearch(pe, "parsing", 1).length, 1);
  });

  it("gives the second stage a candidate's cosine and the best cosine over the usable papers", () => {
    const pe = corpus();
    const query = "a transition-based dependency parser";
    const ev = encoderEvidence(pe, query, () => true);
    const hits = encoderSearch(pe, query, 3);
    assert.ok(Math.abs(ev.best - hits[0].score) < 1e-6);
    assert.ok(Math.abs(ev.cosine(1) - hits.find((h) => h.doc === 1)!.score) < 1e-6);
    // The best paper unusable (the query's own node, a hidden one): the best is another's.
    assert.ok(encoderEvidence(pe, query, (n) => n !== 1).best < ev.best);
  });
});
