/**
 * The Python trainer end to end on a toy task: pack → train (and resume) → ONNX export →
 * constrained decoding on onnxruntime. Needs Debian's python3-torch and python3-onnx
 * (scripts/ensure-system-deps.sh installs them for `npm test`).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { config } from "@/lib/config";
import { mulberry32 } from "@/lib/random";
import { runTrainer } from "@/lib/python-trainer";
import { writeTrainingPack } from "./pack";
import { buildIdentifiers } from "./prepare";
import { identifierTokenPrior } from "./token-prior";
import { TOY_PAPERS, toyFacets, toyTopOneCorrect, toyTrainerArgs, writeToyTask } from "./trainer-testing";

const PYTHON = config().GRAFT_PYTHON;
const DIM = 16;
const N = TOY_PAPERS;
const facets = toyFacets;
const rand = mulberry32(3);
const unit = (): Float32Array => {
  const v = Float32Array.from({ length: DIM }, () => rand() - 0.5);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const vectors = Array.from({ length: N }, () => unit());

describe("trainer (PyTorch) → ONNX → constrained decoding", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "graft-trainer-"));
    writeTrainingPack(path.join(dir, "pack"), writeToyTask(dir, DIM, Float32Array.from(vectors.flatMap((v) => [...v]))));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const args = (extra: string[]) => toyTrainerArgs(dir, { layers: 1 }, extra);

  it("trains, checkpoints and resumes where it stopped", async () => {
    const events: Record<string, unknown>[] = [];
    const first = await runTrainer(PYTHON, args(["--epochs", "40", "--no-export"]), (e) => events.push(e));
    assert.equal(first.steps, 40);
    assert.ok(existsSync(path.join(dir, "run", "checkpoint.pt")));
    const firstLoss = (events.find((e) => e.event === "progress") as { loss: number }).loss;

    const resumedEvents: Record<string, unknown>[] = [];
    const second = await runTrainer(PYTHON, args(["--epochs", "300"]), (e) => resumedEvents.push(e));
    const start = resumedEvents.find((e) => e.event === "start") as { resumed: boolean; seen: number };
    assert.equal(start.resumed, true);
    assert.equal(start.seen, 40 * N, "resumes from the examples already seen");
    assert.equal(second.steps, 300);
    const lastLoss = (resumedEvents.filter((e) => e.event === "progress").at(-1) as { loss: number }).loss;
    assert.ok(lastLoss < firstLoss / 4, `loss fell from ${firstLoss} to ${lastLoss}`);
    const train = JSON.parse(readFileSync(path.join(dir, "run", "train.json"), "utf8")) as { export: { checked: boolean } };
    assert.equal(train.export.checked, true);
  });

  it("starts from a token prior when given one, and rejects one of the wrong size", async () => {
    const ids = buildIdentifiers({ ids: facets.map((_, i) => `p${i}`), facets });
    const prior = identifierTokenPrior(ids, (f, p) => (f === "problems" ? vectors[p] : undefined), DIM);
    const withPrior = new Set<number>();
    for (let c = 0; c < ids.vocab.size; c++) if (prior.subarray(c * DIM, (c + 1) * DIM).some((x) => x !== 0)) withPrior.add(c);
    writeFileSync(path.join(dir, "prior.f32"), new Uint8Array(prior.buffer));
    const events: Record<string, unknown>[] = [];
    const run = ["--out", path.join(dir, "run-prior"), "--init-tokens", path.join(dir, "prior.f32"), "--epochs", "1", "--no-export"];
    const done = await runTrainer(PYTHON, [...args([]), ...run], (e) => events.push(e));
    assert.equal(done.steps, 1);
    // Exactly the tokens of embedded identifiers (the problems DocIDs) start from the prior.
    assert.equal((events.find((e) => e.event === "start") as { tokenPrior: number }).tokenPrior, withPrior.size);
    assert.ok(withPrior.size > 0 && withPrior.size < ids.vocab.size);

    writeFileSync(path.join(dir, "short.f32"), new Uint8Array(prior.buffer.slice(0, prior.byteLength - 4)));
    await assert.rejects(
      runTrainer(PYTHON, [...args([]), "--out", path.join(dir, "run-short"), "--init-tokens", path.join(dir, "short.f32"), "--epochs", "1"], () => {}),
      /expected .* x 16/,
    );
  });

  it("honours --time-budget: stops before a step would end past it, with no schedule fitted yet", async () => {
    // 100,000 epochs of one step each: only the budget can stop it. A step of the toy model
    // takes milliseconds, so the run ends within a step of the budget, never far past it.
    const budget = 2;
    const done = await runTrainer(
      PYTHON,
      args(["--out", path.join(dir, "run-budget"), "--epochs", "100000", "--time-budget", String(budget), "--no-export"]),
      () => {},
    );
    const seconds = done.trainSeconds as number;
    assert.ok(seconds <= budget + 0.5, `trained ${seconds} s on a ${budget} s budget`);
    assert.ok(seconds >= budget / 2, `stopped after ${seconds} s of a ${budget} s budget`);
    assert.ok((done.steps as number) > 10 && (done.steps as number) < 100_000);
    assert.ok(existsSync(path.join(dir, "run-budget", "checkpoint.pt")));
  });

  it("--device cuda without a CUDA GPU fails at once, saying so", async (t) => {
    // One run and no separate probe (each Python start imports torch, about 2 s of CPU): where
    // it trains, this PyTorch has a CUDA GPU and there is nothing to check.
    const outcome = await runTrainer(PYTHON, args(["--out", path.join(dir, "run-cuda"), "--epochs", "1", "--device", "cuda"]), () => {}).then(
      () => null,
      (err: unknown) => err,
    );
    if (outcome === null) {
      t.skip("this PyTorch has a CUDA GPU");
      return;
    }
    assert.match(String(outcome), /sees no CUDA GPU/);
  });

  it("decodes the learnt mapping on onnxruntime, only ever emitting identifiers of the trie", async () => {
    for (const f of ["decoder.onnx", "output.f32", "config.json"]) writeFileSync(path.join(dir, f), readFileSync(path.join(dir, "run", f)));
    const correct = await toyTopOneCorrect(dir, (i) => ({ items: { problems: [vectors[i]] }, exclude: i }));
    assert.ok(correct >= N - 1, `top-1 correct for ${correct}/${N} queries`);
  });
});
