import type { Command } from "commander";
import { FACET_LETTERS } from "@/lib/query/format";
import { corpusPaperInput, relatedOptions, relatedPapers, FUSIONS, RETRIEVERS } from "@/lib/query/related";
import { getDb } from "@/lib/db/client";
import { emit, parseOptions, table } from "../output";

export function registerQuery(program: Command): void {
  program
    .command("query")
    .description("related papers for a corpus paper, each with the facets that surfaced it")
    .requiredOption("--paper-id <id>", "external id of a corpus paper, e.g. P19-1542")
    .option("--corpus <name>", "corpus name (default: acl-citegraph)")
    .option("--k <k>", "number of results", "20")
    .option("--retriever <name>", `retriever: ${RETRIEVERS.join(" | ")}`, "dense-graph")
    .option("--fusion <name>", `fusion: ${FUSIONS.join(" | ")}`, "graph-rrf")
    .option("--facets <list>", "comma-separated facets to query (default: all four)")
    .option("--year-from <year>")
    .option("--year-to <year>")
    .option("--venue <venue>")
    .option("--json", "machine-readable output (results, provenance and per-facet lists)")
    .action(async (raw: Record<string, unknown>) => {
      const input = parseOptions(corpusPaperInput, { corpus: raw.corpus, paperId: raw.paperId });
      const options = parseOptions(relatedOptions, raw);
      const result = await relatedPapers(getDb(), input, options);
      emit(raw, result, () =>
        [
          `${result.query.title} (${result.query.externalId}) — ${result.retriever} + ${result.fusion}, build ${result.build}, ${result.timings.totalMs.toFixed(0)} ms`,
          "",
          table(
            ["#", "id", "year", "facets", "title"],
            result.results.map((r, i) => [
              i + 1,
              r.externalId,
              r.year ?? "",
              r.facets.map((f) => `${FACET_LETTERS[f.facet]}${f.rank}`).join(" "),
              r.title.length > 70 ? `${r.title.slice(0, 69)}…` : r.title,
            ]),
          ),
          "",
          "facets: P problems · M methods · R results · C contributions, with the paper's rank in that facet's list",
        ].join("\n"),
      );
    });
}
