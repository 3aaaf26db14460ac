import type { Command } from "commander";
import path from "node:path";
import { z } from "zod";
import { defaultCorpusPath } from "@/lib/paths";
import { getDb } from "@/lib/db";
import { dataRoot, repoRoot } from "@/lib/paths";
import {
  loadGenerativeProvider,
  PARTS,
  renderLatest,
  SUITES,
  TABLES,
  USER_PAPER_SOURCE_LABELS,
  writeReport,
  type EvalReport,
  type Part,
  type Suite,
  type TableName,
} from "@/lib/eval";
import { runEvaluation } from "@/lib/eval/harness";
import { emit, parseOptions, table } from "../output";

/** Query caps of `--smoke`: enough to exercise every table, minutes less than a full run. */
export const SMOKE_LIMITS = { test: 40, dev: 20, ooc: 20, userPapers: 8 } as const;

const count = z.coerce.number().int().min(1);
/** A comma-separated flag as its non-empty, trimmed parts. */
const commaList = z.string().transform((s) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean),
);

export const evalOptions = z.object({
  suite: z.enum([...SUITES, "all"], { error: `suite must be one of: ${[...SUITES, "all"].join(", ")}` }).default("all"),
  corpus: z.string().min(1).optional(),
  out: z.string().min(1).optional(),
  embedder: z.string().optional(),
  resamples: count.max(100_000).optional(),
  seed: z.coerce.number().int().min(0).default(0),
  limitTest: count.optional(),
  limitDev: count.optional(),
  limitOoc: count.optional(),
  limitUserPapers: count.optional(),
  render: z.boolean().default(false),
  runsCache: z.string().min(1).optional(),
  trec: z.string().min(1).optional(),
  withoutCitations: z.string().min(1).optional(),
  userPaperSets: commaList.pipe(z.array(z.enum(["ooc", "unseen-report", "unseen-tune", "later-report", "later-tune"]))).optional(),
  userPaperRows: commaList.optional(),
  smoke: z.boolean().default(false),
  distillCoverage: z.boolean().default(true),
  generative: z.string().min(1).optional(),
  only: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      const parts = v
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean);
      const bad = parts.filter((p) => !(PARTS as string[]).includes(p));
      if (bad.length > 0 || parts.length === 0) {
        ctx.addIssue({ code: "custom", message: `unknown part(s) ${bad.join(", ") || "(none)"}; choose from ${PARTS.join(", ")}` });
        return z.NEVER;
      }
      return parts as Part[];
    }),
  json: z.boolean().default(false),
});
export type EvalCliOptions = z.infer<typeof evalOptions>;

export function suitesOf(suite: EvalCliOptions["suite"]): Suite[] {
  return suite === "all" ? [...SUITES] : [suite];
}

/** A terminal summary: R@20 / R@50 of every table row, plus the headline attribution. */
export function summarise(report: EvalReport): string {
  const lines: string[] = [];
  for (const [name, rows] of Object.entries(report.tables) as [TableName, NonNullable<EvalReport["tables"][TableName]>][]) {
    lines.push(TABLES[name].title);
    lines.push(
      table(
        ["row", "R@5", "R@10", "R@20", "R@50", "status"],
        rows.map((r) => [r.label, ...(["R@5", "R@10", "R@20", "R@50"] as const).map((c) => (r[c] === undefined ? "" : (r[c] as number).toFixed(3))), r.status]),
      ),
      "",
    );
  }
  for (const t of report.userPapers?.tables ?? []) {
    lines.push(t.title);
    for (const [source, rows] of Object.entries(t.sources)) {
      lines.push(
        `  ${USER_PAPER_SOURCE_LABELS[source as keyof typeof USER_PAPER_SOURCE_LABELS]}`,
        table(
          ["row", "R@20", "95% CI", "× BM25", "Δ vs default", "status"],
          (rows ?? []).map((r) => [
            r.label,
            r["R@20"] === undefined ? "" : r["R@20"].toFixed(3),
            r.ci?.["R@20"] ? `[${r.ci["R@20"][0].toFixed(3)}, ${r.ci["R@20"][1].toFixed(3)}]` : "",
            r.ratio ? `${r.ratio.value.toFixed(2)}×` : "",
            r.change ? `${(100 * r.change.value).toFixed(1)}%` : "",
            r.status,
          ]),
        ),
      );
    }
    lines.push("");
  }
  if (report.attribution)
    lines.push(
      `attribution precision ${report.attribution.precision.toFixed(3)} (${report.attribution.fusion} over ${report.attribution.lists}, ${report.attribution.pairs} pairs)`,
    );
  if (report.coverage) lines.push(`coverage at K = ${report.coverage.byK.map((c) => `${c.k}: ${(100 * c.share).toFixed(1)}%`).join(", ")}`);
  return lines.join("\n");
}

