import type { Command } from "commander";
import { z } from "zod";
import { corpusName, corpusOverview, DEFAULT_CORPUS, listCorpora } from "@/lib/corpus";
import { readCorpus } from "@/lib/corpus/read";
import { citationPreservingSample, corpusStatistics, type CorpusStatistics } from "@/lib/corpus/sample";
import { writeCorpusDir } from "@/lib/corpus/write";
import { sharedDataDir } from "@/lib/paths";
import { getDb } from "@/lib/db";
import path from "node:path";
import { emit, fmt, parseOptions, table } from "../output";

const int = (name: string) => z.coerce.number({ error: `${name} must be a number` }).int(`${name} must be an integer`);

const sampleOptions = z
  .object({
    from: z.string().min(1),
    k: int("k").min(1).default(3),
    target: int("target").min(0).optional(),
    yearFrom: int("year-from").optional(),
    yearTo: int("year-to").optional(),
    recentFrom: int("recent-from").optional(),
    recentTo: int("recent-to").optional(),
    out: z.string().optional(),
    json: z.boolean().default(false),
  })
  .refine((o) => o.recentTo === undefined || o.recentFrom !== undefined, { message: "needs --recent-from", path: ["recentTo"] });

function statsTable(s: CorpusStatistics): string {
  const years = Object.entries(s.perYear).sort(([a], [b]) => a.localeCompare(b));
  return [
    table(
      ["year", "papers"],
      years.map(([y, n]) => [y, fmt(n)]),
    ),
    "",
    `papers ${fmt(s.papers)} · citation edges ${fmt(s.citationEdges)} · mean degree ${s.meanDegree.toFixed(2)}`,
  ].join("\n");
}

export function registerCorpus(program: Command): void {
  const corpus = program.command("corpus").description("list, describe and sample corpora");

  corpus
    .command("list")
    .description("corpora in the store")
    .option("--json", "machine-readable output")
    .action(async (opts: { json?: boolean }) => {
      const all = await listCorpora(getDb());
      emit(opts, all, () =>
        all.length
          ? table(
              ["corpus", "papers", "queries", "citations", "years"],
              all.map((c) => [c.name, fmt(c.papers), fmt(c.queries), fmt(c.citations), `${c.years.min ?? "?"}-${c.years.max ?? "?"}`]),
            )
          : "no corpora yet: run `npm run graft -- import`",
      );
    });

  corpus
    .command("stats")
    .description("a corpus's size, papers per year, citation edges and mean degree")
    .option("--corpus <name>", `corpus name (default: ${DEFAULT_CORPUS})`)
    .option("--json", "machine-readable output")
    .action(async (raw: unknown) => {
      const opts = parseOptions(z.object({ corpus: corpusName.default(DEFAULT_CORPUS), json: z.boolean().default(false) }), raw);
      const db = getDb();
      const overview = await corpusOverview(db, opts.corpus);
      const c = await db.corpus.findUniqueOrThrow({ where: { name: opts.corpus } });
      const papers = await db.paper.findMany({ where: { corpusId: c.id, role: "corpus" }, select: { externalId: true, year: true, id: true } });
      const byId = new Map(papers.map((p) => [p.id, p.externalId]));
      const citations = (await db.citation.findMany({ where: { corpusId: c.id }, select: { citingId: true, citedId: true } }))
        .filter((e) => byId.has(e.citingId) && byId.has(e.citedId))
        .map((e) => ({ citing: byId.get(e.citingId)!, cited: byId.get(e.citedId)! }));
      const stats = corpusStatistics(
        papers.map((p) => p.externalId),
        papers,
        citations,
      );
      emit(
        opts,
        { ...overview, statistics: stats },
        () => `corpus ${overview.name}: ${fmt(overview.queries)} out-of-corpus query papers\n${statsTable(stats)}`,
      );
    });

  corpus
    .command("sample")
    .description("citation-preserving sampling (Appendix A.2): k-core, per-year quotas by largest remainder, fringe completion")
    .option("--from <path>", "pool to sample from (corpus directory or papers file)", path.join(sharedDataDir(), "acl-citegraph-pool"))
    .option("--k <k>", "k of the k-core", "3")
    .option("--target <n>", "number of papers to keep (default: the whole k-core)")
    .option("--year-from <year>", "first year of the pool")
    .option("--year-to <year>", "last year of the pool")
    .option("--recent-from <year>", "add papers from this year on after sampling (the paper's 2025-26 step)")
    .option("--recent-to <year>", "last year of the recent step")
    .option("--out <dir>", "write the sample as papers.jsonl + citations.tsv, ready for `graft import`")
    .option("--json", "machine-readable output")
    .action(async (raw: unknown) => {
      const opts = parseOptions(sampleOptions, raw);
      const pool = await readCorpus(opts.from);
      const result = citationPreservingSample(pool.papers, pool.citations, opts);
      const stats = corpusStatistics(result.selected, pool.papers, pool.citations);
      if (opts.out) {
        const keep = new Set(result.selected);
        writeCorpusDir(
          opts.out,
          pool.papers.filter((p) => keep.has(p.externalId)),
          pool.citations.filter((c) => keep.has(c.citing) && keep.has(c.cited)),
        );
      }
      const poolStats = corpusStatistics(
        pool.papers.map((p) => p.externalId),
        pool.papers,
        pool.citations,
      );
      emit(
        opts,
        { ...result, statistics: stats, pool: { papers: poolStats.papers, citationEdges: poolStats.citationEdges, meanDegree: poolStats.meanDegree } },
        () =>
          [
            `pool: ${fmt(poolStats.papers)} papers, ${fmt(poolStats.citationEdges)} citation edges, mean degree ${poolStats.meanDegree.toFixed(2)}`,
            `sample: ${fmt(result.selected.length)} papers (${fmt(result.fromCore)} from the ${opts.k}-core, ${fmt(result.fromFringe)} from the fringe, ${fmt(result.recentAdded)} recent)`,
            Object.keys(result.unfilled).length ? `unfilled quotas: ${JSON.stringify(result.unfilled)}` : "",
            statsTable(stats),
            opts.out ? `\nwrote ${opts.out}/papers.jsonl and citations.tsv` : "",
          ]
            .filter(Boolean)
            .join("\n"),
      );
    });
}
