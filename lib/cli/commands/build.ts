import type { Command } from "commander";
import { z } from "zod";
import { corpusName, DEFAULT_CORPUS } from "@/lib/corpus/browse";
import { getDb } from "@/lib/db/client";
import { buildGraphStage } from "@/lib/graph/build";
import { emit, fmt, parseOptions, table } from "../output";
import { ProgressBar } from "../progress";

const STAGES = ["graph"] as const;

const buildOptions = z.object({
  stage: z.enum(STAGES, { error: `stage must be one of: ${STAGES.join(", ")}` }),
  corpus: corpusName.default(DEFAULT_CORPUS),
  embedder: z.string().optional(),
  k: z.coerce.number().int().min(1).max(200).default(20),
  alpha: z.coerce.number().min(0).max(1).default(0.75),
  beta: z.coerce.number().min(0).max(1).optional(),
  workers: z.coerce.number().int().min(1).max(64).optional(),
  json: z.boolean().default(false),
});

export function registerBuild(program: Command): void {
  program
    .command("build")
    .description("build a corpus's artefacts into a new versioned build (stages: graph)")
    .requiredOption("--stage <stage>", `stage to build: ${STAGES.join(", ")}`)
    .option("--corpus <name>", `corpus name (default: ${DEFAULT_CORPUS})`)
    .option("--embedder <spec>", "use-lite (default, offline) | minilm | minilm:<hub id or local folder>")
    .option("--k <k>", "edges kept per paper per facet", "20")
    .option("--alpha <a>", "facet-score weight α of w = αs + βc", "0.75")
    .option("--beta <b>", "citation-score weight β (default 1 − α)")
    .option("--workers <n>", "embedding worker processes (default: 2)")
    .option("--json", "machine-readable output")
    .action(async (raw: unknown) => {
      const opts = parseOptions(buildOptions, raw);
      const bar = new ProgressBar(`build ${opts.stage}`);
      const report = await buildGraphStage(getDb(), {
        corpus: opts.corpus,
        embedder: opts.embedder,
        k: opts.k,
        alpha: opts.alpha,
        beta: opts.beta ?? 1 - opts.alpha,
        workers: opts.workers,
        onProgress: (phase, d, t, detail) => bar.update(d, t, detail ? `${phase} ${detail}` : phase),
      });
      bar.done();
      emit(opts, report, () =>
        [
          `build ${report.build} of ${opts.corpus}: ${fmt(report.papers)} papers, ${fmt(report.items)} facet items → ${report.dir}`,
          `embed ${report.embedSeconds.toFixed(1)} s (${fmt(report.newlyEmbedded)} new with ${report.embedder}) · graph ${report.graphSeconds.toFixed(1)} s at ${report.gflops.toFixed(0)} GFLOP/s · store ${report.storeSeconds.toFixed(1)} s`,
          "",
          table(
            ["facet", "items", "edges", "kernel s"],
            report.facets.map((f) => [f.facet, fmt(f.items), fmt(f.edges), f.kernelSeconds.toFixed(2)]),
          ),
          "",
          table(
            ["K", "coverage", ...report.facets.map((f) => f.facet)],
            report.coverage.map((c) => [c.k, `${(c.share * 100).toFixed(1)}%`, ...report.facets.map((f) => `${((c.perFacet[f.facet]?.share ?? 0) * 100).toFixed(1)}%`)]),
          ),
        ].join("\n"),
      );
    });
}
