/**
 * The evaluation harness: reproduces the tables of the paper's "Experiments" section and
 * appendices on a corpus read from its files, with the paper's protocol (queries = the test
 * split, dev for the α sweep, supervision from train only; gold = the query's own out-neighbours
 * in the full top-20 typed graph, the papers its rows hold in any facet (the paper: "its
 * neighbour set in the full paper graph", 39 on average there); micro recall@5/10/20/50 with
 * bootstrap CIs; out-of-corpus gold = the corpus papers a query cites).
 *
 * Graph-RRF and the dense-graph walk read that same adjacency in corpus, so these tables are a
 * replication of the paper's protocol, not a measure of quality; the "user-papers" suite
 * (./user-papers-suite.ts) measures the served pipeline on papers users bring, with citation gold.
 *
 * Suites: "main" (main table, fusion, leave-one-out, attribution, coverage), "ooc"
 * (out-of-corpus table, non-obvious retrievals, out-of-corpus attribution), "ablations"
 * (walk depth, α sweep, K_min, identifier schemes, supervision alternatives) and "user-papers"
 * (the two user-paper tables, through relatedPapers on the store; needs `db`). Rows that need a
 * trained generative model come from an optional `GenerativeProvider` (lib/eval/generative.ts);
 * without one they are listed as "not run" with the reason.
 */
import path from "node:path";
import type { Db } from "@/lib/db";
import { loadCorpusData, type CorpusData } from "@/lib/graph/corpus-data";
import type { GenerativeProvider } from "./generative";
import {
  SUITE_PARTS,
  type AttributionRow,
  type CoverageSection,
  type EvalReport,
  type NonObviousSection,
  type Part,
  type RecallRow,
  type Suite,
  type TableName,
  type UserPapersSection,
  IN_CORPUS_TABLES,
  PARTS,
} from "./report";
import { USER_PAPER_ROWS, userPapersSection } from "./user-papers-suite";
import type { UserPaperSet } from "./user-papers";
import { alphaTable, identifiersTable, kMinTable, supervisionTable, walkDepthTable } from "./harness/ablations";
import { attributionSection } from "./harness/attribution-section";
import { evalContext } from "./harness/context";
import { coverageSection, fusionTables, mainTable } from "./harness/in-corpus";
import { corpusTablesManifest, startClock, userPapersManifest } from "./harness/manifest";
import { outOfCorpusSections } from "./harness/out-of-corpus";

export { EVAL_K } from "./harness/constants";
export { sampleQueries } from "./harness/context";

export interface EvalLimits {
  /** At most this many test queries (a seeded sample), e.g. for the CI smoke run. */
  test?: number;
  dev?: number;
  ooc?: number;
  /** At most this many queries per user-paper set (set 1, each half of set 2); default: test / ooc. */
  userPapers?: number;
}

export interface EvalOptions {
  corpusDir: string;
  suites: readonly Suite[];
  /** Embedder spec; default "use-lite". */
  embedder?: string;
  /** Data root of the vector cache; default the project's data root. */
  cacheRoot?: string;
  /** Embedding processes for texts missing from the cache (default 2 for USE-lite, else 1). */
  embedWorkers?: number;
  /** Bootstrap resamples (default 1000) and seed (default 0; also seeds query sampling). */
  resamples?: number;
  seed?: number;
  kind?: "full" | "smoke";
  limits?: EvalLimits;
  generative?: GenerativeProvider;
  /** Only these parts of the chosen suites (default: all of them). */
  only?: readonly Part[];
  /** Training-target coverage of every distillation recipe (default true). */
  distillCoverage?: boolean;
  /** The store the "user-papers" suite queries through relatedPapers (its corpus must be imported and built). */
  db?: Db;
  /** Raw user-paper runs are read from and added to this file (resumes an interrupted run). */
  userPapersRunsCache?: string;
  /** Every user-paper row's runs as TREC run files, and each set's qrels, are written into this folder. */
  userPapersTrecDir?: string;
  /** A store corpus of the same papers without citations: the user-paper sets again there. */
  userPapersWithoutCitations?: string;
  /** Only these user-paper rows (methods). */
  userPaperRows?: readonly string[];
  /** Only these user-paper sets. */
  userPaperSets?: readonly UserPaperSet[];
  /** Corpus name in the store (default: the corpus directory's name). */
  storeCorpus?: string;
  /** The command line, for the manifest. */
  command?: string;
  log?: (message: string) => void;
}

