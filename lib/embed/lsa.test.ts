import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { mulberry32 } from "@/lib/random";
import { createLsaEmbedder, fitLsa, LsaEmbedder, lsaEmbedderId, lsaFingerprint, lsaTerms, orthonormaliseColumns, saveLsaModel, symmetricEigen } from "./lsa";
import { dot } from "./types";

const TOPICS = [
  "translation bilingual alignment decoder source target parallel phrase reordering bleu",
  "parser treebank dependency constituency grammar head arc projective tree attachment",
  "sentiment opinion polarity review aspect positive negative emotion subjectivity lexicon",
  "speech acoustic phoneme prosody recognition spoken audio pitch waveform transcription",
].map((t) => t.split(" "));
const COMMON = "method approach result propose evaluate data task performance system paper".split(" ");

/** Documents of 4 topics: 12 words of their topic's vocabulary plus 6 words every topic uses. */
function syntheticCorpus(docsPerTopic: number, seed = 7): string[] {
  const rnd = mulberry32(seed);
  const pick = (words: string[]) => words[Math.floor(rnd() * words.length)];
  const docs: string[] = [];
  for (let d = 0; d < docsPerTopic; d++) {
    for (const topic of TOPICS) {
      const words: string[] = [];
      for (let i = 0; i < 12; i++) words.push(pick(topic));
      for (let i = 0; i < 6; i++) words.push(pick(COMMON));
      docs.push(words.join(" "));
    }
  }
  return docs;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "graft-lsa-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe("lsaTerms", () => {
  test("lowercase, stopwords and single characters dropped, plurals folded", () => {
    assert.deepEqual(lsaTerms("The Models of studies: a BLEU-4 analysis, x"), ["model", "study", "bleu", "analysis"]);
    assert.deepEqual(lsaTerms("corpus class parses"), ["corpus", "class", "parse"]);
  });
});

describe("dense linear algebra", () => {
  test("symmetricEigen: A v = λ v and orthonormal eigenvectors", () => {
    const n = 12;
    const rnd = mulberry32(3);
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = i; j < n; j++) a[i * n + j] = a[j * n + i] = rnd() - 0.5;
    const copy = a.slice();
    const { values, vectors } = symmetricEigen(a, n);
    for (let c = 0; c < n; c++) {
      for (let i = 0; i < n; i++) {
        let av = 0;
        for (let k = 0; k < n; k++) av += copy[i * n + k] * vectors[k * n + c];
        assert.ok(Math.abs(av - values[c] * vectors[i * n + c]) < 1e-10, `residual of eigenpair ${c}`);
      }
      for (let d = 0; d < n; d++) {
        let s = 0;
        for (let k = 0; k < n; k++) s += vectors[k * n + c] * vectors[k * n + d];
        assert.ok(Math.abs(s - (c === d ? 1 : 0)) < 1e-10);
      }
    }
  });

  test("orthonormaliseColumns twice gives QᵀQ = I spanning the same columns", () => {
    const rows = 300;
    const l = 8;
    const rnd = mulberry32(5);
    const m = new Float64Array(rows * l);
    // Badly scaled columns (1 to 1e4), as power iterations produce.
    for (let r = 0; r < rows; r++) for (let c = 0; c < l; c++) m[r * l + c] = (rnd() - 0.5) * 10 ** (c / 2) + (c > 0 ? m[r * l] : 0);
    const original = m.slice();
    assert.ok(orthonormaliseColumns(m, rows, l) > 1e3, "the columns were badly conditioned");
    assert.ok(Math.abs(orthonormaliseColumns(m, rows, l) - 1) < 1e-6, "the second pass starts orthonormal");
    for (let a = 0; a < l; a++) {
      for (let b = 0; b < l; b++) {
        let s = 0;
        for (let r = 0; r < rows; r++) s += m[r * l + a] * m[r * l + b];
        assert.ok(Math.abs(s - (a === b ? 1 : 0)) < 1e-9, `QᵀQ[${a},${b}] = ${s}`);
      }
    }
    // Each original column lies in the span of Q: it equals Q Qᵀ x.
    for (let c = 0; c < l; c++) {
      const coef = new Float64Array(l);
      for (let k = 0; k < l; k++) for (let r = 0; r < rows; r++) coef[k] += m[r * l + k] * original[r * l + c];
      let err = 0;
      let norm = 0;
      for (let r = 0; r < rows; r++) {
        let p = 0;
        for (let k = 0; k < l; k++) p += m[r * l + k] * coef[k];
        err += (p - original[r * l + c]) ** 2;
        norm += original[r * l + c] ** 2;
      }
      assert.ok(Math.sqrt(err / norm) < 1e-9);
    }
  });
});

