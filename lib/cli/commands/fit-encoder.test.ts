import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { gzipSync } from "node:zlib";
import { createEmbedder, loadLsaModel, saveLsaModel, dot } from "@/lib/embed";
import { registerFitEncoder } from "./fit-encoder";
import { runGraft } from "@/lib/cli/testing";

// `graft fit-encoder` in process on a small gzipped JSONL corpus: the summary, and the folder
// it writes is a working `lsa:<folder>` embedder.

const tmp = mkdtempSync(path.join(os.tmpdir(), "graft-fit-encoder-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

const graft = async (...argv: string[]): Promise<string> => (await runGraft(registerFitEncoder, argv)).out;

/** Thirty papers of three topics (and two lines to skip) as a gzipped JSONL. */
function writeCorpus(): string {
  const topics = ["parser treebank grammar dependency tree", "speech audio acoustic pitch prosody", "translation bilingual decoder alignment"];
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) {
    const words = topics[i % 3].split(" ");
    lines.push(
      JSON.stringify({ id: `p${i}`, title: `${words[i % 5]} study`, abstract: `${words[(i + 1) % 5]} ${words[(i + 2) % 5]} ${words[(i + 3) % 5]} results` }),
    );
  }
  lines.push("not json", JSON.stringify({ id: "empty", title: "", abstract: null }));
  const input = path.join(tmp, "corpus.jsonl.gz");
  writeFileSync(input, gzipSync(`${lines.join("\n")}\n`));
  return input;
}

test("fit-encoder fits on title + abstract of a JSONL.gz and writes a model lsa:<folder> loads", async () => {
  const input = writeCorpus();
  const out = path.join(tmp, "model");
  const summary = JSON.parse(await graft("fit-encoder", "--input", input, "--out", out, "--dims", "3", "--min-df", "1", "--json"));
  assert.equal(summary.documents, 30);
  assert.equal(summary.skipped, 2);
  assert.equal(summary.dims, 3);
  assert.equal(summary.folder, path.resolve(out));
  assert.equal(summary.projectionFormat, "f32");
  assert.equal(summary.projectionBytes, summary.vocabulary * 3 * 4);

  const e = await createEmbedder(summary.spec);
  assert.equal(e.id, `${summary.spec};fp=${summary.fingerprint}`);
  const [a, b, c] = await e.embed(["treebank grammar", "dependency parser tree", "acoustic pitch"]);
  assert.ok(dot(a, b) > dot(a, c), `same topic ${dot(a, b)} vs ${dot(a, c)}`);
});

test("fit-encoder --int8 writes the projection as int8 + a scale per term", async () => {
  const out = path.join(tmp, "model-int8");
  const summary = JSON.parse(await graft("fit-encoder", "--input", writeCorpus(), "--out", out, "--dims", "3", "--min-df", "1", "--int8", "--json"));
  assert.equal(summary.projectionFormat, "int8");
  assert.equal(summary.projectionBytes, summary.vocabulary * (3 + 4));
  assert.deepEqual(readdirSync(out).sort(), ["model.json", "projection.i8", "scales.f32"]);
  const e = await createEmbedder(summary.spec);
  assert.equal(e.id, `${summary.spec};fp=${summary.fingerprint}`);
  const [a, b, c] = await e.embed(["treebank grammar", "dependency parser tree", "acoustic pitch"]);
  assert.ok(dot(a, b) > dot(a, c), `same topic ${dot(a, b)} vs ${dot(a, c)}`);
});

test("fit-encoder --quantise converts a model folder to int8, keeps its training note, and --compare measures the cosine to the f32 model", async () => {
  const input = writeCorpus();
  const fitted = path.join(tmp, "to-quantise");
  await graft("fit-encoder", "--input", input, "--out", fitted, "--dims", "3", "--min-df", "1", "--json");
  // A contrastive model's folder: kind and training note as the trainer writes them.
  const training = { objective: "symmetric in-batch InfoNCE", pairsFrom: "citations between train-split papers of corpus", bestEpoch: 2 };
  const f32Fingerprint = saveLsaModel(fitted, { ...loadLsaModel(fitted), kind: "contrastive", training });
  const out = path.join(tmp, "quantised");
  const summary = JSON.parse(await graft("fit-encoder", "--quantise", fitted, "--out", out, "--compare", input, "--json"));
  assert.equal(summary.fromFingerprint, f32Fingerprint);
  assert.notEqual(summary.fingerprint, f32Fingerprint);
  assert.equal(summary.kind, "contrastive");
  assert.equal(summary.projectionFormat, "int8");
  assert.equal(summary.projectionBytes, summary.fromBytes / 4 + summary.vocabulary * 4, "a quarter of the f32 size, plus a scale per term");
  assert.equal(summary.comparison.texts, 30);
  assert.ok(summary.comparison.minCosine >= 0.999 && summary.comparison.meanCosine >= summary.comparison.minCosine, JSON.stringify(summary.comparison));

  const model = JSON.parse(readFileSync(path.join(out, "model.json"), "utf8"));
  assert.equal(model.projectionFormat, "int8");
  assert.equal(model.kind, "contrastive");
  assert.deepEqual(model.training, training);
  assert.equal((await createEmbedder(summary.spec)).id, `${summary.spec};fp=${summary.fingerprint}`);
  assert.equal(loadLsaModel(fitted).fingerprint, f32Fingerprint, "the source folder is left as it was");

  await assert.rejects(graft("fit-encoder", "--quantise", out, "--out", path.join(tmp, "twice")), /already int8/);
  await assert.rejects(graft("fit-encoder", "--quantise", fitted, "--input", input, "--out", path.join(tmp, "both")), /--quantise: converts a fitted model/);
  await assert.rejects(graft("fit-encoder", "--out", path.join(tmp, "neither")), /--input: the JSONL file to fit on is required/);
  await assert.rejects(graft("fit-encoder", "--input", input, "--compare", input, "--out", path.join(tmp, "cmp")), /--compare: only with --quantise/);
});

test("fit-encoder refuses a missing input file", async () => {
  await assert.rejects(graft("fit-encoder", "--input", path.join(tmp, "absent.jsonl"), "--out", path.join(tmp, "m2")), /no such file/);
});
