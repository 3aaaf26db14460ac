/**
 * The Node side of contrastive training (lib/embed/contrastive.ts) with a stand-in for the
 * PyTorch trainer, so it runs without python3-torch: the trained projection is saved in the
 * requested format with its training note. The trainer itself is exercised end to end by
 * lib/cli/commands/fit-encoder-contrastive.test.ts.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { CodedError } from "@/lib/errors";
import { PAIR_KIND, trainContrastiveEncoder, type ContrastivePairs } from "./contrastive";
import { fitLsa, loadLsaModel, saveLsaModel } from "./lsa";

const tmp = mkdtempSync(path.join(os.tmpdir(), "graft-contrastive-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

// Stands in for workers/trainer/contrastive_encoder.py: "trains" by returning its --init
// projection as the best epoch's, with the trainer's final JSON line.
const trainer = path.join(tmp, "stand-in-trainer.sh");
writeFileSync(
  trainer,
  `#!/bin/bash
while [ $# -gt 0 ]; do case "$1" in --init) init=$2; shift ;; --out) out=$2; shift ;; esac; shift; done
mkdir -p "$out" && cp "$init" "$out/best.f32"
echo '{"event": "done", "projection": "'"$out"'/best.f32", "bestEpoch": 1, "history": [{"epoch": 1, "loss": 1.5, "heldOutRecall": 0.5, "seconds": 0}]}'
`,
);
chmodSync(trainer, 0o755);

const topics = ["parser treebank grammar dependency tree", "speech audio acoustic pitch prosody", "translation bilingual decoder alignment bleu"];
const texts = Array.from({ length: 12 }, (_, i) => {
  const w = topics[i % 3].split(" ");
  return `${w[i % 5]} ${w[(i + 1) % 5]} ${w[(i + 2) % 5]}`;
});
const data: ContrastivePairs = {
  texts,
  pairs: texts.slice(0, 9).map((_, i) => [i, i + 3] as [number, number]),
  kinds: texts.slice(0, 9).map(() => PAIR_KIND.citation),
  val: [[0, 3]],
  pool: texts.map((_, i) => i),
};

test("an int8 run saves the trained projection as projection.i8 + scales.f32, with its training note", async () => {
  const lsaFolder = path.join(tmp, "lsa-init");
  saveLsaModel(lsaFolder, fitLsa(texts, { dims: 4, minDf: 1 }));
  const out = path.join(tmp, "out");
  const result = await trainContrastiveEncoder({
    lsaFolder,
    out,
    data,
    python: trainer,
    training: { batch: 2, epochs: 1 },
    note: { pairsFrom: "citations between train-split papers of a test corpus" },
    projectionFormat: "int8",
  });
  assert.deepEqual(
    readdirSync(out)
      .filter((f) => f.includes("."))
      .sort(),
    ["model.json", "projection.i8", "scales.f32"],
  );
  const model = loadLsaModel(out);
  assert.equal(model.projectionFormat, "int8");
  assert.equal(model.kind, "contrastive");
  assert.equal(model.fingerprint, result.fingerprint);
  assert.equal(model.training?.bestEpoch, 1);
  assert.equal(model.training?.pairsFrom, "citations between train-split papers of a test corpus");
  const trained = new Float32Array(Uint8Array.from(readFileSync(path.join(out, "train", "best.f32"))).buffer);
  const step = Math.max(...trained.map(Math.abs)) / 127;
  for (let i = 0; i < trained.length; i++) assert.ok(Math.abs(model.projection[i] - trained[i]) <= step * (0.5 + 1e-5), `value ${i}`);
});

test("an int8 LSA start is refused: the trainer reads projection.f32", async () => {
  const lsaFolder = path.join(tmp, "lsa-int8");
  saveLsaModel(lsaFolder, { ...fitLsa(texts, { dims: 4, minDf: 1 }), projectionFormat: "int8" });
  await assert.rejects(
    trainContrastiveEncoder({ lsaFolder, out: path.join(tmp, "out2"), data, python: trainer, training: { batch: 2 } }),
    (err: unknown) => err instanceof CodedError && err.code === "invalid_request" && /int8/.test(err.message),
  );
});
