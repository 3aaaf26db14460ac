import type { Command } from "commander";
import { z } from "zod";
import { corpusName, DEFAULT_CORPUS, FORMAT_LABELS, FORMAT_NAMES, IMPORT_FORMATS } from "@/lib/corpus";
import { readCorpus } from "@/lib/corpus/read";
import { importCorpus } from "@/lib/corpus/import";
import { defaultCorpusPath } from "@/lib/paths";
import { getDb } from "@/lib/db";
import { emit, fmt, parseOptions } from "../output";
import { ProgressBar } from "../progress";

const importOptions = z.object({
  corpus: corpusName.default(DEFAULT_CORPUS),
  description: z.string().max(2000).optional(),
  skipInvalid: z.boolean().default(false),
  format: z.enum(IMPORT_FORMATS, { error: `format must be one of: ${IMPORT_FORMATS.join(", ")}` }).optional(),
  json: z.boolean().default(false),
});

export function registerImport(program: Command): void {
  program
    .command("import")
    .description(
      "import a corpus: a directory like ../shared/data/acl-citegraph (papers.jsonl, citations.tsv, ooc-queries.jsonl, ooc-gold.tsv), a .jsonl/.jsonl.gz file of papers, " +
        "or papers you bring: BibTeX or RIS (Zotero, Mendeley, JabRef, EndNote exports), OpenAlex works, Semantic Scholar datasets, the arXiv metadata snapshot",
    )
    .argument("[path]", "corpus directory or papers file (default: $GRAFT_DEMO_CORPUS or ../shared/data/acl-citegraph)")
    .option(
      "--format <format>",
      `input format, told from the file's name and first line when left out: ${IMPORT_FORMATS.map((f) => `${f} = ${FORMAT_LABELS[f]}`).join("; ")}`,
    )
    .option("--corpus <name>", `corpus name in the store (default: ${DEFAULT_CORPUS})`)
    .option("--description <text>", "a description shown in the app")
    .option("--skip-invalid", "skip invalid paper lines (listed in the summary) instead of rejecting the whole input")
    .option("--json", "machine-readable output")
    .action(async (path: string | undefined, raw: unknown) => {
      const opts = parseOptions(importOptions, raw);
      const source = path ?? defaultCorpusPath();
      const bar = new ProgressBar(`import ${opts.corpus}`);
      bar.update(0, 0, "reading and validating lines");
      const input = await readCorpus(source, {
        skipInvalid: opts.skipInvalid,
        format: opts.format,
        onProgress: (lines) => bar.update(lines, 0, "reading and validating lines"),
      });
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
        const format = input.format && input.format !== "graft" ? ` (${FORMAT_NAMES[input.format]})` : "";
        const lines = [
          `imported ${source}${format} into corpus "${summary.corpus}" in ${summary.seconds.toFixed(1)} s`,
          `  papers        ${c(summary.papers)}`,
          `  query papers  ${c(summary.queries)}`,
          `  facet items   ${fmt(summary.facetItems.total)} (${fmt(summary.facetItems.written)} written, ${fmt(summary.facetItems.deleted)} replaced)`,
          `  citations     ${fmt(summary.citations.total)} (${fmt(summary.citations.created)} new, ${fmt(summary.citations.deleted)} removed)`,
          `  query gold    ${fmt(summary.queryGold.total)} (${fmt(summary.queryGold.created)} new, ${fmt(summary.queryGold.deleted)} removed)`,
          `  skipped lines ${fmt(summary.skipped.length)}`,
        ];
        lines.push(...skippedLines(summary.skipped).map((l) => `    ${l}`));
        if (summary.withoutAbstract > 0) {
          const n = summary.withoutAbstract;
          lines.push(`  ${fmt(n)} paper${n === 1 ? "" : "s"} without abstract (imported with an empty abstract: their facets can only come from the title)`);
        }
        if (summary.notices.length > 0) {
          lines.push(`  notes         ${fmt(summary.notices.length)} (imported, with something left out)`);
          lines.push(...skippedLines(summary.notices).map((l) => `    ${l}`));
        }
        return lines.join("\n");
      });
    });
}

/** Lines of skipped-line output at most; --json lists every one. */
const MAX_SKIPPED_LINES = 200;

/** "1-3, 7, 9-12": sorted line numbers as ranges. */
export function lineRanges(lines: number[]): string {
  const sorted = [...new Set(lines)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    out.push(j > i ? `${sorted[i]}-${sorted[j]}` : `${sorted[i]}`);
    i = j;
  }
  return out.join(", ");
}

/**
 * Which lines were skipped and why, as `file:lines: reason` (lines with the same reason in one
 * file share an entry, as ranges), invalid lines first; at most MAX_SKIPPED_LINES entries.
 */
export function skippedLines(skipped: readonly { file: string; line: number; message: string }[]): string[] {
  const groups = new Map<string, { file: string; message: string; lines: number[] }>();
  for (const s of skipped) {
    const key = `${s.file}\u0000${s.message}`;
    const g = groups.get(key) ?? { file: s.file, message: s.message, lines: [] };
    g.lines.push(s.line);
    groups.set(key, g);
  }
  const invalid = (g: { message: string }) => (g.message.startsWith("skipped invalid line") ? 0 : 1);
  const ordered = [...groups.values()].sort((a, b) => invalid(a) - invalid(b) || a.file.localeCompare(b.file) || Math.min(...a.lines) - Math.min(...b.lines));
  // Line 0 means the file as a whole.
  const where = (g: { file: string; lines: number[] }) => (g.lines.every((l) => l === 0) ? g.file : `${g.file}:${lineRanges(g.lines)}`);
  const out = ordered.slice(0, MAX_SKIPPED_LINES).map((g) => `${where(g)}: ${g.message}`);
  if (ordered.length > MAX_SKIPPED_LINES) out.push(`… ${fmt(ordered.length - MAX_SKIPPED_LINES)} more (--json lists every skipped line)`);
  return out;
}
