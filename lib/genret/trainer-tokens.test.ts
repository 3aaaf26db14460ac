/**
 * The `tokens` conditioning end to end on a toy task (issue 31): a pack with the items' own
 * words → train with --condition tokens (and resume) → ONNX export (prefill + step graphs) →
 * torch and onnxruntime agree → constrained decoding through the Node path under the trie.
 * The item vectors are all zero, so only the words can tell the queries apart. Needs Debian's
 * python3-torch and python3-onnx (scripts/ensure-system-deps.sh installs them for `npm test`).
 */
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { config } from "@/lib/config";
import { runTrainer } from "@/lib/python-trainer";
import { EXPORT_CHECK_FILE, exportCheckDifference } from "./export-check";
import { generativeFacetLists, loadGenretModel } from "./model";
import { writeTrainingPack } from "./pack";
import { TOY_PAPERS, toyFacets, toyTopOneCorrect, toyTrainerArgs, writeToyTask } from "./trainer-testing";

const PYTHON = config().GRAFT_PYTHON;
const N = TOY_PAPERS;
const DIM = 4;

describe("trainer --condition tokens → prefill + step graphs → decoding in Node", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "graft-trainer-tokens-"));
    // The item vectors are zeros: only the words tell the queries apart.
    const input = writeToyTask(dir, DIM);
    writeTrainingPack(path.join(dir, "pack"), { ...input, texts: toyFacets });
    writeTrainingPack(path.join(dir, "pack-vectors"), input);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const args = (extra: string[], pack = "pack") => toyTrainerArgs(dir, { pack, layers: 2, condition: "tokens" }, extra);

  it("rejects a pack without item tokens, saying what to do", async () => {
    await assert.rejects(
      runTrainer(PYTHON, args(["--epochs", "1"], "pack-vectors"), () => {}),
      /no item tokens .*--condition tokens/,
    );
  });

  it("trains on the words, resumes, and saves the conditioning in config.json", async () => {
    const events: Record<string, unknown>[] = [];
    const first = await runTrainer(PYTHON, args(["--epochs", "40", "--no-export"]), (e) => events.push(e));
    assert.equal(first.steps, 40);
    const firstLoss = (events.find((e) => e.event === "progress") as { loss: number }).loss;
    const resumedEvents: Record<string, unknown>[] = [];
    const second = await runTrainer(PYTHON, args(["--epochs", "250"]), (e) => resumedEvents.push(e));
    const start = resumedEvents.find((e) => e.event === "start") as { resumed: boolean; seen: number };
    assert.deepEqual([start.resumed, start.seen], [true, 40 * N]);
    assert.equal(second.steps, 250);
    const lastLoss = (resumedEvents.filter((e) => e.event === "progress").at(-1) as { loss: number }).loss;
    assert.ok(lastLoss < firstLoss / 4, `loss fell from ${firstLoss} to ${lastLoss}`);
    const saved = JSON.parse(readFileSync(path.join(dir, "run", "config.json"), "utf8")) as { config: Record<string, unknown> };
    // The longest item here has 8 tokens: the pack holds 32 per item, the model its condition and that limit.
    assert.deepEqual([saved.config.condition, saved.config.item_tokens], ["tokens", 32]);
    for (const f of ["decoder.onnx", "prefill.onnx", "output.f32", EXPORT_CHECK_FILE]) assert.ok(existsSync(path.join(dir, "run", f)), f);
  });

  it("onnxruntime's hidden states match torch's on a decoding path with beam reorders (~1e-4)", async () => {
    const diff = await exportCheckDifference(path.join(dir, "run"));
    assert.ok(diff.steps >= 3);
    assert.ok(diff.first < 1e-4 && diff.last < 1e-4, `max |torch - onnx|: prefill ${diff.first}, last step ${diff.last}`);
  });

  it("decodes each paper's next paper from its words alone, only ever emitting identifiers of the trie", async () => {
    for (const f of ["decoder.onnx", "prefill.onnx", "output.f32", "config.json"]) copyFileSync(path.join(dir, "run", f), path.join(dir, f));
    const model = await loadGenretModel(dir);
    try {
      assert.equal(model.config.condition, "tokens");
      await assert.rejects(generativeFacetLists(model, { items: { problems: [new Float32Array(DIM)] } }, { facets: ["problems"] }), /no item texts/);
    } finally {
      await model.decoder.close();
    }
    const correct = await toyTopOneCorrect(dir, (i) => ({ items: {}, texts: { problems: toyFacets[i].problems }, exclude: i }));
    assert.ok(correct >= N - 1, `top-1 correct for ${correct}/${N} queries`);
  });
});
