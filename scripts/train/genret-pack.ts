/**
 * Writes a training pack and the identifier files for one distillation variant, from the
 * corpus files and the newest graph build (for experiments; `graft build` does the same from
 * the store):
 *
 *   npx tsx scripts/train/genret-pack.ts --out DIR [--variant uniform] [--seed 0] [--scheme bullet|numeric|c2t] [--corpus-dir D] [--build DIR]
 *
 * --scheme picks the DocIDs (paper Appendix "Identifier Schemes and the Coverage Floor"):
 * the facet-item bullets (default), or one of the ablation's baselines, the numeric codebook
 * and C2T cluster keywords over a hierarchical k-means of the papers (lib/eval/baselines/docid-schemes.ts).
 * The pack and identifier files have the same format whichever the scheme; DIR/docid-scheme.json
 * records the scheme and its identifier statistics.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { sharedDataDir } from "@/lib/paths";
import { FACETS } from "@/lib/corpus";
import { loadGenretCorpusFiles, newestGraphBuildDir, writeExperimentDir } from "@/lib/genret/corpus-files";
import { DOCID_SCHEMES, identifierShape, identifierText, schemeIdentifiers, treeShape } from "@/lib/eval/baselines/docid-schemes";
import { distillationStatistics, identifierReport, trainingExamples } from "@/lib/genret/prepare";

const { values } = parseArgs({
  options: {
    out: { type: "string" },
    variant: { type: "string", default: "uniform" },
    seed: { type: "string", default: "0" },
    scheme: { type: "string", default: "bullet" },
    "corpus-dir": { type: "string" },
    build: { type: "string" },
  },
});
const args = z
  .object({
    out: z.string({ error: "--out DIR is required" }).min(1, "--out DIR is required"),
    seed: z.coerce.number().int("--seed must be an integer"),
    scheme: z.enum(DOCID_SCHEMES, { error: `--scheme must be one of: ${DOCID_SCHEMES.join(", ")}` }),
  })
  .safeParse(values);
if (!args.success) {
  console.error(args.error.issues.map((i) => i.message).join("\n"));
  process.exit(2);
}
const { out, seed, scheme } = args.data;
const corpusDir = values["corpus-dir"] ?? path.join(sharedDataDir(), "acl-citegraph");
const buildDir = values.build ?? newestGraphBuildDir("acl-citegraph");
const t0 = performance.now();
const files = await loadGenretCorpusFiles(corpusDir, buildDir);
const { corpus } = files;
const titles = files.data.texts.map((t) => t.title);
// The cluster tree is seeded with the run's seed, so --seed varies clustering and sampling together.
const { identifiers: ids, tree } = schemeIdentifiers(scheme, { ids: corpus.ids, facets: corpus.facets, titles, items: files.data.items }, { seed });
const t1 = performance.now();
const examples = trainingExamples(corpus, ids, values.variant, seed);
const t2 = performance.now();
const header = writeExperimentDir(out, files, ids, examples, values.variant);
const stats = distillationStatistics(examples, corpus.ids.length);
const report = identifierReport(ids);

// Per-paper schemes have the same identifiers in every facet: one shape says it all.
const shape = tree ? identifierShape(ids.index.facets[FACETS[0]]) : Object.fromEntries(FACETS.map((f) => [f, identifierShape(ids.index.facets[f])]));
const sample = (() => {
  const n = corpus.ids.length;
  if (!tree) return [0, Math.floor(n / 2), n - 1];
  // Paper 0, a paper sharing its leaf (or, failing that, its deepest shared prefix), and one from the middle.
  const p0 = tree.paths[0];
  let mate = -1;
  let best = -1;
  tree.paths.forEach((p, i) => {
    if (i === 0) return;
    let k = 0;
    while (k < p.length && k < p0.length && p[k] === p0[k]) k++;
    if (k > best) {
      best = k;
      mate = i;
    }
  });
  return [0, mate, Math.floor(n / 2)].filter((p) => p >= 0);
})();
const schemeReport = {
  scheme,
  identifiers: shape,
  tree: tree ? treeShape(tree) : undefined,
  examples: sample.map((p) => ({
    paper: corpus.ids[p],
    title: titles[p],
    facet: FACETS[0],
    identifier: identifierText(ids.index, FACETS[0], p),
    path: tree?.paths[p],
  })),
};
writeFileSync(
  path.join(out, "docid-scheme.json"),
  JSON.stringify({ ...schemeReport, seed, variant: values.variant, buildDir, vocab: report.vocabSize }, null, 1),
);
console.log(
  JSON.stringify(
    {
      buildDir,
      variant: values.variant,
      ...schemeReport,
      examples: header.numExamples,
      exampleIdentifiers: schemeReport.examples,
      targetCoverage: stats,
      vocab: report.vocabSize,
      docIds: report.docIds.total,
      identifierSeconds: (t1 - t0) / 1000,
      distillSeconds: (t2 - t1) / 1000,
    },
    null,
    1,
  ).slice(0, 6000),
);
