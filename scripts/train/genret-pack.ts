/**
 * Writes a training pack and the identifier files for one distillation variant, from the
 * corpus files and the newest graph build (for experiments; `graft build` does the same from
 * the store):
 *
 *   npx tsx scripts/train/genret-pack.ts --out DIR [--variant uniform] [--seed 0] [--corpus-dir D] [--build DIR]
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { sharedDataDir } from "@/lib/corpus/paths";
import { loadGenretCorpusFiles, newestGraphBuildDir, writeExperimentDir } from "@/lib/genret/corpus-files";
import { buildIdentifiers, distillationStatistics, identifierReport, trainingExamples } from "@/lib/genret/prepare";

const { values } = parseArgs({
  options: {
    out: { type: "string" },
    variant: { type: "string", default: "uniform" },
    seed: { type: "string", default: "0" },
    "corpus-dir": { type: "string" },
    build: { type: "string" },
  },
});
if (!values.out) throw new Error("--out DIR is required");
const corpusDir = values["corpus-dir"] ?? path.join(sharedDataDir(), "acl-citegraph");
const buildDir = values.build ?? newestGraphBuildDir("acl-citegraph");
const t0 = performance.now();
const files = await loadGenretCorpusFiles(corpusDir, buildDir);
const { corpus } = files;
const ids = buildIdentifiers(corpus);
const t1 = performance.now();
const examples = trainingExamples(corpus, ids, values.variant, Number(values.seed));
const t2 = performance.now();
const header = writeExperimentDir(values.out, files, ids, examples, values.variant);
const stats = distillationStatistics(examples, corpus.ids.length);
const report = identifierReport(ids);
console.log(
  JSON.stringify(
    {
      buildDir,
      variant: values.variant,
      examples: header.numExamples,
      targetCoverage: stats,
      vocab: report.vocabSize,
      docIds: report.docIds,
      identifierSeconds: (t1 - t0) / 1000,
      distillSeconds: (t2 - t1) / 1000,
    },
    null,
    1,
  ).slice(0, 3000),
);
