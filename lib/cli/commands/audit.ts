import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { writeFileAtomic } from "@/lib/atomic-write";
import { corpusName, DEFAULT_CORPUS } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import { auditCorpus } from "@/lib/facets/audit/run";
import { renderAuditReport, renderAuditText } from "@/lib/facets/audit/report";
import { emit, parseOptions } from "../output";
import { ProgressBar } from "../progress";

const auditOptions = z.object({
  corpus: corpusName.default(DEFAULT_CORPUS),
  embedder: z.string().optional(),
  workers: z.coerce.number().int().min(1).max(64).optional(),
  role: z.enum(["corpus", "query", "all"], { error: "role must be corpus, query or all" }).default("all"),
  report: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

export function registerAudit(program: Command): void {
  program
    .command("audit")
    .description("audit a corpus's facet items: structure, grounding in the paper, redundancy, specificity (stored per item)")
    .option("--corpus <name>", `corpus name (default: ${DEFAULT_CORPUS})`)
    .option("--embedder <spec>", "use-lite (default, offline) | minilm | minilm:<hub id or local folder>")
    .option("--workers <n>", "embedding worker processes (default: 2)")
    .option("--role <role>", "corpus | query | all papers (default: all)")
    .option("--report <file>", "also write the Markdown report (e.g. reports/audit-<corpus>.md)")
    .option("--json", "machine-readable output")
    .action(async (raw: unknown) => {
      const opts = parseOptions(auditOptions, raw);
      const bar = new ProgressBar("audit");
      const report = await auditCorpus(getDb(), {
        corpus: opts.corpus,
        embedder: opts.embedder,
        workers: opts.workers,
        role: opts.role,
        onProgress: (phase, d, t) => bar.update(d, t, phase),
      });
      bar.done();
      if (opts.report) {
        const command = [
          "graft audit",
          ...(opts.corpus !== DEFAULT_CORPUS ? [`--corpus ${opts.corpus}`] : []),
          ...(opts.embedder ? [`--embedder ${opts.embedder}`] : []),
          ...(opts.role !== "all" ? [`--role ${opts.role}`] : []),
          `--report ${opts.report}`,
        ].join(" ");
        const md = renderAuditReport(report.summary, { command, seconds: report.seconds.total, newlyEmbedded: report.newlyEmbedded, texts: report.texts });
        const file = path.resolve(opts.report);
        mkdirSync(path.dirname(file), { recursive: true });
        // Temp file + rename: an interrupted write never leaves half a report.
        writeFileAtomic(file, md);
      }
      emit(opts, report, () =>
        [
          renderAuditText(report.summary),
          "",
          `stored ${report.summary.items.toLocaleString("en-US")} item audits (job ${report.job}); embedded ${report.newlyEmbedded.toLocaleString("en-US")} new of ${report.texts.toLocaleString("en-US")} texts; ` +
            `${report.seconds.total.toFixed(1)} s (embed ${report.seconds.embed.toFixed(1)}, checks ${report.seconds.check.toFixed(1)}, store ${report.seconds.store.toFixed(1)})`,
          ...(opts.report ? [`report: ${opts.report}`] : []),
        ].join("\n"),
      );
    });
}
