/**
 * `npm run bench:train`: wall time of each generative-retriever stage on the demo corpus
 * (docids → tries → training data → pack → training → export) and the trainer's examples/s,
 * from the corpus files and the newest graph build (no store needed).
 *
 *   npx tsx scripts/bench/train.ts [--minutes 5] [--variant uniform] [--out DIR] [--d-model 256 --layers 4]
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sharedDataDir } from "@/lib/paths";
import { repoRoot } from "@/lib/paths";
import { runTrainer } from "@/lib/python-trainer";
import { loadGenretCorpusFiles, newestGraphBuildDir, writeExperimentDir } from "@/lib/genret/corpus-files";
import { buildIdentifiers, trainingExamples } from "@/lib/genret";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "5" },
    variant: { type: "string", default: "uniform" },
    out: { type: "string" },
    "d-model": { type: "string", default: "256" },
    layers: { type: "string", default: "4" },
  },
});
const out = values.out ?? mkdtempSync(path.join(os.tmpdir(), "graft-bench-train-"));
mkdirSync(out, { recursive: true });
const times: Record<string, number> = {};
const time = async <T>(name: string, f: () => T | Promise<T>): Promise<T> => {
  const t0 = performance.now();
  const r = await f();
  times[name] = (performance.now() - t0) / 1000;
  return r;
};

const files = await time("load (corpus, graph, cached vectors)", () =>
  loadGenretCorpusFiles(path.join(sharedDataDir(), "acl-citegraph"), newestGraphBuildDir("acl-citegraph")),
);
const { corpus } = files;
const ids = await time("docids + tries", () => buildIdentifiers(corpus));
const examples = await time(`training data (${values.variant})`, () => trainingExamples(corpus, ids, values.variant as string, 0));
await time("pack", () => writeExperimentDir(out, files, ids, examples, values.variant as string));
const rates: number[] = [];
const result = await time("training + export", () =>
  runTrainer(
    "/usr/bin/python3",
    [
      path.join(repoRoot, "workers", "trainer", "train.py"),
      ...["--pack", path.join(out, "pack"), "--out", path.join(out, "train"), "--time-budget", String(Number(values.minutes) * 60)],
      ...["--d-model", values["d-model"] as string, "--layers", values.layers as string, "--progress-every", "15"],
    ],
    (e) => {
      if (e.event === "progress") rates.push(e.examplesPerSecond as number);
    },
  ),
);
const exportInfo = result.export as { bytes: number };
console.log(
  `generative retriever on acl-citegraph: ${corpus.ids.length} papers, ${examples.length.toLocaleString("en-US")} examples (${values.variant}), ${os.availableParallelism()} cores → ${out}`,
);
for (const [k, v] of Object.entries(times)) console.log(`  ${k.padEnd(40)} ${v.toFixed(1)} s`);
const steady = rates.slice(1);
console.log(
  `  trainer: ${(result.params as number).toLocaleString("en-US")} parameters, ${(result.seen as number).toLocaleString("en-US")} examples in ${(result.trainSeconds as number).toFixed(0)} s = ${((result.seen as number) / (result.trainSeconds as number)).toFixed(0)} examples/s (median window ${steady.sort((a, b) => a - b)[Math.floor(steady.length / 2)]?.toFixed(0) ?? "n/a"}), model files ${(exportInfo.bytes / 1e6).toFixed(1)} MB`,
);
console.log(`  one epoch would take ${(examples.length / ((result.seen as number) / (result.trainSeconds as number)) / 60).toFixed(1)} min at this rate`);