describe("fitLsa", () => {
  const corpus = syntheticCorpus(30);

  test("the projection has orthonormal columns over the kept vocabulary", () => {
    const m = fitLsa(corpus, { dims: 6, seed: 1 });
    assert.equal(m.docs, 120);
    assert.equal(m.dims, 6);
    assert.equal(m.projection.length, m.vocabulary.length * 6);
    for (let a = 0; a < 6; a++) {
      for (let b = 0; b < 6; b++) {
        let s = 0;
        for (let r = 0; r < m.vocabulary.length; r++) s += m.projection[r * 6 + a] * m.projection[r * 6 + b];
        assert.ok(Math.abs(s - (a === b ? 1 : 0)) < 1e-5, `PᵀP[${a},${b}] = ${s}`);
      }
    }
  });

  test("texts that share a topic's words end up closer than texts of different topics", () => {
    const e = new LsaEmbedder(fitLsa(corpus, { dims: 6, seed: 1 }), "lsa:test");
    const [mt1, mt2, parse, speech] = [
      "alignment of parallel phrases for translation",
      "a bilingual decoder with reordering",
      "dependency treebank with projective arcs",
      "acoustic prosody and pitch of spoken audio",
    ].map((t) => e.embedOne(t));
    for (const v of [mt1, mt2, parse, speech]) assert.ok(Math.abs(dot(v, v) - 1) < 1e-5, "unit vectors");
    // mt1 and mt2 share no word, only a topic: LSA joins them through co-occurrence.
    assert.ok(dot(mt1, mt2) > 0.8, `same topic ${dot(mt1, mt2)}`);
    assert.ok(dot(mt1, mt2) > dot(mt1, parse) + 0.4, `vs parsing ${dot(mt1, parse)}`);
    assert.ok(dot(mt1, mt2) > dot(mt1, speech) + 0.4, `vs speech ${dot(mt1, speech)}`);
  });

  test("unknown words only: the zero vector", () => {
    const e = new LsaEmbedder(fitLsa(corpus, { dims: 4 }), "lsa:test");
    assert.deepEqual([...e.embedOne("zyxwv qwerty")], [0, 0, 0, 0]);
  });

  test("deterministic given the seed; another seed finds the same subspace", () => {
    const a = fitLsa(corpus, { dims: 4, seed: 11 });
    const b = fitLsa(corpus, { dims: 4, seed: 11 });
    assert.deepEqual(a.projection, b.projection);
    assert.equal(lsaFingerprint(a), lsaFingerprint(b));
    const c = fitLsa(corpus, { dims: 4, seed: 12 });
    assert.deepEqual(c.vocabulary, a.vocabulary);
    // Same top singular vectors up to rounding (the signs are fixed by the fit).
    let diff = 0;
    for (let i = 0; i < a.projection.length; i++) diff = Math.max(diff, Math.abs(a.projection[i] - c.projection[i]));
    assert.ok(diff < 1e-3, `max difference ${diff}`);
  });

  test("too many dims for the corpus is refused", () => {
    assert.throws(() => fitLsa(["one two", "two three"], { dims: 8 }), /dims 8 exceeds/);
  });
});

describe("model folder", () => {
  const corpus = syntheticCorpus(20);

  test("save/load round trip: same vectors, the id names the folder and its fingerprint", async () => {
    const model = fitLsa(corpus, { dims: 5, seed: 2 });
    const dir = path.join(tmp, "m1");
    const fp = saveLsaModel(dir, model);
    const loaded = createLsaEmbedder(dir);
    assert.equal(loaded.id, lsaEmbedderId(dir, fp));
    assert.match(loaded.id, /^lsa:\/.*;fp=[0-9a-f]{12}$/);
    assert.equal(loaded.dim, 5);
    const texts = ["phoneme recognition", "review polarity lexicon", "nothing known here"];
    assert.deepEqual(await loaded.embed(texts), await new LsaEmbedder(model, "x").embed(texts));
    assert.equal(createLsaEmbedder(dir, fp).id, loaded.id);
  });

  test("a refitted folder is refused under the old fingerprint; a torn projection is refused", () => {
    const dir = path.join(tmp, "m2");
    const fp1 = saveLsaModel(dir, fitLsa(corpus, { dims: 3, seed: 1 }));
    const fp2 = saveLsaModel(dir, fitLsa(corpus, { dims: 4, seed: 1 }));
    assert.notEqual(fp1, fp2);
    assert.throws(() => createLsaEmbedder(dir, fp1), /refitted/);
    writeFileSync(path.join(dir, "projection.f32"), new Uint8Array(12));
    assert.throws(() => createLsaEmbedder(dir), /does not match/);
    assert.throws(() => createLsaEmbedder(path.join(tmp, "absent")), /fit-encoder/);
  });
});