export function registerEval(program: Command): void {
  program
    .command("eval")
    .description("reproduce the paper's evaluation tables on a corpus; writes reports/eval-<date>.md/.json, SVG plots and eval-latest.json")
    .option("--suite <suite>", `main | ooc | ablations | user-papers | all`, "all")
    .option("--corpus <dir>", "corpus directory (default: the demo corpus)")
    .option("--out <dir>", "report directory (default: reports/ of the repository)")
    .option("--embedder <spec>", "use-lite (default) | minilm | minilm:<hub id or local folder>")
    .option("--resamples <n>", "bootstrap resamples (default 1000; 200 with --smoke)")
    .option("--seed <n>", "seed of the bootstrap and of query sampling", "0")
    .option("--limit-test <n>", "at most n test queries (a seeded sample)")
    .option("--limit-dev <n>", "at most n dev queries (α sweep)")
    .option("--limit-ooc <n>", "at most n out-of-corpus queries")
    .option("--limit-user-papers <n>", "at most n queries per user-paper set (set 1 and each half of set 2; default: --limit-ooc / --limit-test)")
    .option(
      "--smoke",
      `a quick end-to-end check: ${SMOKE_LIMITS.test} test, ${SMOKE_LIMITS.dev} dev, ${SMOKE_LIMITS.ooc} out-of-corpus queries, ${SMOKE_LIMITS.userPapers} per user-paper set; writes eval-smoke-* and never eval-latest.json`,
    )
    .option(
      "--runs-cache <file>",
      "user-paper runs: read rows already in this file (same build and queries) and add each finished row, so an interrupted run resumes",
    )
    .option("--trec <folder>", "user-paper runs: also write each row's runs as TREC run files and each set's qrels into this folder (for trec_eval)")
    .option(
      "--without-citations <corpus>",
      "user-paper sets 1-3 again on this store corpus, the same papers imported without citations (the default and BM25 rows)",
    )
    .option("--user-paper-sets <sets>", "run only these user-paper sets, comma-separated: ooc, unseen-report, unseen-tune, later-report, later-tune")
    .option("--user-paper-rows <methods>", "run only these user-paper rows, comma-separated (e.g. hybrid,bm25; default: all)")
    .option("--render", "run nothing: re-write eval-latest.md from eval-latest.json and csfcube-dev.json in the report directory")
    .option("--only <parts>", `run only these parts of the suites, comma-separated: ${PARTS.join(", ")}`)
    .option("--no-distill-coverage", "skip the per-recipe training-target coverage (distillation) rows")
    .option("--generative <module>", "module exporting createGenerativeProvider() for the generative rows (default: none; those rows are 'not run')")
    .option("--json", "print the report JSON instead of a summary")
    .action(async (raw: Record<string, unknown>) => {
      const opts = parseOptions(evalOptions, raw);
      const corpusDir = path.resolve(opts.corpus ?? defaultCorpusPath());
      const out = path.resolve(opts.out ?? path.join(repoRoot, "reports"));
      const log = (m: string): void => void process.stderr.write(`[eval] ${m}\n`);
      if (opts.render) {
        const file = renderLatest(out);
        log(`wrote ${path.relative(process.cwd(), file)}`);
        return;
      }
      const suites = suitesOf(opts.suite);
      const generative = opts.generative ? await loadGenerativeProvider(opts.generative, { corpusDir, dataRoot: dataRoot(), log }) : undefined;
      const report = await runEvaluation({
        corpusDir,
        suites,
        only: opts.only,
        embedder: opts.embedder,
        cacheRoot: dataRoot(),
        resamples: opts.resamples ?? (opts.smoke ? 200 : 1000),
        seed: opts.seed,
        kind: opts.smoke ? "smoke" : "full",
        limits: {
          test: opts.limitTest ?? (opts.smoke ? SMOKE_LIMITS.test : undefined),
          dev: opts.limitDev ?? (opts.smoke ? SMOKE_LIMITS.dev : undefined),
          ooc: opts.limitOoc ?? (opts.smoke ? SMOKE_LIMITS.ooc : undefined),
          userPapers: opts.limitUserPapers ?? (opts.smoke ? SMOKE_LIMITS.userPapers : undefined),
        },
        // Only the user-paper tables query the store (relatedPapers on the imported corpus).
        ...(suites.includes("user-papers")
          ? {
              db: getDb(),
              userPapersRunsCache: opts.runsCache ? path.resolve(opts.runsCache) : undefined,
              userPapersTrecDir: opts.trec ? path.resolve(opts.trec) : undefined,
              userPapersWithoutCitations: opts.withoutCitations,
              userPaperRows: opts.userPaperRows,
              userPaperSets: opts.userPaperSets,
            }
          : {}),
        distillCoverage: opts.distillCoverage,
        generative,
        command: `graft eval ${process.argv.slice(process.argv.indexOf("eval") + 1).join(" ")}`.trim(),
        log,
      });
      const written = writeReport(report, out);
      log(
        `wrote ${path.relative(process.cwd(), written.markdown)}, ${path.basename(written.json)}${written.latest ? ", eval-latest.json" : ""} and ${written.svgs.length} plot(s) in ${report.manifest.wallSeconds.toFixed(0)} s`,
      );
      if (opts.trec && report.userPapers) log(`wrote the user-paper runs as TREC files in ${path.relative(process.cwd(), path.resolve(opts.trec)) || "."}`);
      emit(opts, report, () => summarise(report));
    });
}
