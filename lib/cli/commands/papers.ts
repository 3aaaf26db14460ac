import type { Command } from "commander";
import { z } from "zod";
import { corpusName, DEFAULT_CORPUS, getPaperDetail, listPapers, paperListQuery, FACETS } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import { emit, fmt, parseOptions, table } from "../output";
import { UsageError } from "../output";

export function registerPapers(program: Command): void {
  const papers = program.command("papers").description("search and show papers");

  papers
    .command("search")
    .description("search a corpus by title (with year/venue filters)")
    .argument("[text]", "title text")
    .option("--corpus <name>", `corpus name (default: ${DEFAULT_CORPUS})`)
    .option("--year-from <year>")
    .option("--year-to <year>")
    .option("--venue <venue>")
    .option("--page <n>", "page", "1")
    .option("--page-size <n>", "results per page", "20")
    .option("--json", "machine-readable output")
    .action(async (text: string | undefined, raw: Record<string, unknown>) => {
      const query = parseOptions(paperListQuery, { ...raw, q: text });
      const list = await listPapers(getDb(), query);
      emit(raw, list, () =>
        [
          table(
            ["id", "year", "title"],
            list.items.map((p) => [p.externalId, p.year ?? "", p.title.length > 90 ? `${p.title.slice(0, 89)}…` : p.title]),
          ),
          `${fmt(list.total)} papers; page ${list.page} of ${Math.max(1, Math.ceil(list.total / list.pageSize))}`,
        ].join("\n"),
      );
    });

  papers
    .command("show")
    .description("a paper with its facets, references and citers")
    .argument("<id>", "external id, e.g. P19-1542")
    .option("--corpus <name>", `corpus name (default: ${DEFAULT_CORPUS})`)
    .option("--json", "machine-readable output")
    .action(async (id: string, raw: unknown) => {
      const opts = parseOptions(z.object({ corpus: corpusName.default(DEFAULT_CORPUS), json: z.boolean().default(false) }), raw);
      const paper = await getPaperDetail(getDb(), opts.corpus, id);
      if (!paper) throw new UsageError(`no paper "${id}" in corpus "${opts.corpus}"`);
      emit(opts, paper, () =>
        [
          `${paper.title} (${paper.year ?? "n.d."}${paper.venue ? `, ${paper.venue}` : ""})`,
          paper.authors.join(", "),
          "",
          paper.abstract,
          ...FACETS.flatMap((f) => ["", `${f}:`, ...paper.facets[f].map((i) => `  - ${i.text}`)]),
          "",
          `cites ${paper.references.length} corpus papers; cited by ${paper.citedBy.length}`,
        ].join("\n"),
      );
    });
}
