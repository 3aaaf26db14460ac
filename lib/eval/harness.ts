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
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { FACETS, type Facet } from "@/lib/corpus/types";
import { repoRoot } from "@/lib/paths";
import {
  bestSingleFacet,
  createFusion,
  csrFacetRow,
  csrWeightOf,
  leaveOneFacetOut,
  lmScore,
  restrictFacets,
  type FacetLists,
  type FusedResult,
} from "@/lib/fusion";
import { DISTILL_VARIANTS, distill, distillationStatistics, trainMask, type DistillOptions } from "@/lib/genret/distill";
import { buildDocIdIndex } from "@/lib/genret/docid";
import { citationRows } from "@/lib/graph/citation-score";
import { coverage as coverageAtK } from "@/lib/graph/coverage";
import type { PaperGraph } from "@/lib/graph/csr";
import { DEFAULT_EDGE_WEIGHT } from "@/lib/graph/edge-weight";
import { rescaleCosine } from "@/lib/graph/maxsim";
import { MaxSimEngine } from "@/lib/graph/maxsim-engine";
import { buildPaperGraph, queryFacetTopK } from "@/lib/graph/topk";
import type { Db } from "@/lib/db/client";
import { mulberry32 } from "@/lib/random";
import { attributionOf, edgeListPairFacets, graphPairFacets } from "./attribution";
import { bm25Retriever, denseDocumentRetrieve, denseItemLists, packVectors, prepareItemLists } from "./baselines";
import { loadCorpusData, type CorpusData } from "@/lib/graph/corpus-data";
import { denseGraphInCorpus, denseGraphOutOfCorpus, denseOnlyRetrieve, neighbourGold, paperItems, papersOf, prepareFacetIndex, scoreRuns } from "./dense-graph";
import {
  availability,
  FUSION_VARIANT,
  GENERATIVE_VARIANTS,
  GRAFT_VARIANT,
  hasModelScores,
  paperQuery,
  validateGenerativeResults,
  viewLmScore,
  type GenerativeProvider,
  type GenerativeQuery,
  type GenerativeResult,
  type GenerativeVariant,
} from "./generative";
import type { QueryRun } from "./metrics";
import {
  combineFacetScores,
  citationCounts,
  mostCitedNonObvious,
  nonObviousBaseRate,
  nonObviousRow,
  nonObviousStats,
  rankByCitations,
  type QueryObviousness,
} from "./nonobvious";
import {
  PAPER_ALPHA,
  PAPER_ATTRIBUTION,
  PAPER_COVERAGE_K,
  PAPER_FUSION,
  PAPER_HOPS,
  PAPER_IDENTIFIERS,
  PAPER_KMIN,
  PAPER_LEAVE_ONE_OUT,
  PAPER_MAIN,
  PAPER_NON_OBVIOUS,
  PAPER_OOC,
  PAPER_SUPERVISION,
  PAPER_TARGET_COVERAGE,
} from "./paper-figures";
import {
  notReproducedRow,
  notRunRow,
  recallRow,
  SUITE_PARTS,
  type AttributionRow,
  type AttributionSection,
  type CoverageSection,
  type CoverageVariantRow,
  type EvalReport,
  type Manifest,
  type NonObviousMethodRow,
  type NonObviousSection,
  type Part,
  type RecallRow,
  type Suite,
  type TableName,
  type UserPapersSection,
  IN_CORPUS_TABLES,
  PARTS,
} from "./report";
import { userPapersSection } from "./user-papers-suite";

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
  /** Corpus name in the store (default: the corpus directory's name). */
  storeCorpus?: string;
  /** The command line, for the manifest. */
  command?: string;
  log?: (message: string) => void;
}

/** The graph every table shares: K = 20, α = 0.75, β = 0.25 (the paper's selection). */
export const EVAL_K = 20;
const ALPHAS = [0, 0.25, 0.5, 0.75, 1] as const;
const HOPS = [1, 2, 3] as const;
const TOP_N = 50;
/** Beam width per item in the paper; the dense item lists keep as many. */
const PER_ITEM = 50;
/** "the query's 50 nearest neighbours" of the non-obvious analysis, and its top-20 cut. */
const NEAREST = 50;
const NON_OBVIOUS_K = 20;

const SPECTER2_REASON = "SPECTER2 weights cannot be loaded offline (no npm or Debian package ships them)";
const S2_REASON = "the Semantic Scholar Recommendations API needs network access";

/** A seeded sample of `n` items (all when n is undefined or larger), in ascending order. */
export function sampleQueries(items: readonly number[], n: number | undefined, seed: number): number[] {
  if (n === undefined || n >= items.length) return [...items];
  const a = [...items];
  const rand = mulberry32(seed);
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.slice(0, Math.max(0, n)).sort((x, y) => x - y);
}

function gitState(): { commit: string | null; dirty: boolean | null } {
  try {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const status = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
      cwd: repoRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return { commit, dirty: status.trim().length > 0 };
  } catch {
    return { commit: null, dirty: null };
  }
}

function sha256(file: string | null): string | null {
  if (!file) return null;
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex");
  } catch {
    return null;
  }
}

type Lists = { key: string; label: string; perQuery: (i: number) => FacetLists; scoresAreLogProbs: boolean };