// eslint-disable-next-line max-lines-per-function -- its tables move to the Retriever registry and the shared retrieve-and-fuse step (issue 30), which reshapes it
export async function runEvaluation(options: EvalOptions): Promise<EvalReport> {
  const clock = startClock();
  const log = options.log ?? (() => {});
  const seed = options.seed ?? 0;
  const resamples = options.resamples ?? 1000;
  const boot = { resamples, seed };
  const suites = new Set(options.suites);
  const limits = options.limits ?? {};
  const sectionSeconds: Record<string, number> = {};
  const timed = async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      sectionSeconds[name] = (sectionSeconds[name] ?? 0) + (performance.now() - t0) / 1000;
    }
  };

  const only = options.only ? new Set<Part>(options.only) : null;
  const want = (part: Part): boolean =>
    (Object.entries(SUITE_PARTS) as [Suite, readonly Part[]][]).some(([suite, parts]) => suites.has(suite) && parts.includes(part)) &&
    (!only || only.has(part));

  // ── papers users bring: relatedPapers on the store, independent of the tables below ──
  let userPapers: UserPapersSection | undefined;
  const storeCorpus = options.storeCorpus ?? path.basename(path.resolve(options.corpusDir));
  const runUserPapersPart = async (): Promise<void> => {
    if (!want("userPapers")) return;
    if (!options.db) throw new Error("the user-papers suite needs a store (EvalOptions.db)");
    const db = options.db;
    userPapers = await timed("userPapers", () =>
      userPapersSection({
        db,
        corpus: storeCorpus,
        corpusDir: options.corpusDir,
        limits: { ooc: limits.userPapers ?? limits.ooc ?? limits.test, unseen: limits.userPapers ?? limits.test, later: limits.userPapers ?? limits.test },
        boot,
        seed,
        runsCache: options.userPapersRunsCache,
        ...(options.userPapersTrecDir ? { trecDir: options.userPapersTrecDir } : {}),
        ...(options.userPapersWithoutCitations ? { withoutCitations: options.userPapersWithoutCitations } : {}),
        ...(options.userPaperSets ? { sets: options.userPaperSets } : {}),
        ...(options.userPaperRows ? { rows: USER_PAPER_ROWS.filter((r) => options.userPaperRows?.includes(r.method)) } : {}),
        log,
      }),
    );
  };
  if (!PARTS.some((p) => p !== "userPapers" && want(p))) {
    await runUserPapersPart();
    const manifest = userPapersManifest({
      command: options.command,
      clock,
      corpusDir: options.corpusDir,
      storeCorpus,
      userPapers,
      bootstrap: boot,
      sectionSeconds,
    });
    return { version: 1, kind: options.kind ?? "full", suites: [...options.suites], date: clock.date, tables: {}, userPapers, manifest };
  }

  const data: CorpusData = await timed("load", () =>
    loadCorpusData(options.corpusDir, {
      embedder: options.embedder,
      cacheRoot: options.cacheRoot,
      documents: want("main") || want("ooc"),
      // USE-lite is single-threaded: two processes use both cores; MiniLM already does in one.
      workers: options.embedWorkers ?? ((options.embedder ?? "use-lite").startsWith("use-lite") ? 2 : 1),
      onProgress: (done, total) => total > 0 && log(`embedding texts missing from the cache: ${done}/${total}`),
    }),
  );
  log(
    `${data.ids.length} papers, ${data.queries.ids.length} out-of-corpus queries, ${data.embedderId}; ${data.newlyEmbedded} texts embedded (${data.embedSeconds.toFixed(1)} s)`,
  );
  const ctx = await evalContext(data, { seed, resamples, limits, provider: options.generative, log, timed });

  // Each part fills its table(s) in this order, which is the order of the report's JSON.
  const tables: Partial<Record<TableName, RecallRow[]>> = {};
  let coverage: CoverageSection | undefined;
  let nonObvious: NonObviousSection | undefined;
  const attributionRows: AttributionRow[] = [];
  try {
    if (want("main")) tables.main = await timed("main", () => mainTable(ctx));
    if (want("fusion")) {
      const fusion = await timed("fusion", () => fusionTables(ctx));
      tables.fusion = fusion.fusion;
      tables.leaveOneOut = fusion.leaveOneOut;
      attributionRows.push(...fusion.attribution);
    }
    if (want("coverage")) coverage = await timed("coverage", () => coverageSection(ctx, options.distillCoverage !== false));
    if (want("ooc")) {
      const ooc = await timed("ooc", () => outOfCorpusSections(ctx));
      tables.ooc = ooc.ooc;
      nonObvious = ooc.nonObvious;
      attributionRows.push(...ooc.attribution);
    }
    if (want("walkDepth")) tables.walkDepth = await timed("walkDepth", () => walkDepthTable(ctx));
    if (want("alpha")) tables.alpha = await timed("alpha", () => alphaTable(ctx));
    if (want("kMin")) tables.kMin = await timed("kMin", () => kMinTable(ctx));
    if (want("identifiers")) tables.identifiers = await timed("identifiers", () => identifiersTable(ctx));
    if (want("supervision")) tables.supervision = await timed("supervision", () => supervisionTable(ctx));
  } finally {
    await ctx.engine.release();
  }
  await runUserPapersPart();

  const attribution = attributionSection(attributionRows);
  const manifest = corpusTablesManifest({
    command: options.command,
    clock,
    corpusDir: options.corpusDir,
    data,
    splitOf: ctx.splitOf,
    queriesUsed: { test: ctx.test.length, dev: ctx.dev.length, ooc: ctx.ooc.length },
    mainAlpha: ctx.mainAlpha,
    bootstrap: boot,
    generative: ctx.generativeManifest,
    sectionSeconds,
  });
  const tableGold = Object.fromEntries((Object.keys(tables) as TableName[]).filter((t) => IN_CORPUS_TABLES.includes(t)).map((t) => [t, "out-neighbours"]));
  return {
    version: 1,
    kind: options.kind ?? "full",
    suites: [...options.suites],
    date: clock.date,
    tables,
    tableGold,
    attribution,
    coverage,
    nonObvious,
    userPapers,
    manifest,
  };
}
