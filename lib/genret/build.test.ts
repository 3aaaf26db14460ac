import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { FACETS } from "@/lib/corpus";
import { testProvider } from "@/lib/db/testing";
import { fitLsa, saveLsaModel } from "@/lib/embed";
import { buildGraphStage } from "@/lib/graph/build";
import { itemsOfPaper } from "@/lib/graph";
import { miniPapers, useMiniCorpusStore } from "@/lib/graph/testing";
import { buildGenretStage, packedItemVector, type TrainerOptions } from "./build";
import { generativeFacetLists, loadGenretModel, MODEL_FILES } from "./model";
import { installPretrainedModel } from "./pretrained";

// The genret stage end to end on the six-paper corpus (real embedder, real PyTorch trainer
// with a tiny decoder): docids → tries → training data (+ token prior) → training → export.

const tiny: TrainerOptions = { dModel: 32, layers: 1, heads: 2, ff: 64, epochs: 3, timeBudget: 600, batch: 8, lr: 0.01 };

describe(`genret build stage (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-genret-build-");

  test("writes a complete model build that decodes, with the token prior the trainer started from", async () => {
    await buildGraphStage(t.db, { corpus: "mini", k: 2, workers: 1 });
    const report = await buildGenretStage(t.db, { corpus: "mini", trainer: tiny, seed: 1 });
    for (const f of MODEL_FILES) assert.ok(existsSync(path.join(report.dir, f)), f);
    assert.equal(report.resumed, false);
    assert.ok(report.examples > 0);
    const prior = path.join(report.dir, "pack", "token-prior.f32");
    // One float per (compact token, embedding dimension): USE-lite is 512-d.
    assert.equal(statSync(prior).size, report.vocabSize * 512 * 4);
    const train = JSON.parse(readFileSync(path.join(report.dir, "train.json"), "utf8")) as { args: { init_tokens: string }; steps: number };
    assert.equal(train.args.init_tokens, prior);
    const pack = JSON.parse(readFileSync(path.join(report.dir, "pack", "pack.json"), "utf8")) as { numExamples: number };
    assert.equal(train.steps, 3 * Math.ceil(pack.numExamples / 8), "3 epochs of batches of 8");
    const build = await t.db.build.findUniqueOrThrow({ where: { id: report.build } });
    assert.equal(build.status, "complete");

    const model = await loadGenretModel(report.dir);
    try {
      const vec = new Float32Array(512);
      vec[0] = 1;
      const lists = await generativeFacetLists(model, { items: { problems: [vec] }, exclude: 0 }, { beams: 3 });
      assert.ok((lists.problems ?? []).length > 0);
      for (const c of lists.problems ?? []) assert.ok(c.paper > 0 && c.paper < 6);
    } finally {
      await model.decoder.close();
    }
  });

  test("--no-token-prior trains from noise and writes no prior", async () => {
    const report = await buildGenretStage(t.db, { corpus: "mini", trainer: { ...tiny, epochs: 1, tokenPrior: false }, seed: 2 });
    assert.ok(!existsSync(path.join(report.dir, "pack", "token-prior.f32")));
    const train = JSON.parse(readFileSync(path.join(report.dir, "train.json"), "utf8")) as { args: { init_tokens: string | null } };
    assert.equal(train.args.init_tokens, null);
    assert.ok(FACETS.every((f) => existsSync(path.join(report.dir, `trie-${f}.bin`))));
    // A vector model's pack carries no item words and its model no prefill graph.
    assert.ok(!existsSync(path.join(report.dir, "pack", "itemTokens.i32")));
    assert.ok(!existsSync(path.join(report.dir, "prefill.onnx")));
  });

  test("--condition tokens: the pack holds the items' words and the model decodes query texts", async () => {
    const report = await buildGenretStage(t.db, { corpus: "mini", trainer: { ...tiny, epochs: 1, condition: "tokens" }, seed: 3 });
    const pack = JSON.parse(readFileSync(path.join(report.dir, "pack", "pack.json"), "utf8")) as { numQueries: number; itemTokens: { maxTokens: number } };
    assert.equal(statSync(path.join(report.dir, "pack", "itemTokens.i32")).size, pack.numQueries * pack.itemTokens.maxTokens * 4);
    const model = await loadGenretModel(report.dir);
    try {
      assert.equal(model.config.condition, "tokens");
      const lists = await generativeFacetLists(model, { items: {}, texts: { problems: ["parsing noisy text"] }, exclude: 0 }, { beams: 3 });
      assert.ok((lists.problems ?? []).length > 0);
      for (const c of lists.problems ?? []) assert.ok(c.paper > 0 && c.paper < 6);
    } finally {
      await model.decoder.close();
    }
    // Installed as a trained model (what `--pretrained DIR` does with a GPU run's folder): the prefill graph comes along.
    const installed = await installPretrainedModel(t.db, "mini", report.dir);
    assert.ok(existsSync(path.join(installed.dir, "prefill.onnx")));
    const again = await loadGenretModel(installed.dir);
    try {
      const lists = await generativeFacetLists(again, { items: {}, texts: { problems: ["parsing noisy text"] }, exclude: 0 }, { beams: 3 });
      assert.ok((lists.problems ?? []).length > 0);
    } finally {
      await again.decoder.close();
    }
  });
});

test("packedItemVector: an item's row of its facet's packed vectors, as itemsOfPaper gives it", () => {
  const items = { problems: { dim: 2, offsets: Int32Array.from([0, 2, 2, 3]), data: Float32Array.from([1, 2, 3, 4, 5, 6]) } };
  const vector = packedItemVector(items);
  for (let p = 0; p < 3; p++) {
    const rows = itemsOfPaper(items.problems, p);
    for (let i = 0; i < 3; i++) assert.deepEqual(vector("problems", p, i), rows[i], `paper ${p} item ${i}`);
  }
  assert.equal(vector("methods", 0, 0), undefined);
});

// A corpus imported without splits (BibTeX, RIS, OpenAlex, S2, arXiv) must train too: every
// paper is a training paper then. Cheap: the trainer is a stand-in that checks the training
// pack it is given (the real one exits with "the training pack has no examples") and writes
// placeholder model files, so no PyTorch is needed.
const FAKE_TRAINER = `
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const pack = JSON.parse(readFileSync(path.join(arg("--pack"), "pack.json"), "utf8"));
if (!(pack.numExamples > 0)) { console.error("the training pack has no examples"); process.exit(1); }
const out = arg("--out");
mkdirSync(out, { recursive: true });
for (const f of ["decoder.onnx", "output.f32", "config.json"]) writeFileSync(path.join(out, f), "{}");
const done = { event: "done", steps: 1, seen: pack.numExamples, epochs: 1, params: 0, trainSeconds: 0, numExamples: pack.numExamples };
writeFileSync(path.join(out, "train.json"), JSON.stringify(done));
console.log(JSON.stringify(done));
`;

describe(`genret build stage on a corpus without splits (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-genret-nosplit-");

  test("every paper is a training paper, the build says so, and the trainer gets examples", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "graft-fake-trainer-"));
    try {
      writeFileSync(path.join(dir, "trainer.mjs"), FAKE_TRAINER);
      const python = path.join(dir, "python");
      writeFileSync(python, `#!/bin/sh\nexec "${process.execPath}" "${path.join(dir, "trainer.mjs")}" "$@"\n`);
      chmodSync(python, 0o755);
      await t.db.paper.updateMany({ data: { split: null } });
      // No real training here, so no need for USE-lite's vectors: a small LSA encoder fitted on
      // the corpus embeds in milliseconds what USE-lite costs seconds of CPU to load for.
      const encoder = path.join(dir, "encoder");
      saveLsaModel(
        encoder,
        fitLsa(
          miniPapers.flatMap((p) => [p.abstract ?? "", ...Object.values(p.facets ?? {}).flat()]),
          { dims: 8 },
        ),
      );
      await buildGraphStage(t.db, { corpus: "mini", k: 2, workers: 1, embedder: `lsa:${encoder}` });
      const events: string[] = [];
      const report = await buildGenretStage(t.db, {
        corpus: "mini",
        trainer: { ...tiny, tokenPrior: false },
        seed: 3,
        python,
        onProgress: (phase, done, total, detail) => events.push(`${phase} ${done}/${total} ${detail ?? ""}`.trim()),
      });
      // Progress lines name what runs: DocIDs over papers × facets (6 × 4), then the trainer's start.
      assert.ok(events.includes("docids 24/24 tokenising facet items, papers × facets"), events.join("\n"));
      assert.ok(events.includes("train 0/1 starting the trainer (reading the training pack)"), events.join("\n"));
      assert.equal(report.trainingPapers.rule, "all 6 papers (the corpus has no train/dev/test splits)");
      assert.equal(report.trainingPapers.papers, 6);
      assert.ok(report.examples > 0);
      const pack = JSON.parse(readFileSync(path.join(report.dir, "pack", "pack.json"), "utf8")) as { numExamples: number };
      assert.equal(pack.numExamples, report.examples);
      const build = await t.db.build.findUniqueOrThrow({ where: { id: report.build } });
      assert.equal(build.status, "complete");
      assert.match(build.manifest, /"trainingPapers":\{[^}]*"rule":"all 6 papers/);
      // Sub-step costs and trie sizes (issue 18's 64k targets read them), in the report and the manifest.
      for (const step of ["read", "docids", "tries", "distill", "vectors", "pack"] as const) {
        assert.ok(report.steps[step].seconds > 0 && report.steps[step].cpuSeconds >= 0 && report.steps[step].peakRssMiB > 0, step);
      }
      assert.equal(report.steps.prior.seconds, 0, "no token prior asked for");
      const manifest = JSON.parse(build.manifest) as {
        timings: { steps: Record<string, unknown> };
        statistics: { tries: Record<string, { nodes: number; bytesPerNode: number }> };
        files: { name: string; meta: { bytesPerNode?: number } }[];
      };
      assert.deepEqual(Object.keys(manifest.timings.steps), ["read", "docids", "tries", "distill", "vectors", "pack", "prior"]);
      const tries = Object.values(manifest.statistics.tries);
      assert.equal(
        report.tries.nodes,
        tries.reduce((sum, t) => sum + t.nodes, 0),
      );
      // Three int32 arrays per node (childStart has one entry more per trie); the files add the postings.
      assert.equal(report.tries.bytesPerNode, (12 * report.tries.nodes + 4 * FACETS.length) / report.tries.nodes);
      assert.ok(report.tries.fileBytesPerNode > report.tries.bytesPerNode);
      for (const f of FACETS) {
        const nodes = manifest.statistics.tries[f].nodes;
        assert.equal(manifest.files.find((a) => a.name === `trie-${f}.bin`)?.meta.bytesPerNode, (12 * nodes + 4) / nodes);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