export async function runEvaluation(options: EvalOptions): Promise<EvalReport> {
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  const loadAtStart = os.loadavg()[0];
  const date = new Date().toISOString();
  const log = options.log ?? (() => {});
  const seed = options.seed ?? 0;
  const resamples = options.resamples ?? 1000;
  const boot = { resamples, seed };
  const suites = new Set(options.suites);
  const limits = options.limits ?? {};
  const provider = options.generative;
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
  const needDocs = want("main") || want("ooc");

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
        limits: { ooc: limits.userPapers ?? limits.ooc ?? limits.test, unseen: limits.userPapers ?? limits.test },
        boot,
        seed,
        runsCache: options.userPapersRunsCache,
        log,
      }),
    );
  };
  if (!PARTS.some((p) => p !== "userPapers" && want(p))) {
    await runUserPapersPart();
    const manifest: Manifest = {
      command: options.command ?? "runEvaluation()",
      date,
      wallSeconds: (performance.now() - started) / 1000,
      cpuSeconds: (() => {
        const u = process.cpuUsage(cpuAtStart);
        return (u.user + u.system) / 1e6;
      })(),
      loadAverage: { start: loadAtStart, end: os.loadavg()[0] },
      git: gitState(),
      node: process.version,
      platform: `${os.platform()} ${os.arch()}`,
      cpus: os.availableParallelism?.() ?? os.cpus().length,
      corpus: {
        dir: options.corpusDir,
        name: storeCorpus,
        userPapers: Object.fromEntries(
          (userPapers?.tables ?? []).map((t) => [t.id, { queries: t.queries, goldPairs: t.goldPairs, ...(t.tuning ? { tuning: t.tuning } : {}) }]),
        ),
      },
      embedder: String((userPapers?.settings.build as { embedder?: string } | undefined)?.embedder ?? "the graph build's"),
      graph: { ...((userPapers?.settings.build as Record<string, unknown> | undefined) ?? {}) },
      retrieval: { relatedPapers: { k: userPapers?.k ?? 50 } },
      bootstrap: { resamples, seed, level: 0.95 },
      generative: { provider: "the served retrievers (the store's builds)" },
      sectionSeconds,
    };
    return { version: 1, kind: options.kind ?? "full", suites: [...options.suites], date, tables: {}, userPapers, manifest };
  }
  const data: CorpusData = await timed("load", () =>
    loadCorpusData(options.corpusDir, {
      embedder: options.embedder,
      cacheRoot: options.cacheRoot,
      documents: needDocs,
      // USE-lite is single-threaded: two processes use both cores; MiniLM already does in one.
      workers: options.embedWorkers ?? ((options.embedder ?? "use-lite").startsWith("use-lite") ? 2 : 1),
      onProgress: (done, total) => total > 0 && log(`embedding texts missing from the cache: ${done}/${total}`),
    }),
  );
  log(
    `${data.ids.length} papers, ${data.queries.ids.length} out-of-corpus queries, ${data.embedderId}; ${data.newlyEmbedded} texts embedded (${data.embedSeconds.toFixed(1)} s)`,
  );
  const n = data.ids.length;
  const citations = citationRows(data.refs);
  const { alpha: mainAlpha } = DEFAULT_EDGE_WEIGHT;
  const buildGraph = (alpha: number, k = EVAL_K): Promise<PaperGraph> =>
    buildPaperGraph(data.items, citations, { k, alpha, beta: 1 - alpha }).then((r) => r.graph);
  const graph = await timed("graph", () => buildGraph(mainAlpha));
  // The query's own rows (the paper's gold; undirected before issue 17, mean 108 against 39).
  const gold = neighbourGold(graph, "out");
  const splitOf = (s: string): number[] => data.splits.flatMap((x, i) => (x === s ? [i] : []));
  const test = sampleQueries(splitOf("test"), limits.test, seed);
  const dev = sampleQueries(splitOf("dev"), limits.dev, seed);
  const ooc = sampleQueries(
    data.queries.ids.map((_, i) => i),
    limits.ooc,
    seed,
  );
  log(`graph K=${EVAL_K} α=${mainAlpha}; queries: test ${test.length}, dev ${dev.length}, out-of-corpus ${ooc.length}`);

  const engine = await MaxSimEngine.create();
  const facetIndex = prepareFacetIndex(data.items);
  const itemIndex = prepareItemLists(data.items);
  const tables: Partial<Record<TableName, RecallRow[]>> = {};
  let attribution: AttributionSection | undefined;
  let coverageSection: CoverageSection | undefined;
  let nonObvious: NonObviousSection | undefined;
  const attributionRows: AttributionRow[] = [];
  const generativeManifest: Record<string, unknown> = { provider: provider ? "given" : "none" };

  // ── shared machinery ──
  const goldOf = (q: number): Set<number> => gold[q];
  const oocGold = ooc.map((i) => new Set(data.queries.gold[i]));
  const oocItems = (i: number): Partial<Record<Facet, Float32Array[]>> => Object.fromEntries(FACETS.map((f) => [f, data.queries.items[f][i]]));
  // A query id that is also a corpus id would be the query itself: never return it.
  const oocSelf = (i: number): number => data.index.get(data.queries.ids[i]) ?? -1;

  const score = (queries: readonly number[], lists: readonly ArrayLike<number>[], goldFor: (pos: number) => ReadonlySet<number>) =>
    scoreRuns(
      lists.map((retrieved, pos): QueryRun => ({ retrieved, gold: goldFor(pos) })),
      boot,
    );
  const rowFrom = async (
    method: string,
    label: string,
    queries: readonly number[],
    retrieve: (q: number, pos: number) => ArrayLike<number> | Promise<ArrayLike<number>>,
    goldFor: (pos: number) => ReadonlySet<number>,
    extra: Partial<RecallRow> = {},
  ) => {
    const t0 = performance.now();
    const lists: ArrayLike<number>[] = [];
    for (let pos = 0; pos < queries.length; pos++) lists.push(await retrieve(queries[pos], pos));
    const row = recallRow(method, label, score(queries, lists, goldFor), { seconds: (performance.now() - t0) / 1000, ...extra });
    log(`${label}: R@20 ${row["R@20"]?.toFixed(3)} R@50 ${row["R@50"]?.toFixed(3)} (${row.seconds?.toFixed(1)} s)`);
    return { row, lists };
  };

  // Generative decodes, memoised per (variant, setting): several tables share one model's lists.
  const decoded = new Map<string, Promise<GenerativeResult[] | { reason: string }>>();
  const testQueries: GenerativeQuery[] = test.map((q) => paperQuery(data.ids[q], q, data.texts[q], paperItems(data.items, q)));
  const oocQueries: GenerativeQuery[] = ooc.map((i) => paperQuery(data.queries.ids[i], null, data.queries.texts[i], oocItems(i)));
  const decode = (variant: GenerativeVariant, setting: "test" | "ooc"): Promise<GenerativeResult[] | { reason: string }> => {
    const key = `${variant}|${setting}`;
    let p = decoded.get(key);
    if (!p) {
      p = (async () => {
        const reason = availability(provider, variant);
        if (reason !== null || !provider) return { reason: reason ?? "no provider" };
        const queries = setting === "test" ? testQueries : oocQueries;
        const t0 = performance.now();
        try {
          const raw = await provider.run(variant, queries, {
            corpusIds: data.ids,
            embedder: data.embedderId,
            onProgress: (d, t) => d === t && log(`generative ${variant} (${setting}): ${t} queries decoded`),
          });
          const results = validateGenerativeResults(variant, queries, raw, n);
          generativeManifest[variant] = { ...(provider.describe?.(variant) ?? {}), [`${setting}DecodeSeconds`]: (performance.now() - t0) / 1000 };
          return results;
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          log(`generative ${variant} (${setting}) failed: ${message}`);
          return { reason: `the provider failed: ${message}` };
        }
      })();
      decoded.set(key, p);
    }
    return p;
  };
  const graphRrf = createFusion("graph-rrf", { weightOf: csrWeightOf(graph) });
  const plainRrf = createFusion("rrf");
  const corroboration = createFusion("corroboration", { facetRow: csrFacetRow(graph) });

  /** In-corpus generative row: graph-RRF over facet lists, MINDER's LM-score over views. */
  const generativeRow = async (variant: GenerativeVariant, method: string, label: string, extra: Partial<RecallRow> = {}): Promise<RecallRow> => {
    const results = await decode(variant, "test");
    if (!Array.isArray(results)) return notRunRow(method, label, results.reason, extra);
    const fuse = (r: GenerativeResult, q: number): FusedResult[] =>
      r.views ? viewLmScore(r.views, { exclude: q, topN: TOP_N }) : graphRrf.fuse(r.lists ?? {}, { query: q });
    return (
      await rowFrom(
        method,
        label,
        test,
        (q, pos) => papersOf(fuse(results[pos], q)),
        (pos) => goldOf(test[pos]),
        extra,
      )
    ).row;
  };

  const denseListsTest = new Map<number, FacetLists>();
  const denseItemsOf = (q: number): FacetLists => {
    let l = denseListsTest.get(q);
    if (!l) denseListsTest.set(q, (l = denseItemLists(itemIndex, paperItems(data.items, q), { perItem: PER_ITEM, exclude: q })));
    return l;
  };

  try {
    // ════════ main ════════
    if (want("main")) {
      await timed("main", async () => {
        const bm25 = bm25Retriever(data.texts);
        const docs = packVectors(data.documents?.papers ?? []);
        const rows: RecallRow[] = [];
        rows.push(
          (
            await rowFrom(
              "dense-graph",
              "Dense-graph",
              test,
              (q) => denseGraphInCorpus(graph, q),
              (p) => goldOf(test[p]),
              { paper: PAPER_MAIN["dense-graph"] },
            )
          ).row,
        );
        rows.push(
          (
            await rowFrom(
              "doc-dense",
              `Document dense (title + abstract, ${data.embedderId})`,
              test,
              (q) => denseDocumentRetrieve(docs, data.documents?.papers[q] as Float32Array, TOP_N, q),
              (p) => goldOf(test[p]),
              { paper: PAPER_MAIN["doc-dense"] },
            )
          ).row,
        );
        rows.push(
          (
            await rowFrom(
              "dense-only",
              "Dense-only (facet max-sim, RRF)",
              test,
              async (q) => papersOf(await denseOnlyRetrieve(engine, facetIndex, paperItems(data.items, q), { exclude: q })),
              (p) => goldOf(test[p]),
              { paper: PAPER_MAIN["dense-only"] },
            )
          ).row,
        );
        rows.push(
          (
            await rowFrom(
              "bm25",
              "BM25 (title + facets)",
              test,
              (q) => bm25.retrieve(data.texts[q], TOP_N, q),
              (p) => goldOf(test[p]),
              { paper: PAPER_MAIN.bm25 },
            )
          ).row,
        );
        rows.push(notReproducedRow("specter2", "SPECTER2 (title + abstract)", SPECTER2_REASON, PAPER_MAIN.specter2));
        rows.push(notReproducedRow("s2-recommendations", "S2 Recommendations API", S2_REASON, PAPER_MAIN["s2-recommendations"]));
        rows.push(await generativeRow("minder", "minder", GENERATIVE_VARIANTS.minder.label, { paper: PAPER_MAIN.minder }));
        rows.push(await generativeRow("uniform", "graft-uniform", GENERATIVE_VARIANTS.uniform.label, { paper: PAPER_MAIN["graft-uniform"] }));
        rows.push(await generativeRow("+oversample", "graft-oversample", GENERATIVE_VARIANTS["+oversample"].label, { paper: PAPER_MAIN["graft-oversample"] }));
        rows.push(await generativeRow("+floor", "graft-floor", GENERATIVE_VARIANTS["+floor"].label, { paper: PAPER_MAIN["graft-floor"] }));
        rows.push(await generativeRow("+fallback", "graft", GENERATIVE_VARIANTS["+fallback"].label, { paper: PAPER_MAIN.graft }));
        // The ladder above is trained at one reduced, equal budget; this is the model users get.
        rows.push(await generativeRow("shipped", "graft-shipped", `${GENERATIVE_VARIANTS.shipped.label} (graph-RRF)`));
        tables.main = rows;
      });
    }

    // ── fusion, leave-one-out, in-corpus attribution ──
    if (want("fusion")) {
      await timed("fusion", async () => {
        const sources: (Lists | { key: string; label: string; reason: string })[] = [
          { key: "dense-items", label: "dense item lists", perQuery: (pos) => denseItemsOf(test[pos]), scoresAreLogProbs: false },
        ];
        const gen = await decode(FUSION_VARIANT, "test");
        const genKey = `generative:${FUSION_VARIANT}`;
        if (Array.isArray(gen)) {
          if (gen.some((r) => !r.lists))
            sources.push({ key: genKey, label: `generative ${FUSION_VARIANT}`, reason: "the provider returned views, not facet lists" });
          else sources.push({ key: genKey, label: `generative ${FUSION_VARIANT}`, perQuery: (pos) => gen[pos].lists as FacetLists, scoresAreLogProbs: true });
        } else sources.push({ key: genKey, label: `generative ${FUSION_VARIANT}`, reason: gen.reason });

        const fusionRows: RecallRow[] = [];
        const looRows: RecallRow[] = [];
        const pairFacets = graphPairFacets(graph);
        for (const src of sources) {
          const tag = ` [${src.key}]`;
          if (!("perQuery" in src)) {
            for (const m of ["best-single-facet", "rrf", "lm-score", "graph-rrf"])
              fusionRows.push(notRunRow(m, `${m}${tag}`, src.reason, { lists: src.key, paper: PAPER_FUSION[m] }));
            looRows.push(notRunRow("graph-rrf", `Graph-RRF (all four facets)${tag}`, src.reason, { lists: src.key }));
            for (const f of ["graph-rrf", "rrf", "lm-score"]) {
              attributionRows.push({
                id: `${f}:${src.key}`,
                label: `${f} over ${src.label}`,
                setting: "in-corpus",
                lists: src.key,
                fusion: f,
                status: "not run",
                reason: src.reason,
              });
            }
            continue;
          }
          const lm = (lists: FacetLists, q: number): FusedResult[] =>
            src.scoresAreLogProbs
              ? lmScore(lists, { exclude: q })
              : // Cosines are not probabilities: rescaled to [0, 1] as the graph's s_f is, then summed like probabilities.
                lmScore(Object.fromEntries(Object.entries(lists).map(([f, l]) => [f, l?.map((c) => ({ ...c, score: rescaleCosine(c.score ?? -1) }))])), {
                  exclude: q,
                  logProb: false,
                });
          const lmUsable = src.scoresAreLogProbs ? test.every((_, pos) => hasModelScores(src.perQuery(pos))) : true;
          const fused = (rule: "graph-rrf" | "rrf" | "lm-score", facets: readonly Facet[] = FACETS): FusedResult[][] =>
            test.map((q, pos) => {
              const lists = facets.length === FACETS.length ? src.perQuery(pos) : restrictFacets(src.perQuery(pos), facets);
              return rule === "graph-rrf" ? graphRrf.fuse(lists, { query: q }) : rule === "rrf" ? plainRrf.fuse(lists, { query: q }) : lm(lists, q);
            });
          const recallOf = (results: FusedResult[][]) => score(test, results.map(papersOf), (pos) => goldOf(test[pos]));
          const r20 = (results: FusedResult[][]): number => recallOf(results).recall[20].estimate;

          const best = bestSingleFacet((fs) => r20(fused("graph-rrf", fs)));
          fusionRows.push(
            recallRow("best-single-facet", `Best single facet (${best.facet}), graph-RRF${tag}`, recallOf(fused("graph-rrf", [best.facet])), {
              lists: src.key,
              paper: PAPER_FUSION["best-single-facet"],
            }),
          );
          const results = { rrf: fused("rrf"), "lm-score": lmUsable ? fused("lm-score") : null, "graph-rrf": fused("graph-rrf") };
          fusionRows.push(recallRow("rrf", `Uniform RRF (no graph)${tag}`, recallOf(results.rrf), { lists: src.key, paper: PAPER_FUSION.rrf }));
          fusionRows.push(
            results["lm-score"]
              ? recallRow("lm-score", `MINDER combination (LM-score sum)${tag}`, recallOf(results["lm-score"]), {
                  lists: src.key,
                  paper: PAPER_FUSION["lm-score"],
                })
              : notRunRow("lm-score", `MINDER combination (LM-score sum)${tag}`, "the provider's candidates carry no model scores", { lists: src.key }),
          );
          fusionRows.push(
            recallRow("graph-rrf", `Graph-RRF (all four facets)${tag}`, recallOf(results["graph-rrf"]), { lists: src.key, paper: PAPER_FUSION["graph-rrf"] }),
          );
          log(`fusion over ${src.key}: done`);

          const loo = leaveOneFacetOut((fs) => r20(fused("graph-rrf", fs)));
          looRows.push({
            ...recallRow("graph-rrf", `Graph-RRF (all four facets)${tag}`, recallOf(results["graph-rrf"]), { lists: src.key }),
            "R@20": loo.full,
            paper: { "R@20": PAPER_LEAVE_ONE_OUT.all },
          });
          for (const r of loo.rows) {
            looRows.push({
              ...recallRow(
                `without-${r.removed}`,
                `− ${r.removed}${tag}`,
                recallOf(
                  fused(
                    "graph-rrf",
                    FACETS.filter((f) => f !== r.removed),
                  ),
                ),
                { lists: src.key },
              ),
              delta: r.delta,
              paper: { "R@20": PAPER_LEAVE_ONE_OUT[r.removed] },
            });
          }

          for (const [fusion, res] of Object.entries(results) as [string, FusedResult[][] | null][]) {
            const id = `${fusion}:${src.key}`;
            const label = `${fusion} over ${src.label}`;
            if (!res) {
              attributionRows.push({ id, label, setting: "in-corpus", lists: src.key, fusion, status: "not run", reason: "no model scores" });
              continue;
            }
            const a = attributionOf(test.map((q, pos) => ({ results: res[pos], reference: pairFacets(q) })));
            attributionRows.push({
              id,
              label,
              setting: "in-corpus",
              lists: src.key,
              fusion,
              status: "ok",
              precision: a.precision,
              subsetShare: a.subsetShare,
              pairs: a.pairs,
              perFacet: Object.fromEntries(FACETS.map((f) => [f, a.perFacet[f].precision])),
            });
          }
        }
        tables.fusion = fusionRows;
        tables.leaveOneOut = looRows;
      });
    }

    if (want("coverage")) {
      coverageSection = await timed("coverage", async () => {
        const graph50 = await buildGraph(mainAlpha, 50);
        const byK = coverageAtK(graph50.facets, [10, 20, 50], 50).map((c) => ({
          k: c.k,
          covered: c.covered,
          share: c.share,
          perFacet: Object.fromEntries(FACETS.map((f) => [f, c.perFacet[f]?.share ?? 0])),
          paper: PAPER_COVERAGE_K[String(c.k)],
        }));
        const docIds = buildDocIdIndex(data.ids.map((externalId, i) => ({ externalId, facets: data.texts[i].facets })));
        const input = { graph, items: docIds.facets, sourceMask: trainMask(data.splits) };
        const recipes: [string, string, DistillOptions][] = [
          ...(Object.keys(DISTILL_VARIANTS) as (keyof typeof DISTILL_VARIANTS)[]).map((v): [string, string, DistillOptions] => [
            v,
            GENERATIVE_VARIANTS[v].label,
            DISTILL_VARIANTS[v],
          ]),
          ["kmin-1", GENERATIVE_VARIANTS["kmin-1"].label, { oversample: true, floor: true, kMin: 1 }],
          ["kmin-2", GENERATIVE_VARIANTS["kmin-2"].label, { oversample: true, floor: true, kMin: 2 }],
          ["kmin-4", GENERATIVE_VARIANTS["kmin-4"].label, { oversample: true, floor: true, kMin: 4 }],
        ];
        const distilled = ([variant, label, recipe]: [string, string, DistillOptions]): CoverageVariantRow => {
          const t0 = performance.now();
          const s = distillationStatistics(distill(input, { seed, ...recipe }), n);
          const row: CoverageVariantRow = {
            variant,
            label,
            status: "ok",
            examples: s.examples,
            targetCoverage: s.targetCoverage,
            targetPapers: s.targetPapers,
            identifiersUnderKMin: s.identifiersUnderKMin,
            byOrigin: s.byOrigin,
            seconds: (performance.now() - t0) / 1000,
            paper: PAPER_TARGET_COVERAGE[variant],
          };
          log(`coverage ${variant}: ${s.examples} examples, target coverage ${(100 * s.targetCoverage).toFixed(1)}% (${row.seconds?.toFixed(1)} s)`);
          return row;
        };
        const variants: CoverageVariantRow[] = options.distillCoverage === false ? [] : recipes.map(distilled);
        return { papers: n, byK, variants };
      });
    }

    // ════════ out of corpus ════════
    if (want("ooc")) {
      await timed("ooc", async () => {
        const bm25 = bm25Retriever(data.texts);
        const docs = packVectors(data.documents?.papers ?? []);
        // Per query and facet: the top-50 corpus papers by s_f. Their top-20 prefix is the query's
        // ephemeral first-hop edges (the same ranking lib/retrieve/ephemeral.ts prunes to K), the
        // attribution reference out of corpus; the max over facets gives the obvious set.
        const nearest: Partial<Record<Facet, { targets: Int32Array; scores: Float32Array }>>[] = [];
        for (const i of ooc) {
          const per: Partial<Record<Facet, { targets: Int32Array; scores: Float32Array }>> = {};
          for (const f of FACETS) {
            const items = data.queries.items[f][i];
            const blocks = facetIndex[f];
            if (blocks && items.length > 0) per[f] = await queryFacetTopK(engine, blocks, items, NEAREST, oocSelf(i));
          }
          nearest.push(per);
        }
        const ephemeralReference = nearest.map((per) =>
          edgeListPairFacets(Object.fromEntries(Object.entries(per).map(([f, l]) => [f, { targets: l.targets.subarray(0, EVAL_K) }]))),
        );
        const obvious = nearest.map((per) => combineFacetScores(Object.values(per), NEAREST));

        const rows: RecallRow[] = [];
        const runs = new Map<string, { label: string; lists: ArrayLike<number>[] }>();
        const add = async (
          method: string,
          label: string,
          retrieve: (i: number, pos: number) => ArrayLike<number> | Promise<ArrayLike<number>>,
          paper?: Partial<Record<"R@5" | "R@10" | "R@20" | "R@50", number>>,
        ) => {
          const r = await rowFrom(method, label, ooc, retrieve, (pos) => oocGold[pos], { paper });
          rows.push(r.row);
          runs.set(method, { label, lists: r.lists });
        };
        await add(
          "dense-graph",
          "Dense-graph (ephemeral insertion)",
          async (i) => papersOf(await denseGraphOutOfCorpus(engine, facetIndex, graph, oocItems(i), { exclude: oocSelf(i) })),
          PAPER_OOC["dense-graph"],
        );
        await add("bm25", "BM25 (title + facets)", (i) => bm25.retrieve(data.queries.texts[i], TOP_N, oocSelf(i)), PAPER_OOC.bm25);
        await add(
          "doc-dense",
          `Document dense (title + abstract, ${data.embedderId})`,
          (i) => denseDocumentRetrieve(docs, data.documents?.queries[i] as Float32Array, TOP_N, oocSelf(i)),
          PAPER_OOC["doc-dense"],
        );
        rows.push(notReproducedRow("specter2", "SPECTER2 (title + abstract)", SPECTER2_REASON, PAPER_OOC.specter2));
        await add("dense-only", "Dense-only (facet max-sim, RRF)", async (i) =>
          papersOf(await denseOnlyRetrieve(engine, facetIndex, oocItems(i), { exclude: oocSelf(i) })),
        );
        const denseItemsOoc = ooc.map((i) => denseItemLists(itemIndex, oocItems(i), { perItem: PER_ITEM, exclude: oocSelf(i) }));
        const denseCorr = ooc.map((i, pos) => corroboration.fuse(denseItemsOoc[pos], { query: oocSelf(i) >= 0 ? oocSelf(i) : undefined }));
        await add("dense-items-corroboration", "Dense item lists + corroboration RRF (no model)", (_i, pos) => papersOf(denseCorr[pos]));

        // Graph-RRF for an unseen query: w_f(q, d) from its ephemeral edges (top-K by s_f, weighted
        // α·s as lib/retrieve/ephemeral.ts inserts it), the weighting the query pipeline gives the
        // dense-graph lists of an unseen paper.
        const ephemeralWeights = nearest.map((per) => {
          const byFacet = new Map<Facet, Map<number, number>>();
          for (const [f, l] of Object.entries(per) as [Facet, { targets: Int32Array; scores: Float32Array }][]) {
            byFacet.set(f, new Map(Array.from(l.targets.subarray(0, EVAL_K), (t, j) => [t, mainAlpha * l.scores[j]])));
          }
          return byFacet;
        });
        const ephemeralGraphRrf = (lists: FacetLists, pos: number): FusedResult[] =>
          createFusion("graph-rrf", { weightOf: (f, _q, d) => ephemeralWeights[pos].get(f)?.get(d) ?? 0 }).fuse(lists, { query: -1 });
        /** Out-of-corpus rows of one generative model: corroboration RRF (the paper's) and ephemeral graph-RRF. */
        const oocGenerative = async (
          variant: GenerativeVariant,
          method: string,
          label: string,
          paper?: RecallRow["paper"],
        ): Promise<FusedResult[][] | null> => {
          const gen = await decode(variant, "ooc");
          if (!Array.isArray(gen) || !gen.every((r) => r.lists)) {
            const reason = Array.isArray(gen) ? "the provider returned views, not facet lists" : gen.reason;
            rows.push(notRunRow(method, `${label} (corroboration RRF)`, reason, { paper }));
            rows.push(notRunRow(`${method}-ephemeral`, `${label} (graph-RRF over ephemeral edges)`, reason));
            return null;
          }
          const corr = ooc.map((i, pos) => corroboration.fuse(gen[pos].lists as FacetLists, { query: oocSelf(i) >= 0 ? oocSelf(i) : undefined }));
          await add(method, `${label} (corroboration RRF)`, (_i, pos) => papersOf(corr[pos]), paper);
          await add(`${method}-ephemeral`, `${label} (graph-RRF over ephemeral edges)`, (_i, pos) =>
            papersOf(ephemeralGraphRrf(gen[pos].lists as FacetLists, pos)),
          );
          return corr;
        };
        const genCorr = await oocGenerative(GRAFT_VARIANT, "graft", "Graft", PAPER_OOC.graft);
        await oocGenerative("shipped", "graft-shipped", GENERATIVE_VARIANTS.shipped.label);
        tables.ooc = rows;

        // ── non-obvious retrievals ──
        const citedBy = citationCounts(data.refs);
        const byCount = rankByCitations(citedBy);
        const base = (lists: readonly ArrayLike<number>[]): QueryObviousness[] =>
          lists.map((retrieved, pos) => ({ retrieved, obvious: obvious[pos], gold: oocGold[pos] }));
        const baseRate = nonObviousBaseRate(base(ooc.map(() => [])), n);
        const control = nonObviousStats(base(obvious.map((o) => mostCitedNonObvious(citedBy, o, NON_OBVIOUS_K, byCount))), NON_OBVIOUS_K);
        const noRows: NonObviousMethodRow[] = [];
        for (const method of ["graft", "dense-graph", "dense-only", "bm25", "doc-dense", "dense-items-corroboration"]) {
          const run = runs.get(method);
          const paper = (PAPER_NON_OBVIOUS as unknown as Record<string, NonObviousMethodRow["paper"]>)[method];
          if (!run) {
            noRows.push({
              method,
              label: "Graft (corroboration RRF)",
              status: "not run",
              reason: rows.find((r) => r.method === method)?.reason ?? "not run",
              paper,
            });
            continue;
          }
          noRows.push({ method, label: run.label, status: "ok", ...nonObviousRow(nonObviousStats(base(run.lists), NON_OBVIOUS_K), baseRate, control), paper });
        }
        nonObvious = {
          k: NON_OBVIOUS_K,
          nearest: NEAREST,
          queries: ooc.length,
          baseRate,
          control,
          rows: noRows,
          paper: { baseRate: PAPER_NON_OBVIOUS.baseRate },
        };

        // ── out-of-corpus attribution: corroboration RRF against the ephemeral edges ──
        const oocAttribution = (id: string, label: string, lists: string, res: FusedResult[][] | null, reason?: string): AttributionRow => {
          if (!res) return { id, label, setting: "out-of-corpus", lists, fusion: "corroboration", status: "not run", reason };
          const a = attributionOf(res.map((results, pos) => ({ results, reference: ephemeralReference[pos] })));
          return {
            id,
            label,
            setting: "out-of-corpus",
            lists,
            fusion: "corroboration",
            status: "ok",
            precision: a.precision,
            subsetShare: a.subsetShare,
            pairs: a.pairs,
            perFacet: Object.fromEntries(FACETS.map((f) => [f, a.perFacet[f].precision])),
          };
        };
        attributionRows.push(oocAttribution("corroboration:dense-items", "corroboration RRF over dense item lists", "dense-items", denseCorr));
        attributionRows.push(
          oocAttribution(
            `corroboration:generative:${GRAFT_VARIANT}`,
            `corroboration RRF over generative ${GRAFT_VARIANT}`,
            `generative:${GRAFT_VARIANT}`,
            genCorr,
            rows.find((r) => r.method === "graft")?.reason,
          ),
        );
      });
    }

    // ════════ ablations ════════
    if (want("walkDepth")) {
      await timed("walkDepth", async () => {
        const walk: RecallRow[] = [];
        for (const h of HOPS)
          walk.push(
            (
              await rowFrom(
                `${h}-hop`,
                `${h}-hop`,
                test,
                (q) => denseGraphInCorpus(graph, q, { hops: h }),
                (p) => goldOf(test[p]),
                { param: h, paper: PAPER_HOPS[String(h)] },
              )
            ).row,
          );
        tables.walkDepth = walk;
      });
    }
    if (want("alpha")) {
      await timed("alpha", async () => {
        const sweep: RecallRow[] = [];
        for (const a of ALPHAS) {
          const g = a === mainAlpha ? graph : await buildGraph(a);
          sweep.push(
            (
              await rowFrom(
                `alpha-${a}`,
                `α = ${a.toFixed(2)}, β = ${(1 - a).toFixed(2)}`,
                dev,
                (q) => denseGraphInCorpus(g, q),
                (p) => goldOf(dev[p]),
                { param: a, paper: PAPER_ALPHA[String(a)] },
              )
            ).row,
          );
        }
        tables.alpha = sweep;
      });
    }
    if (want("kMin")) {
      await timed("kMin", async () => {
        tables.kMin = [
          await generativeRow("kmin-1", "kmin-1", "K_min = 1", { param: 1, paper: PAPER_KMIN["1"] }),
          await generativeRow("kmin-2", "kmin-2", "K_min = 2", { param: 2, paper: PAPER_KMIN["2"] }),
          await generativeRow("+floor", "kmin-3", "K_min = 3 (+floor)", { param: 3, paper: PAPER_KMIN["3"] }),
          await generativeRow("kmin-4", "kmin-4", "K_min = 4", { param: 4, paper: PAPER_KMIN["4"] }),
        ];
      });
    }
    if (want("identifiers")) {
      await timed("identifiers", async () => {
        tables.identifiers = [
          await generativeRow("docid-numeric", "docid-numeric", GENERATIVE_VARIANTS["docid-numeric"].label, { paper: PAPER_IDENTIFIERS["docid-numeric"] }),
          await generativeRow("docid-c2t", "docid-c2t", GENERATIVE_VARIANTS["docid-c2t"].label, { paper: PAPER_IDENTIFIERS["docid-c2t"] }),
          await generativeRow("uniform", "docid-bullet", "Facet-item bullet (uniform)", { paper: PAPER_IDENTIFIERS["docid-bullet"] }),
        ];
      });
    }
    if (want("supervision")) {
      await timed("supervision", async () => {
        const supervision: RecallRow[] = [];
        for (const v of ["uniform", "ce-reweight", "+oversample", "exhaustive", "hard-neg-50", "hard-neg-100"] as const) {
          supervision.push(
            await generativeRow(
              v,
              v,
              v === "+oversample" ? "Graph-weighted sampling (ours)" : v === "uniform" ? "Uniform sampling (base)" : GENERATIVE_VARIANTS[v].label,
              { paper: PAPER_SUPERVISION[v] },
            ),
          );
        }
        tables.supervision = supervision;
      });
    }
  } finally {
    await engine.release();
  }
  await runUserPapersPart();

  if (attributionRows.length > 0) {
    // Headline: graph-RRF in-corpus over the generative lists when they ran, else the dense item lists.
    const headline =
      attributionRows.find((r) => r.status === "ok" && r.fusion === "graph-rrf" && r.lists.startsWith("generative")) ??
      attributionRows.find((r) => r.status === "ok" && r.fusion === "graph-rrf") ??
      attributionRows.find((r) => r.status === "ok");
    attribution = {
      precision: headline?.precision ?? 0,
      subsetShare: headline?.subsetShare ?? 0,
      pairs: headline?.pairs ?? 0,
      perFacet: headline?.perFacet ?? {},
      lists: headline?.lists ?? "none",
      fusion: headline?.fusion ?? "none",
      reference:
        "in-corpus: the facets in which query and paper share an edge of the top-20 graph, either direction (graph-RRF credits a facet only where the query's own row holds the paper, so its in-corpus precision is 1 by construction); out-of-corpus: the facets of the query's ephemeral top-20 edges. Pairs: every returned (query, paper) pair of the fused top 50.",
      rows: attributionRows,
      paper: PAPER_ATTRIBUTION,
    };
  }

  const oocPairs = data.queries.gold.reduce((s, g) => s + g.length, 0);
  const manifest: Manifest = {
    command: options.command ?? "runEvaluation()",
    date,
    wallSeconds: (performance.now() - started) / 1000,
    // CPU seconds of this process (embedding workers not included) and the machine's 1-minute
    // load average at start and end: wall time on a shared machine says little on its own.
    cpuSeconds: (() => {
      const u = process.cpuUsage(cpuAtStart);
      return (u.user + u.system) / 1e6;
    })(),
    loadAverage: { start: loadAtStart, end: os.loadavg()[0] },
    git: gitState(),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpus: os.availableParallelism?.() ?? os.cpus().length,
    corpus: {
      dir: options.corpusDir,
      name: data.name,
      papers: n,
      splits: { test: splitOf("test").length, dev: splitOf("dev").length, train: splitOf("train").length },
      oocQueries: data.queries.ids.length,
      oocGoldPairs: oocPairs,
      queriesUsed: { test: test.length, dev: dev.length, ooc: ooc.length },
      sha256: {
        papers: sha256(data.files.papers),
        citations: sha256(data.files.citations),
        queries: sha256(data.files.queries),
        queryGold: sha256(data.files.queryGold),
      },
    },
    embedder: data.embedderId,
    graph: { k: EVAL_K, alpha: mainAlpha, beta: 1 - mainAlpha, gold: "the query's own out-neighbours (its rows, all facets)" },
    retrieval: {
      topN: TOP_N,
      walk: { hops: 2, cap: 500, combine: "max" },
      rrfK: 60,
      denseItemsPerItem: PER_ITEM,
      nonObvious: { nearest: NEAREST, k: NON_OBVIOUS_K },
    },
    bootstrap: { resamples, seed, level: 0.95 },
    generative: generativeManifest,
    sectionSeconds,
    newlyEmbedded: data.newlyEmbedded,
  };
  const tableGold = Object.fromEntries((Object.keys(tables) as TableName[]).filter((t) => IN_CORPUS_TABLES.includes(t)).map((t) => [t, "out-neighbours"]));
  return {
    version: 1,
    kind: options.kind ?? "full",
    suites: [...options.suites],
    date,
    tables,
    tableGold,
    attribution,
    coverage: coverageSection,
    nonObvious,
    userPapers,
    manifest,
  };
}
