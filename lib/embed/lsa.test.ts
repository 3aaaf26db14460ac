import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { mulberry32 } from "@/lib/random";
import { CodedError } from "@/lib/errors";
import { repoRoot } from "@/lib/paths";
import {
  createLsaEmbedder,
  dequantiseProjection,
  fitLsa,
  loadLsaModel,
  LsaEmbedder,
  lsaEmbedderId,
  lsaFingerprint,
  orthonormaliseColumns,
  quantiseProjection,
  saveLsaModel,
  symmetricEigen,
} from "./lsa";
import { dot } from "./types";
import { lsaTerms } from "@/lib/text";

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

describe("int8 model folder", () => {
  const corpus = syntheticCorpus(20);
  const model = fitLsa(corpus, { dims: 8, seed: 3 });
  const f32Dir = path.join(tmp, "f32");
  const f32Fingerprint = saveLsaModel(f32Dir, model);

  /** A fresh int8 copy of the model, saved the way the converter does it (from the loaded f32 folder). */
  function saveInt8(name: string): { dir: string; fingerprint: string } {
    const dir = path.join(tmp, name);
    return { dir, fingerprint: saveLsaModel(dir, { ...loadLsaModel(f32Dir), projectionFormat: "int8" }) };
  }

  test("round trip f32 → int8 → load: every value within half its row's scale, the int8 files alone, its own fingerprint", () => {
    const { dir, fingerprint } = saveInt8("i8-a");
    assert.deepEqual(readdirSync(dir).sort(), ["model.json", "projection.i8", "scales.f32"]);
    const json = JSON.parse(readFileSync(path.join(dir, "model.json"), "utf8"));
    assert.equal(json.projectionFormat, "int8");
    assert.equal(statSync(path.join(dir, "projection.i8")).size, model.vocabulary.length * 8);
    const scales = new Float32Array(Uint8Array.from(readFileSync(path.join(dir, "scales.f32"))).buffer);
    assert.equal(scales.length, model.vocabulary.length);

    const loaded = loadLsaModel(dir);
    assert.equal(loaded.projectionFormat, "int8");
    assert.deepEqual(loaded.vocabulary, model.vocabulary);
    for (let r = 0; r < model.vocabulary.length; r++) {
      let max = 0;
      for (let k = 0; k < 8; k++) max = Math.max(max, Math.abs(model.projection[r * 8 + k]));
      assert.ok(Math.abs(scales[r] - max / 127) <= 1e-6 * scales[r], `row ${r}: scale = max |value| / 127`);
      for (let k = 0; k < 8; k++) {
        const err = Math.abs(loaded.projection[r * 8 + k] - model.projection[r * 8 + k]);
        // Half a step, plus the float32 rounding of scale × q (about 1e-7 of 127 steps).
        assert.ok(err <= scales[r] * (0.5 + 1e-5), `row ${r} dim ${k}: error ${err} > scale/2 ${scales[r] / 2}`);
      }
    }
    assert.equal(loaded.fingerprint, fingerprint);
    assert.equal(lsaFingerprint(loaded), fingerprint, "the fingerprint is the hash of the model as loaded");
    assert.notEqual(fingerprint, f32Fingerprint);
    assert.equal(createLsaEmbedder(dir).id, lsaEmbedderId(dir, fingerprint));
    assert.throws(() => createLsaEmbedder(dir, f32Fingerprint), /refitted/, "a build recorded with the f32 model refuses the int8 one");
  });

  test("embeddings of 20 texts stay within cosine 0.999 of the f32 model's", async () => {
    const { dir } = saveInt8("i8-b");
    const texts = syntheticCorpus(5, 99).map((t) => t.split(" ").slice(0, 8).join(" "));
    assert.equal(texts.length, 20);
    const [f32, int8] = await Promise.all([createLsaEmbedder(f32Dir).embed(texts), createLsaEmbedder(dir).embed(texts)]);
    for (let i = 0; i < texts.length; i++) {
      assert.ok(Math.abs(dot(f32[i], f32[i]) - 1) < 1e-5, `text ${i} has known terms`);
      assert.ok(dot(f32[i], int8[i]) >= 0.999, `text ${i}: cosine ${dot(f32[i], int8[i])}`);
    }
  });

  test("a damaged, cut or missing projection.i8 or scales.f32 is refused with the conflict code", () => {
    const damages: [string, (file: string) => void][] = [
      [
        "one byte changed",
        (file) =>
          writeFileSync(
            file,
            readFileSync(file).map((b, i) => (i === 5 ? b ^ 0x10 : b)),
          ),
      ],
      ["cut short", (file) => writeFileSync(file, readFileSync(file).subarray(0, 8))],
      ["missing", (file) => rmSync(file)],
    ];
    for (const name of ["projection.i8", "scales.f32"]) {
      for (const [how, damage] of damages) {
        const { dir } = saveInt8("i8-damaged");
        damage(path.join(dir, name));
        assert.throws(
          () => createLsaEmbedder(dir),
          (err: unknown) => err instanceof CodedError && err.code === "conflict" && /interrupted write/.test(err.message),
          `${name} ${how}`,
        );
      }
    }
  });

  test("saving a folder in the other format replaces the old format's files", () => {
    const dir = path.join(tmp, "switch");
    saveLsaModel(dir, model);
    const fingerprint = saveLsaModel(dir, { ...model, projectionFormat: "int8" });
    assert.deepEqual(readdirSync(dir).sort(), ["model.json", "projection.i8", "scales.f32"]);
    assert.equal(createLsaEmbedder(dir).id, lsaEmbedderId(dir, fingerprint));
    assert.equal(saveLsaModel(dir, model), f32Fingerprint);
    assert.deepEqual(readdirSync(dir).sort(), ["model.json", "projection.f32"]);
    assert.equal(JSON.parse(readFileSync(path.join(dir, "model.json"), "utf8")).projectionFormat, undefined, "absent means f32, as before");
  });

  test("an all-zero row quantises to zeros with scale 0", () => {
    const q = quantiseProjection(Float32Array.from([0, 0, 0, 0.5, -1, 0.25]), 3);
    assert.deepEqual([...q.scales], [0, Math.fround(1 / 127)]);
    assert.deepEqual([...q.values], [0, 0, 0, 64, -127, 32]);
    assert.deepEqual([...dequantiseProjection(q, 3)].slice(0, 3), [0, 0, 0]);
  });
});

describe("the shipped encoder (models/acl-contrastive)", () => {
  test("loads: its int8 files match model.json, the fingerprint its README names, the training note kept", () => {
    const dir = path.join(repoRoot, "models", "acl-contrastive");
    const model = loadLsaModel(dir);
    assert.equal(model.projectionFormat, "int8");
    assert.equal(model.kind, "contrastive");
    assert.equal(model.fingerprint, "905164e820ff");
    assert.equal(lsaFingerprint(model), model.fingerprint);
    assert.equal(model.dims, 256);
    assert.equal(model.training?.bestEpoch, 10);
    assert.match(String(model.training?.pairsFrom), /train-split/);
    assert.match(readFileSync(path.join(dir, "README.md"), "utf8"), new RegExp(model.fingerprint));
  });
});
