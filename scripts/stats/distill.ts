/**
 * Training-data statistics of coverage-aware distillation on a graph build, in the shape of
 * the paper's §"Coverage" (target coverage 84% -> 100% along the ladder) and the supervision
 * ablations: one row per variant with examples, target coverage, DocIDs under K_min and
 * time.
 *
 *   npx tsx scripts/stats/distill.ts [buildDir] [papers.jsonl] [--seed N] [--out DIR]
 *
 * Defaults: the newest build with a graph.csr under $GRAFT_DATA_ROOT/acl-citegraph (made by
 * `graft build --stage graph`) and
 * $GRAFT_SHARED_DATA/acl-citegraph/papers.jsonl. --out writes each variant's examples file.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { sharedDataDir } from "@/lib/paths";
import { FACETS, type FacetLists, type Split } from "@/lib/corpus";
import {
  DISTILL_VARIANTS,
  distill,
  distillationStatistics,
  trainMask,
  writeDistillationExamples,
  type DistillOptions,
  type DistillVariant,
} from "@/lib/genret/distill";
import { buildDocIdIndex } from "@/lib/genret";
import { dataRoot } from "@/lib/paths";
import { readPaperGraph } from "@/lib/graph";

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const seed = Number(flag("--seed") ?? 0);
const outDir = flag("--out");
function newestGraphBuild(): string {
  const dir = path.join(dataRoot(), "acl-citegraph");
  const builds = existsSync(dir)
    ? readdirSync(dir)
        .filter((d) => /^build-\d+$/.test(d) && existsSync(path.join(dir, d, "graph.csr")))
        .sort((a, b) => Number(b.slice(6)) - Number(a.slice(6)))
    : [];
  if (builds.length === 0) throw new Error(`no graph build under ${dir}: run \`npm run graft -- build --stage graph\` first`);
  return path.join(dir, builds[0]);
}
const buildDir = args[0] ?? newestGraphBuild();
const corpusFile = args[1] ?? path.join(sharedDataDir(), "acl-citegraph", "papers.jsonl");

const fmt = (x: number, digits = 0): string => x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

function table(header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, c) => Math.max(...cells.map((r) => r[c].length)));
  for (const [i, r] of cells.entries()) {
    console.log(r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("  "));
    if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
}

function main(): void {
  const graphFile = path.join(buildDir, "graph.csr");
  for (const f of [graphFile, path.join(buildDir, "papers.json"), corpusFile]) {
    if (!existsSync(f)) {
      console.error(`not found: ${f}`);
      process.exit(1);
    }
  }
  let t = performance.now();
  const graph = readPaperGraph(graphFile);
  const { externalIds } = JSON.parse(readFileSync(path.join(buildDir, "papers.json"), "utf8")) as { externalIds: string[] };
  if (externalIds.length !== graph.numPapers) throw new Error(`papers.json has ${externalIds.length} ids, graph ${graph.numPapers}`);

  const rows = new Map<string, { split: Split | null; facets: FacetLists }>();
  for (const line of readFileSync(corpusFile, "utf8").split("\n")) {
    if (line.trim().length === 0) continue;
    const row = JSON.parse(line) as { id: string; split?: Split | null; facets?: FacetLists | null };
    rows.set(row.id, { split: row.split ?? null, facets: row.facets ?? {} });
  }
  // DocIDs and splits in graph node order, so a node index is also the DocID paper ordinal.
  const inOrder = externalIds.map((id) => {
    const row = rows.get(id);
    if (!row) throw new Error(`paper ${id} of the build is missing from ${corpusFile}`);
    return { externalId: id, ...row };
  });
  const index = buildDocIdIndex(inOrder);
  const sourceMask = trainMask(inOrder.map((p) => p.split));
  const loadSeconds = (performance.now() - t) / 1000;

  let sources = 0;
  for (const m of sourceMask) sources += m;
  console.log(`build: ${buildDir} (K = ${graph.k}, ${fmt(graph.numPapers)} papers, ${fmt(sources)} train sources)`);
  console.log(`corpus: ${corpusFile}; graph + DocIDs loaded in ${fmt(loadSeconds, 1)} s; seed ${seed}\n`);

  const input = { graph, items: index.facets, sourceMask };
  const out: (string | number)[][] = [];
  // The paper-scope fallback ("no incoming edges" in any facet) is shown beside the ladder.
  const variants: [string, DistillOptions][] = [
    ...(Object.keys(DISTILL_VARIANTS) as DistillVariant[]).map((v): [string, DistillOptions] => [v, DISTILL_VARIANTS[v]]),
    ["+fallback (paper scope)", { ...DISTILL_VARIANTS["+fallback"], fallbackScope: "paper" }],
  ];
  for (const [variant, options] of variants) {
    t = performance.now();
    const examples = distill(input, { seed, ...options });
    const seconds = (performance.now() - t) / 1000;
    const s = distillationStatistics(examples, graph.numPapers);
    if (outDir) writeDistillationExamples(path.join(outDir, `${variant.replace(/\W+/g, "-").replace(/^-|-$/g, "")}.distill`), examples);
    out.push([
      variant,
      fmt(s.examples),
      ...FACETS.map((f) => fmt(s.facets.find((x) => x.facet === f)?.examples ?? 0)),
      `${pct(s.targetCoverage)} (${fmt(s.targetPapers)})`,
      `${fmt(s.identifiersUnderKMin)} / ${fmt(s.identifiers)}`,
      fmt(s.meanExposuresPerIdentifier, 2),
      `${fmt(s.byOrigin.fallback)} / ${fmt(s.byOrigin.floor)}`,
      fmt(s.examplesWithNegative),
      fmt(seconds, 2),
    ]);
  }
  table(["variant", "examples", ...FACETS, "target coverage", `ids < K_min`, "exp/id", "fallback / floor rows", "with negative", "seconds"], out);
}

main();
