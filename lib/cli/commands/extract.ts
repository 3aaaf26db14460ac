import type { Command } from "commander";
import { z } from "zod";
import { ConfigError } from "@/lib/config";
import { corpusName, DEFAULT_CORPUS } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import { extractCorpus, type ExtractCorpusSummary } from "@/lib/facets/extract-corpus";
import { LlmConfigError } from "@/lib/facets";
import { createExtractor, EXTRACTOR_ENV, PROVIDERS, resolveProvider } from "@/lib/facets/provider";
import { emit, fmt, parseOptions, UsageError } from "../output";
import { ProgressBar } from "../progress";

const extractOptions = z.object({
  provider: z.string().optional(),
  corpus: corpusName.default(DEFAULT_CORPUS),
  force: z.boolean().default(false),
  overwrite: z.boolean().default(false),
  retryInvalid: z.boolean().default(false),
  role: z.enum(["corpus", "query", "all"], { error: "role must be corpus, query or all" }).default("all"),
  concurrency: z.coerce.number().int().min(1).max(256).optional(),
  limit: z.coerce.number().int().min(1).optional(),
  dryRun: z.boolean().default(false),
  json: z.boolean().default(false),
});

export function registerExtract(program: Command): void {
  program
    .command("extract")
    .description("extract the four facets of a corpus's papers that lack them (resumable: re-run to continue)")
    .option("--provider <name>", `${PROVIDERS.join(" | ")} (default: $${EXTRACTOR_ENV}, else offline)`)
    .option("--corpus <name>", `corpus name (default: ${DEFAULT_CORPUS})`)
    .option("--force", "also re-extract papers that have facets this provider may replace (offline: offline facets; llm: offline and llm facets)")
    .option("--overwrite", "re-extract papers whatever their facets, replacing imported and LLM facets too")
    .option("--retry-invalid", "also re-run papers whose last answer failed validation")
    .option("--role <role>", "corpus | query | all papers (default: all)")
    .option("--concurrency <n>", "extractions in flight (default: GRAFT_LLM_CONCURRENCY for llm, 1 offline)")
    .option("--limit <n>", "extract at most n papers")
    .option("--dry-run", "count what would be extracted, change nothing")
    .option("--json", "machine-readable output")
    .action(async (raw: unknown) => {
      const opts = parseOptions(extractOptions, raw);
      let configured;
      try {
        configured = createExtractor(resolveProvider(opts.provider));
      } catch (err) {
        if (err instanceof LlmConfigError || err instanceof ConfigError || (err instanceof Error && /^--provider:/.test(err.message))) {
          throw new UsageError(err.message);
        }
        throw err;
      }
      const bar = new ProgressBar(`extract ${configured.extractor.id}`);
      // Ctrl-C stops scheduling, keeps every finished result, and exits; a second one kills.
      const controller = new AbortController();
      const onSignal = () => {
        controller.abort(new Error("interrupted"));
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      let summary: ExtractCorpusSummary;
      try {
        summary = await extractCorpus(getDb(), {
          corpus: opts.corpus,
          extractor: configured.extractor,
          concurrency: opts.concurrency ?? configured.concurrency,
          force: opts.force,
          overwrite: opts.overwrite,
          retryInvalid: opts.retryInvalid,
          role: opts.role,
          limit: opts.limit,
          dryRun: opts.dryRun,
          signal: controller.signal,
          onProgress: (p) => bar.update(p.done, p.total, p.usage.promptTokens > 0 ? `${fmt(p.usage.promptTokens + p.usage.completionTokens)} tok` : ""),
        });
      } finally {
        bar.done();
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      }
      emit(opts, summary, () => renderSummary(summary));
      if (summary.stopped) process.exitCode = 1;
      else if (summary.aborted) process.exitCode = 130;
    });
}

export function renderSummary(s: ExtractCorpusSummary): string {
  const lines: string[] = [];
  const skip = s.skipped;
  const skippedParts = [
    skip.hasFacets && `${fmt(skip.hasFacets)} already have facets (--force re-extracts)`,
    skip.protected && `${fmt(skip.protected)} keep imported or LLM facets (--overwrite replaces them)`,
    skip.invalid && `${fmt(skip.invalid)} had an invalid answer (--retry-invalid re-runs them)`,
    skip.inStudy && `${fmt(skip.inStudy)} are in an annotation study (never re-extracted)`,
  ].filter(Boolean);
  lines.push(`${s.dryRun ? "would extract" : "extract"} ${s.provider} on ${s.corpus}: ${fmt(s.selected)} of ${fmt(s.considered)} papers selected`);
  if (skippedParts.length > 0) lines.push(`  skipped: ${skippedParts.join("; ")}`);
  if (s.dryRun) return lines.join("\n");
  lines.push(
    `  ${fmt(s.ok)} extracted (${fmt(s.itemsWritten)} items), ${fmt(s.invalid)} invalid, ${fmt(s.error)} errors` +
      (s.keptPrevious ? ` (${fmt(s.keptPrevious)} failed re-extractions kept their facets)` : "") +
      ` in ${s.seconds.toFixed(1)} s`,
  );
  if (s.models.length > 0) lines.push(`  model: ${s.models.join(", ")}`);
  if (s.usage.promptTokens + s.usage.completionTokens > 0) {
    lines.push(`  tokens: ${fmt(s.usage.promptTokens)} prompt + ${fmt(s.usage.completionTokens)} completion`);
  }
  if (s.changedMeanwhile) lines.push(`  ${fmt(s.changedMeanwhile)} results not written: the paper changed during the run`);
  for (const f of s.failures) lines.push(`  ${f.kind} ${f.externalId}: ${f.reason}`);
  if (s.invalid + s.error > s.failures.length) lines.push(`  … ${fmt(s.invalid + s.error - s.failures.length)} more failures (see the Extraction table)`);
  if (s.stopped) lines.push(`  ${s.stopped}`);
  if (s.aborted) lines.push(`  interrupted after ${fmt(s.done)} of ${fmt(s.selected)}: run the same command again to continue`);
  if (s.ok > 0) lines.push(`  facets changed: rebuild the graph with \`graft build --stage graph --corpus ${s.corpus}\``);
  return lines.join("\n");
}
