/**
 * The `tokens` conditioning end to end on a toy task (issue 31): a pack with the items' own
 * words → train with --condition tokens (and resume) → ONNX export (prefill + step graphs) →
 * torch and onnxruntime agree → constrained decoding through the Node path under the trie.
 * The item vectors are all zero, so only the words can tell the queries apart. Needs Debian's
 * python3-torch and python3-onnx (scripts/ensure-system-deps.sh installs them for `npm test`).
 */
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { config } from "@/lib/config";
import { FACETS, type Facet } from "@/lib/corpus";
import { repoRoot } from "@/lib/paths";
import { runTrainer } from "@/lib/python-trainer";
import type { DistillationExamples } from "./distill";
import { EXPORT_CHECK_FILE, exportCheckDifference } from "./export-check";
import { generativeFacetLists, loadGenretModel } from "./model";
import { writeTrainingPack } from "./pack";
import { buildIdentifiers, identifierFiles } from "./prepare";

const PYTHON = config().GRAFT_PYTHON;
const N = 6;
const DIM = 4;

// Paper i's problems item → the DocID of paper i+1; the items differ only in their words.
const facets = Array.from({ length: N }, (_, i) => ({
  problems: [`problem number ${i} about topic ${"abcdef"[i]} in depth`],
  methods: [`method ${i}`],
  results: [`result ${i}`],
  contributions: [`contribution ${i}`],
}));

function toyExamples(): DistillationExamples {
  const targetPaper = Int32Array.from({ length: N }, (_, i) => (i + 1) % N);
  return {
    length: N,
    facet: new Uint8Array(N),
    origin: new Uint8Array(N),
    sourcePaper: Int32Array.from({ length: N }, (_, i) => i),
    sourceItem: new Int32Array(N),
    targetPaper,
    targetIdentifier: Int32Array.from(targetPaper),
    weight: new Float32Array(N).fill(1),
    negative: new Int32Array(N).fill(-1),
    meta: { numPapers: N, identifierCounts: { problems: N, methods: N, results: N, contributions: N }, kMin: 3, seed: 0, options: {} },
  };
}

describe("trainer --condition tokens → prefill + step graphs → decoding in Node", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "graft-trainer-tokens-"));
    const ids = buildIdentifiers({ ids: facets.map((_, i) => `p${i}`), facets });
    const offsets = Int32Array.from({ length: N + 1 }, (_, i) => i);
    const items = Object.fromEntries(FACETS.map((f) => [f, { dim: DIM, offsets, data: new Float32Array(N * DIM) }])) as Record<
      Facet,
      { dim: number; offsets: Int32Array; data: Float32Array }
    >;
    const input = { index: ids.index, vocab: ids.vocab, items, examples: toyExamples(), tries: ids.tries, embedder: "toy", variant: "toy" };
    writeTrainingPack(path.join(dir, "pack"), { ...input, texts: facets });
    writeTrainingPack(path.join(dir, "pack-vectors"), input);
    for (const f of identifierFiles(ids)) writeFileSync(path.join(dir, f.name), f.data);
    writeFileSync(path.join(dir, "papers.json"), JSON.stringify({ externalIds: facets.map((_, i) => `p${i}`) }));
    writeFileSync(path.join(dir, "genret.json"), JSON.stringify({ embedder: "toy", variant: "toy" }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const args = (extra: string[], pack = "pack") => [
    path.join(repoRoot, "workers", "trainer", "train.py"),
    ...["--pack", path.join(dir, pack), "--out", path.join(dir, "run"), "--condition", "tokens"],
    ...["--d-model", "32", "--layers", "2", "--heads", "2", "--ff", "64", "--batch", "6", "--lr", "0.01", "--warmup", "10", "--dropout", "0"],
    ...["--progress-every", "0", "--checkpoint-every", "0"],
    ...extra,
  ];

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
      let correct = 0;
      for (let i = 0; i < N; i++) {
        const query = { items: {}, texts: { problems: facets[i].problems }, exclude: i };
        const list = (await generativeFacetLists(model, query, { beams: 4, facets: ["problems"] })).problems ?? [];
        assert.ok(list.length > 0 && list.length <= 4);
        for (const c of list) assert.ok(c.paper >= 0 && c.paper < N && c.paper !== i);
        if (list[0].paper === (i + 1) % N) correct += 1;
      }
      assert.ok(correct >= N - 1, `top-1 correct for ${correct}/${N} queries`);
    } finally {
      await model.decoder.close();
    }
  });
});
