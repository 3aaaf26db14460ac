/**
 * `graft fit-encoder --contrastive` end to end on a tiny corpus: LSA fit, pack, the PyTorch
 * trainer (workers/trainer/contrastive_encoder.py), the model folder. Needs Debian's python3-torch
 * (scripts/ensure-system-deps.sh installs it for `npm test`), as lib/genret/trainer.test.ts does.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { gzipSync } from "node:zlib";
import { createEmbedder, citationPairs } from "@/lib/embed";
import { readCorpus } from "@/lib/corpus/read";
import { registerFitEncoder } from "./fit-encoder";
import { runGraft } from "@/lib/cli/testing";

const tmp = mkdtempSync(path.join(os.tmpdir(), "graft-fit-contrastive-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

const graft = async (...argv: string[]): Promise<string> => (await runGraft(registerFitEncoder, argv)).out;

// Four topics of eight papers; each paper cites its partner (the two share a code word) and a
// paper of its topic. Test-split papers cite too: their citations are evaluation gold and must
// never become training pairs.
const TOPICS = [
  "parser treebank grammar dependency tree syntax",
  "speech audio acoustic pitch prosody phoneme",
  "translation bilingual decoder alignment bleu",
  "sentiment opinion review polarity aspect emotion",
];
const papers = Array.from({ length: 32 }, (_, i) => {
  const words = TOPICS[i % 4].split(" ");
  return {
    id: `p${i}`,
    title: `${words[i % 5]} ${words[(i + 1) % 5]} code${i >> 1}`,
    abstract: `We study ${words[(i + 2) % 5]} and ${words[(i + 3) % 5]} with code${i >> 1} data.`,
    split: i < 24 ? "train" : "test",
  };
});
const citations = papers.flatMap((p, i) => [
  [p.id, `p${i ^ 1}`],
  [p.id, `p${(i + 4) % 32}`],
]);

function writeInputs(): { input: string; corpus: string } {
  const input = path.join(tmp, "abstracts.jsonl.gz");
  writeFileSync(input, gzipSync(`${papers.map((p) => JSON.stringify({ id: p.id, title: p.title, abstract: p.abstract })).join("\n")}\n`));
  const corpus = path.join(tmp, "corpus");
  rmSync(corpus, { recursive: true, force: true });
  mkdirSync(corpus, { recursive: true });
  writeFileSync(path.join(corpus, "papers.jsonl"), `${papers.map((p) => JSON.stringify(p)).join("\n")}\n`);
  writeFileSync(path.join(corpus, "citations.tsv"), `citing\tcited\n${citations.map((c) => c.join("\t")).join("\n")}\n`);
  return { input, corpus };
}

test("citationPairs keeps only train → train citations and holds out every pair touching a held-out paper", async () => {
  const { corpus } = writeInputs();
  const data = citationPairs(await readCorpus(corpus), { holdout: 0.25, seed: 0 });
  const trainIds = papers.filter((p) => p.split === "train").map((p) => p.id);
  const trainEdges = citations.filter(([a, b]) => trainIds.includes(a) && trainIds.includes(b));
  assert.equal(data.texts.length, trainIds.length, "only train papers are texts");
  assert.ok(data.val.length > 0, "some pairs held out");
  assert.ok(data.pairs.length + data.val.length <= trainEdges.length);
  const heldCiting = new Set(data.val.map(([a]) => a));
  for (const [a, b] of data.pairs) assert.ok(!heldCiting.has(a) && !heldCiting.has(b), "a held-out paper never trains");
});

test("fit-encoder --contrastive trains the LSA projection (loss falls), writes a folder lsa:<folder> loads, and a rerun resumes", async () => {
  const { input, corpus } = writeInputs();
  const out = path.join(tmp, "model");
  const argv = ["fit-encoder", "--input", input, "--out", out, "--dims", "16", "--min-df", "1", "--contrastive", corpus, "--self-pairs"];
  const training = ["--batch", "8", "--epochs", "6", "--lr", "0.05", "--tau", "0.1", "--holdout", "0.2", "--json"];
  const summary = JSON.parse(await graft(...argv, ...training));
  assert.equal(summary.kind, "contrastive");
  assert.equal(summary.dims, 16);
  assert.notEqual(summary.fingerprint, summary.lsaFingerprint, "a new projection, a new fingerprint");
  const losses = summary.history.slice(1).map((e: { loss: number }) => e.loss);
  assert.equal(losses.length, 6);
  assert.ok(losses[losses.length - 1] < losses[0] * 0.8, `loss falls: ${losses.join(" → ")}`);
  assert.ok(summary.bestEpoch >= 0 && summary.bestEpoch <= 6);

  const model = JSON.parse(readFileSync(path.join(out, "model.json"), "utf8"));
  assert.equal(model.kind, "contrastive");
  assert.equal(model.training.bestEpoch, summary.bestEpoch);
  assert.match(model.training.pairsFrom, /train-split/);

  const e = await createEmbedder(summary.spec);
  assert.equal(e.id, `${summary.spec};fp=${summary.fingerprint}`);
  const [a, b, c] = await e.embed(["treebank grammar parser", "dependency tree syntax", "acoustic pitch phoneme"]);
  const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, k) => s + v * y[k], 0);
  assert.ok(dot(a, b) > dot(a, c), `same topic ${dot(a, b)} vs ${dot(a, c)}`);

  // Rerun with the same settings: the finished checkpoint is reused (not trained or rewritten), same model.
  const checkpoint = path.join(out, "train", "checkpoint.pt");
  const written = statSync(checkpoint).mtimeMs;
  const again = JSON.parse(await graft(...argv, ...training));
  assert.equal(again.fingerprint, summary.fingerprint);
  assert.deepEqual(again.history, summary.history);
  assert.equal(statSync(checkpoint).mtimeMs, written);
});
