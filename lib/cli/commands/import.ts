import type { Command } from "commander";
import { z } from "zod";
import { corpusName, DEFAULT_CORPUS } from "@/lib/corpus/browse";
import { importCorpus } from "@/lib/corpus/import";
import { defaultCorpusPath } from "@/lib/corpus/paths";
import { readCorpus } from "@/lib/corpus/read";
import { getDb } from "@/lib/db/client";
import { emit, fmt, parseOptions } from "../output";
import { ProgressBar } from "../progress";

const importOptions = z.object({
  corpus: corpusName.default(DEFAULT_CORPUS),
  description: z.string().max(2000).optional(),
  skipInvalid: z.boolean().default(false),
  json: z.boolean().default(false),
});

export function registerImport(program: Command): void {
  program
    .command("import")
    .description(
      "import a corpus: a directory like ../shared/data/acl-citegraph (papers.jsonl, citations.tsv, ooc-queries.jsonl, ooc-gold.tsv) or a .jsonl/.jsonl.gz file of papers",
    )
    .argument("[path]", "corpus directory or papers file (default: $GRAFT_DEMO_CORPUS or ../shared/data/acl-citegraph)")
    .option("--corpus <name>", `corpus name in the store (default: ${DEFAULT_CORPUS})`)
    .option("--description <text>", "a description shown in the app")
    .option("--skip-invalid", "skip invalid paper lines (listed in the summary) instead of rejecting the whole input")
    .option("--json", "machine-readable output")
    .action(async (path: string | undefined, raw: unknown) => {
      const opts = parseOptions(importOptions, raw);
      const source = path ?? defaultCorpusPath();
      const input = await readCorpus(source, { skipInvalid: opts.skipInvalid });
      const bar = new ProgressBar(`import ${opts.corpus}`);
      const summary = await importCorpus(getDb(), input, {
        corpus: opts.corpus,
        description: opts.description,
        source,
        onProgress: (p) => bar.update(p.done, p.total, p.phase),
      });
      bar.done();
      emit(opts, summary, () => {
        const c = (x: { created: number; updated: number; unchanged: number }) =>
          `${fmt(x.created)} new, ${fmt(x.updated)} updated, ${fmt(x.unchanged)} unchanged`;
        const lines = [
          `imported ${source} into corpus "${summary.corpus}" in ${summary.seconds.toFixed(1)} s`,
          `  papers        ${c(summary.papers)}`,
          `  query papers  ${c(summary.queries)}`,
          `  facet items   ${fmt(summary.facetItems.total)} (${fmt(summary.facetItems.written)} written, ${fmt(summary.facetItems.deleted)} replaced)`,
          `  citations     ${fmt(summary.citations.total)} (${fmt(summary.citations.created)} new, ${fmt(summary.citations.deleted)} removed)`,
          `  query gold    ${fmt(summary.queryGold.total)} (${fmt(summary.queryGold.created)} new, ${fmt(summary.queryGold.deleted)} removed)`,
          `  skipped lines ${fmt(summary.skipped.length)}`,
        ];
        const reasons = new Map<string, number>();
        for (const s of summary.skipped) {
          const key = `${s.file}: ${s.message.replace(/"[^"]*"/g, '"…"').replace(/line \d+/, "line …")}`;
          reasons.set(key, (reasons.get(key) ?? 0) + 1);
        }
        for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 10)) lines.push(`    ${fmt(n)} × ${reason}`);
        return lines.join("\n");
      });
    });
}
