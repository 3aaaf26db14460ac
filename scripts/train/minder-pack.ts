/**
 * Writes the MINDER baseline's experiment directory (lib/eval/baselines/minder.ts) from the corpus
 * files and the newest graph build: `pack/` (the trainer's input, slot = view), the identifier
 * files (vocab.json, trie-title.bin, trie-substring.bin, trie-pseudo.bin, minder.json),
 * papers.json and genret.json, so a model directory is this plus the trainer's decoder.onnx,
 * output.f32 and config.json. Prints identifier, trie and example statistics.
 *
 *   npx tsx scripts/train/minder-pack.ts --out DIR [--pairs uniform] [--seed 0] [--corpus-dir D] [--build DIR]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { sharedDataDir } from "@/lib/paths";
import { FACETS, type Facet } from "@/lib/corpus";
import { loadGenretCorpusFiles, newestGraphBuildDir } from "@/lib/genret/corpus-files";
import {
  buildMinderIdentifiers,
  minderExamples,
  minderExampleStatistics,
  minderIdentifierFiles,
  minderStatistics,
  writeMinderPack,
} from "@/lib/eval/baselines/minder";
import { buildIdentifiers, distillationStatistics, trainingExamples } from "@/lib/genret/prepare";
import type { PackedFacetItems } from "@/lib/graph";

const { values } = parseArgs({
  options: {
    out: { type: "string" },
    pairs: { type: "string", default: "uniform" },
    seed: { type: "string", default: "0" },
    "corpus-dir": { type: "string" },
    build: { type: "string" },
  },
});
if (!values.out) throw new Error("--out DIR is required");
const seed = Number(values.seed);
if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
const corpusDir = values["corpus-dir"] ?? path.join(sharedDataDir(), "acl-citegraph");
const buildDir = values.build ?? newestGraphBuildDir("acl-citegraph");
const seconds = (t: number): number => Math.round((performance.now() - t) / 10) / 100;

let t = performance.now();
const files = await loadGenretCorpusFiles(corpusDir, buildDir);
const { corpus, data } = files;
const loadSeconds = seconds(t);

// The facet DocIDs give the training pairs (the facet retriever's own) and the pseudo-query view.
t = performance.now();
const facetIds = buildIdentifiers(corpus);
const pairs = trainingExamples(corpus, facetIds, values.pairs, seed);
const pairSeconds = seconds(t);

t = performance.now();
const papers = data.texts.map((text) => ({ title: text.title, abstract: text.abstract, facets: text.facets }));
const ids = buildMinderIdentifiers(papers, facetIds.index);
const identifierSeconds = seconds(t);

t = performance.now();
const examples = minderExamples(ids, papers, pairs);
const exampleSeconds = seconds(t);

t = performance.now();
const out = values.out;
const header = writeMinderPack(path.join(out, "pack"), {
  ids,
  items: Object.fromEntries(FACETS.map((f) => [f, data.items[f]])) as Record<Facet, PackedFacetItems>,
  examples,
  embedder: data.embedderId,
  sourceVariant: values.pairs,
});
const stats = minderStatistics(ids);
mkdirSync(out, { recursive: true });
for (const f of minderIdentifierFiles(ids, { buildDir, pairs: values.pairs, seed, statistics: stats.views })) writeFileSync(path.join(out, f.name), f.data);
writeFileSync(path.join(out, "papers.json"), JSON.stringify({ externalIds: corpus.ids }));
writeFileSync(path.join(out, "genret.json"), JSON.stringify({ embedder: data.embedderId, variant: "minder", pairs: values.pairs, seed, buildDir }));
const writeSeconds = seconds(t);

const pairStats = distillationStatistics(pairs, corpus.ids.length);
console.log(
  JSON.stringify(
    {
      out,
      buildDir,
      papers: corpus.ids.length,
      pairs: { variant: values.pairs, seed, count: pairs.length, targetCoverage: pairStats.targetCoverage },
      vocabSize: stats.vocabSize,
      views: stats.views,
      examples: minderExampleStatistics(examples),
      pack: { numQueries: header.numQueries, numTargets: header.numTargets, numExamples: header.numExamples, targetOffset: header.targetOffset },
      seconds: { load: loadSeconds, pairs: pairSeconds, identifiers: identifierSeconds, examples: exampleSeconds, write: writeSeconds },
      peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    },
    null,
    1,
  ),
);
