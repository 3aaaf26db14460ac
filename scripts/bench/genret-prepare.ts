/**
 * The generative retriever's data preparation on a store's
 * corpus (issue 18: "DocIDs, tries, distillation data ≤ 5 min; trie ≤ 16 B/node"), sub-step by
 * sub-step as `graft build --stage genret` runs them (lib/genret/build.ts): read the corpus and
 * splits from the store, DocIDs, vocabulary + tries, graph, distillation, item vectors, pack,
 * token prior. Per step: wall, CPU (user + system) and the process's peak RSS so far.
 * Writes into --out (a temporary directory by default); the store is only read.
 *
 *   DATABASE_URL=file:/tmp/x/graft.db GRAFT_DATA_ROOT=/tmp/x/data \
 *     npx tsx scripts/bench/genret-prepare.ts --corpus acl-anthology [--variant uniform] [--out DIR] [--json]
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { FACETS } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import { packedItemVector, readStoreCorpus, storeItemVectors, trieSizes } from "@/lib/genret/build";
import { distillationStatistics, writeTrainingPack, trieStatistics } from "@/lib/genret";
import { corpusDocIds, identifierFiles, identifiersFromIndex, trainingExamples } from "@/lib/genret/prepare";
import { identifierTokenPrior } from "@/lib/genret/token-prior";
import { readPaperGraph } from "@/lib/graph";

const { values } = parseArgs({
  options: {
    corpus: { type: "string", default: "acl-anthology" },
    variant: { type: "string", default: "uniform" },
    out: { type: "string" },
    json: { type: "boolean", default: false },
  },
});
const out = values.out ?? mkdtempSync(path.join(os.tmpdir(), "graft-bench-genret-"));
mkdirSync(out, { recursive: true });

interface Step {
  step: string;
  wallSeconds: number;
  cpuSeconds: number;
  rssMiB: number;
  peakRssMiB: number;
}
const steps: Step[] = [];
const MiB = 1024 * 1024;
const started = performance.now();
async function step<T>(name: string, f: () => T | Promise<T>): Promise<T> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  process.stderr.write(`[${((t0 - started) / 1000).toFixed(1)} s] ${name} …\n`);
  const r = await f();
  const c = process.cpuUsage(c0);
  const s: Step = {
    step: name,
    wallSeconds: (performance.now() - t0) / 1000,
    cpuSeconds: (c.user + c.system) / 1e6,
    rssMiB: process.memoryUsage().rss / MiB,
    // resourceUsage().maxRSS is in KiB.
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
  };
  steps.push(s);
  process.stderr.write(
    `[${((performance.now() - started) / 1000).toFixed(1)} s] ${name}: ${s.wallSeconds.toFixed(1)} s wall, ${s.cpuSeconds.toFixed(1)} CPU-s, RSS ${s.rssMiB.toFixed(0)} MiB (peak ${s.peakRssMiB.toFixed(0)})\n`,
  );
  return r;
}

const db = getDb();
const corpusName = values.corpus as string;
const variant = values.variant as string;
const store = await step("read store (papers, splits, facet items)", () => readStoreCorpus(db, corpusName));
let lastReport = 0;
const index = await step("docids (normalise + Llama-3 tokens)", () =>
  corpusDocIds(
    { ids: store.externalIds, facets: store.facets },
    {
      onProgress: (done, total) => {
        // A progress line at most every 10 s, as the CLI prints them in logs.
        if (performance.now() - lastReport < 10_000 && done < total) return;
        lastReport = performance.now();
        process.stderr.write(
          `[${((lastReport - started) / 1000).toFixed(1)} s]   docids ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} papers × facets\n`,
        );
      },
    },
  ),
);
const ids = await step("vocabulary + tries", () => identifiersFromIndex(index));
await step("write vocab + tries", () => {
  for (const f of identifierFiles(ids)) writeFileSync(path.join(out, f.name), f.data);
});
const graph = await step("read graph.csr", () => readPaperGraph(path.join(store.graphBuild.dir, "graph.csr")));
const corpus = { ids: store.externalIds, splits: store.splits, facets: store.facets, graph };
const examples = await step(`distillation (${variant})`, () => trainingExamples(corpus, ids, variant, 0));
const stats = await step("distillation statistics", () => distillationStatistics(examples, store.externalIds.length));
const items = await step("item vectors (vector cache)", () => storeItemVectors(corpusName, store));
const header = await step("training pack", () =>
  writeTrainingPack(path.join(out, "pack"), { index: ids.index, vocab: ids.vocab, items, examples, tries: ids.tries, embedder: store.embedder, variant }),
);
await step("token prior", () => {
  const dim = Object.values(items)[0]?.dim ?? 0;
  const prior = identifierTokenPrior(ids, packedItemVector(items), dim);
  writeFileSync(path.join(out, "pack", "token-prior.f32"), new Uint8Array(prior.buffer, prior.byteOffset, prior.byteLength));
});
await db.$disconnect();

const tries = Object.fromEntries(FACETS.map((f) => [f, trieStatistics(ids.tries[f])]));
const sizes = trieSizes(tries);
const nodes = sizes.nodes;
const result = {
  corpus: corpusName,
  papers: store.externalIds.length,
  graphBuild: store.graphBuild.id,
  variant,
  out,
  totalWallSeconds: (performance.now() - started) / 1000,
  steps,
  vocabSize: ids.vocab.size,
  distinctDocIds: FACETS.reduce((s, f) => s + ids.index.facets[f].identifiers.length, 0),
  trieNodes: nodes,
  trieBytesPerNode: sizes.bytesPerNode,
  trieFileBytesPerNode: sizes.fileBytesPerNode,
  tries,
  examples: examples.length,
  packExamples: header.numExamples,
  targetCoverage: stats.targetCoverage,
  byOrigin: stats.byOrigin,
};
if (values.json) console.log(JSON.stringify(result, null, 1));
else {
  console.log(
    `genret data preparation of ${corpusName}: ${result.papers.toLocaleString("en-US")} papers, graph build ${result.graphBuild}, ${variant} → ${out}`,
  );
  for (const s of steps)
    console.log(
      `  ${s.step.padEnd(42)} ${s.wallSeconds.toFixed(1).padStart(7)} s wall ${s.cpuSeconds.toFixed(1).padStart(7)} CPU-s  RSS ${s.rssMiB.toFixed(0).padStart(5)} MiB  peak ${s.peakRssMiB.toFixed(0).padStart(5)} MiB`,
    );
  console.log(`  total ${result.totalWallSeconds.toFixed(1)} s`);
  console.log(
    `  DocIDs ${result.distinctDocIds.toLocaleString("en-US")} · vocabulary ${result.vocabSize.toLocaleString("en-US")} · trie nodes ${nodes.toLocaleString("en-US")} at ${result.trieBytesPerNode.toFixed(2)} B/node (files with postings ${result.trieFileBytesPerNode.toFixed(2)} B/node)`,
  );
  console.log(`  ${examples.length.toLocaleString("en-US")} training examples · target coverage ${(stats.targetCoverage * 100).toFixed(1)}%`);
}
