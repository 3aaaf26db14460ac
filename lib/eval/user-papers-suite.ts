/**
 * The "user-papers" suite of `graft eval` (issue 17): the two development query sets of
 * ./user-papers.ts, each in both facet sources, through the served pipeline (relatedPapers),
 * one row per retriever setting:
 *
 *   hybrid                   the default (fusion auto; no generative lists: they did not pay on the tuning half), each
 *                            query sent as its record: title, abstract, year, authors (and its facets, LLM source)
 *   hybrid-text-only         the default with title and abstract only (no authors: a pasted abstract)
 *   hybrid-without-rerank    the default's first stage: the fused order, without the learned second stage
 *   hybrid-with-generative   that first stage with the generative lists fused into each facet (weight 1): the
 *                            ablation, compared with the first stage (the second stage was fitted without them)
 *   graft                    the generative retriever alone, with its own fusion (auto → graph-RRF; an unseen
 *                            paper's generated papers and ephemeral edges walk the typed graph for w_f(q, ·))
 *   dense-graph            the dense-graph teacher (fusion auto)
 *   bm25                   the served BM25 retriever (fusion rrf): the denominator of every ratio
 *   bm25-whole-paper       BM25 over title + abstract, one list (an evaluation baseline, not served)
 *
 * Figures: micro R@5/10/20/50, the R@20 bootstrap interval, R@20 / BM25 R@20 with a paired
 * bootstrap interval, the ablation's relative change in R@20 from the default (paired), and the
 * latency of each answer (warm: one untimed query first).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "@/lib/atomic-write";
import type { Db } from "@/lib/db";
import { type FacetExtractor, createOfflineExtractor } from "@/lib/facets";
import { RETRIEVER_INFO, RETRIEVER_NAMES, type RelatedOptions } from "@/lib/query";
import {
  Bm25Index,
  HYBRID,
  hybridRetriever,
  loadGraph,
  paperText,
  registerRetriever,
  registeredRetrievers,
  unregisterRetriever,
  type Retriever,
} from "@/lib/retrieve";
import { mulberry32 } from "@/lib/random";
import type { BootstrapOptions } from "./metrics";
import { writeTrecFiles } from "./trec";
import type { UserPaperRow, UserPapersSection, UserPaperTable } from "./report";
import {
  FACET_SOURCES,
  recallRatio,
  runUserPapers,
  userPaperQueries,
  userPaperRecall,
  type FacetSource,
  type UserPaperQuery,
  type UserPaperRun,
  type UserPaperSet,
} from "./user-papers";

/** Evaluation-only retrievers (registered under these names for the suite's run). */
export const WITH_GENERATIVE = "hybrid-with-generative";
export const WHOLE_PAPER_BM25 = "bm25-whole-paper";
export const WITHOUT_RERANK = "hybrid-without-rerank";
export const TEXT_ONLY = "hybrid-text-only";

export interface UserPaperRowSpec {
  method: string;
  label: string;
  retriever: string;
  fusion: RelatedOptions["fusion"];
  /** Send title and abstract only, not the record's year and authors. */
  textOnly?: boolean;
}

const EXPLICIT_ROWS: readonly UserPaperRowSpec[] = [
  { method: "hybrid", label: "Default pipeline (hybrid, fusion auto)", retriever: "hybrid", fusion: "auto" },
  {
    method: TEXT_ONLY,
    label: "Default, title and abstract only (no authors, as a pasted abstract)",
    retriever: "hybrid",
    fusion: "auto",
    textOnly: true,
  },
  { method: WITHOUT_RERANK, label: "Default without its learned second stage (the first stage's fused order)", retriever: WITHOUT_RERANK, fusion: "auto" },
  {
    method: WITH_GENERATIVE,
    label: "First stage plus the generative lists (hybrid without the second stage, generative weight 1)",
    retriever: WITH_GENERATIVE,
    fusion: "auto",
  },
  {
    method: "graft",
    label: "Graft alone (the generative retriever: its generated papers and the query's ephemeral edges walk the typed graph; graph-RRF)",
    retriever: "graft",
    fusion: "auto",
  },
  { method: "dense-graph", label: "Dense-graph teacher (fusion auto)", retriever: "dense-graph", fusion: "auto" },
  { method: "bm25", label: "BM25 (the served bm25 retriever, fusion rrf)", retriever: "bm25", fusion: "rrf" },
  {
    method: WHOLE_PAPER_BM25,
    label: "BM25 over the whole paper (title + abstract; evaluation baseline, not served)",
    retriever: WHOLE_PAPER_BM25,
    fusion: "rrf",
  },
];

/** The rows above, then one row per offered retriever (lib/query/types.ts) without one of its own: offering a retriever is what makes it measured. */
export const USER_PAPER_ROWS: readonly UserPaperRowSpec[] = [
  ...EXPLICIT_ROWS,
  ...RETRIEVER_NAMES.filter((name) => !EXPLICIT_ROWS.some((r) => r.method === name)).map((name) => ({
    method: name,
    label: `${RETRIEVER_INFO[name].label} (fusion auto)`,
    retriever: name,
    fusion: "auto" as const,
  })),
];
/** The row every ratio divides by, and the row the ablation is compared with. */
export const BASELINE_ROW = "bm25";
export const DEFAULT_ROW = "hybrid";
export const ABLATION_ROW = WITH_GENERATIVE;
/** The row the ablation is compared with: the first stage it adds the generative lists to. */
export const ABLATION_BASE_ROW = WITHOUT_RERANK;

/**
 * BM25 over each paper's title and abstract, queried with the query's title and abstract: one
 * whole-paper list, no facets and no citation expansion (hybrid's seeds, on their own).
 */
export const wholePaperBm25Retriever: Retriever = {
  name: WHOLE_PAPER_BM25,
  scoreKind: "score",
  preferredFusion: "rrf",
  async retrieve(ctx) {
    const text = await paperText(ctx.db, ctx.graph);
    const { index, tokenize } = ctx.graph.memo("eval:bm25-whole-paper", () =>
      Bm25Index.fromTexts(
        ctx.graph.papers.map((p, i) => `${p.title}\n${text.abstracts.at(i)}`),
        { stopwords: true },
      ),
    );
    const abstract = ctx.query.index !== null ? text.abstracts.at(ctx.query.index) : ctx.query.abstract;
    const never = new Set([ctx.query.index, ctx.query.exclude].filter((x): x is number => x !== null));
    const hits = index.search(tokenize(`${ctx.query.title}\n${abstract}`), ctx.pool + never.size);
    ctx.wholePaper = {
      list: hits
        .filter((h) => !never.has(h.doc))
        .slice(0, ctx.pool)
        .map((h) => ({ paper: h.doc, score: h.score })),
      weight: 1,
    };
    return {};
  },
};

/** Registers the evaluation-only retrievers; returns a function that removes them again. */
export function registerEvaluationRetrievers(): () => void {
  const added = [
    hybridRetriever({ ...HYBRID, generativeWeight: 1, rerank: null }, WITH_GENERATIVE),
    hybridRetriever({ ...HYBRID, rerank: null }, WITHOUT_RERANK),
    wholePaperBm25Retriever,
  ].filter((r) => !registeredRetrievers().includes(r.name));
  for (const r of added) registerRetriever(r);
  return () => added.forEach((r) => unregisterRetriever(r.name));
}

/** A seeded sample of n queries (all when n is undefined or larger), in their file order. */
export function sampleUserPapers(queries: readonly UserPaperQuery[], n: number | undefined, seed: number): UserPaperQuery[] {
  if (n === undefined || n >= queries.length) return [...queries];
  const idx = queries.map((_, i) => i);
  const rand = mulberry32(seed);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx
    .slice(0, Math.max(0, n))
    .sort((a, b) => a - b)
    .map((i) => queries[i]);
}

export interface UserPapersSuiteOptions {
  db: Db;
  /** Corpus name in the store. */
  corpus: string;
  /** Corpus directory (papers.jsonl, citations.tsv, ooc-queries.jsonl, ooc-gold.tsv). */
  corpusDir: string;
  /** At most this many queries of set 1 / of each half of sets 2 and 3 (a seeded sample). */
  limits?: { ooc?: number; unseen?: number; later?: number };
  sources?: readonly FacetSource[];
  rows?: readonly UserPaperRowSpec[];
  /** Extractor of the "offline" source (default: the offline extractor, whatever GRAFT_EXTRACTOR says). */
  offlineExtractor?: FacetExtractor;
  boot?: BootstrapOptions;
  seed?: number;
  /**
   * A JSON file of raw runs: rows already in it for the same build, setting and queries are read
   * instead of run, and every finished row is added (resumes an interrupted run).
   */
  runsCache?: string;
  /** Only these sets (default: all five; the others get empty tables). */
  sets?: readonly UserPaperSet[];
  /** A store corpus of the same papers imported without citations: sets 1–3 again there (the default and BM25 rows). */
  withoutCitations?: string;
  /** Write every row's runs as TREC run files, and each set's qrels, into this folder (lib/eval/trec.ts). */
  trecDir?: string;
  log?: (message: string) => void;
}

/** The rows run again on the corpus without citations. */
export const WITHOUT_CITATIONS_ROWS: readonly string[] = ["hybrid", "hybrid-text-only", "bm25"];

interface CachedRuns {
  build: number;
  queries: string;
  runs: UserPaperRun[];
}

function readCache(file: string | undefined): Record<string, CachedRuns> {
  if (!file || !existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Record<string, CachedRuns>;
  } catch {
    return {};
  }
}

function writeCache(file: string, cache: Record<string, CachedRuns>): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, JSON.stringify(cache));
}

const idsDigest = (qs: readonly UserPaperQuery[]): string =>
  createHash("sha256")
    .update(qs.map((q) => `${q.id}:${q.gold.join(",")}`).join("\n"))
    .digest("hex")
    .slice(0, 16);

const pair = (lo: number, hi: number): [number, number] | undefined => (Number.isFinite(lo) && Number.isFinite(hi) ? [lo, hi] : undefined);

function latency(runs: readonly UserPaperRun[]): { meanMs: number; p95Ms: number } {
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  return { meanMs: ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length), p95Ms: ms[Math.min(ms.length - 1, Math.ceil(0.95 * ms.length) - 1)] ?? 0 };
}

/** The most frequent applied fusion of a row's runs. */
function appliedFusion(runs: readonly UserPaperRun[]): string | undefined {
  const n = new Map<string, number>();
  for (const r of runs) if (r.fusion) n.set(r.fusion, (n.get(r.fusion) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

type Outcome = { runs: UserPaperRun[]; seconds: number } | { reason: string };

/** The rows of one query set and one facet source, from the runs of every row spec. */
/** Share of the runs whose first 20 hold `paper`, and of those whose gold does. */
export function mostCitedShare(runs: readonly UserPaperRun[], paper: string): { paper: string; top20: number; gold: number } {
  const n = Math.max(1, runs.length);
  return {
    paper,
    top20: runs.filter((r) => r.retrieved.slice(0, 20).includes(paper)).length / n,
    gold: runs.filter((r) => r.gold.includes(paper)).length / n,
  };
}

/** The corpus paper cited most often (citations.tsv), ties by id. */
export function mostCitedPaper(corpusDir: string): string | null {
  const counts = new Map<string, number>();
  for (const line of readFileSync(path.join(corpusDir, "citations.tsv"), "utf8").split("\n").slice(1)) {
    const cited = line.split("\t")[1]?.trim();
    if (cited) counts.set(cited, (counts.get(cited) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
}

export function userPaperRows(
  specs: readonly UserPaperRowSpec[],
  outcomes: ReadonlyMap<string, Outcome>,
  boot: BootstrapOptions,
  mostCited: string | null = null,
): UserPaperRow[] {
  const runsOf = (method: string): UserPaperRun[] | null => {
    const o = outcomes.get(method);
    return o && "runs" in o ? o.runs : null;
  };
  const base = runsOf(BASELINE_ROW);
  const def = runsOf(ABLATION_BASE_ROW);
  return specs.map((spec): UserPaperRow => {
    const o = outcomes.get(spec.method);
    const head = { method: spec.method, label: spec.label, retriever: spec.retriever, fusion: spec.fusion };
    if (!o || !("runs" in o)) return { ...head, status: "not run", reason: o && "reason" in o ? o.reason : "not run" };
    if (o.runs.length === 0) return { ...head, status: "not run", reason: "no queries in this set (or not selected)" };
    const firstError = o.runs.find((x) => x.error)?.error;
    if (o.runs.length > 0 && o.runs.every((x) => x.error))
      return { ...head, status: "not run", reason: `every query was answered with an error, e.g. ${firstError}` };
    const r = userPaperRecall(o.runs, boot);
    const row: UserPaperRow = {
      ...head,
      status: "ok",
      appliedFusion: appliedFusion(o.runs),
      "R@5": r.recall[5],
      "R@10": r.recall[10],
      "R@20": r.recall[20],
      "R@50": r.recall[50],
      ci: { "R@20": [r.ci20.low, r.ci20.high] },
      queries: r.queries,
      goldPairs: r.goldPairs,
      latency: latency(o.runs),
      seconds: o.seconds,
    };
    const failed = o.runs.filter((x) => x.error).length;
    if (failed > 0) row.failed = failed;
    if (mostCited) row.mostCited = mostCitedShare(o.runs, mostCited);
    if (base && spec.method !== BASELINE_ROW) {
      const q = recallRatio(o.runs, base, 20, boot);
      if (Number.isFinite(q.ratio)) row.ratio = { value: q.ratio, ...(pair(q.low, q.high) ? { ci: pair(q.low, q.high) } : {}) };
    }
    if (def && spec.method === ABLATION_ROW) {
      const q = recallRatio(o.runs, def, 20, boot);
      if (Number.isFinite(q.ratio)) {
        const ci = pair(q.low - 1, q.high - 1);
        row.change = { from: ABLATION_BASE_ROW, value: q.ratio - 1, ...(ci ? { ci } : {}) };
      }
    }
    return row;
  });
}

/** The TREC files of every row of one set and source that has runs (lib/eval/trec.ts). */
function writeTrec(folder: string, at: { corpus: string; set: UserPaperSet; source: FacetSource }, outcomes: ReadonlyMap<string, Outcome>): void {
  for (const [method, o] of outcomes) if ("runs" in o && o.runs.length > 0) writeTrecFiles(folder, { ...at, method }, o.runs);
}

const SET_TITLES = {
  ooc: (n: number) => `Papers users bring — set 1 (${n} out-of-corpus papers)`,
  unseen: (n: number) => `Papers users bring — set 2 (${n} citing test papers queried as unseen, report half)`,
  later: (n: number) => `Later work — set 3 (${n} train papers cited by test papers, queried as unseen, report half)`,
};

const SETS = ["ooc", "unseen-report", "unseen-tune", "later-report", "later-tune"] as const;

/** Runs the suite: every row, in both facet sources, on set 1 and both halves of set 2. */
// eslint-disable-next-line max-lines-per-function -- its rows move to the Retriever registry and the retrieve-and-fuse step shared with relatedPapers (issue 30), which reshapes it
export async function userPapersSection(options: UserPapersSuiteOptions): Promise<UserPapersSection> {
  const t0 = performance.now();
  const log = options.log ?? (() => {});
  const boot = options.boot ?? { resamples: 1000, seed: 0 };
  const seed = options.seed ?? 0;
  const specs = options.rows ?? USER_PAPER_ROWS;
  const sources = options.sources ?? FACET_SOURCES;
  const limits = options.limits ?? {};
  const all: Record<UserPaperSet, UserPaperQuery[]> = {
    ooc: sampleUserPapers(userPaperQueries(options.corpusDir, "ooc"), limits.ooc, seed),
    "unseen-report": sampleUserPapers(userPaperQueries(options.corpusDir, "unseen-report"), limits.unseen, seed),
    "unseen-tune": sampleUserPapers(userPaperQueries(options.corpusDir, "unseen-tune"), limits.unseen, seed),
    "later-report": sampleUserPapers(userPaperQueries(options.corpusDir, "later-report"), limits.later, seed),
    "later-tune": sampleUserPapers(userPaperQueries(options.corpusDir, "later-tune"), limits.later, seed),
  };
  const sets = Object.fromEntries(SETS.map((s) => [s, !options.sets || options.sets.includes(s) ? all[s] : []])) as Record<UserPaperSet, UserPaperQuery[]>;
  const g = await loadGraph(options.db, options.corpus);
  const build = { graphBuild: g.build, embedder: g.embedder, papers: g.externalIds.length, alpha: g.alpha, k: g.graph.k };
  log(
    `user papers: corpus ${options.corpus} (graph build ${g.build}, ${build.papers} papers); queries: set 1 ${sets.ooc.length}, set 2 report ${sets["unseen-report"].length}, tuning ${sets["unseen-tune"].length}; set 3 report ${sets["later-report"].length}, tuning ${sets["later-tune"].length}`,
  );
  const offline = options.offlineExtractor ?? createOfflineExtractor();
  const unregister = registerEvaluationRetrievers();
  const cache = readCache(options.runsCache);
  const mostCited = mostCitedPaper(options.corpusDir);
  /** Every row spec on every set and facet source, against one store corpus. */
  const runSets = async (corpus: string, build: number, rowSpecs: readonly UserPaperRowSpec[]) => {
    const rows = Object.fromEntries(SETS.map((s) => [s, {}])) as Record<UserPaperSet, Partial<Record<FacetSource, UserPaperRow[]>>>;
    for (const set of SETS) {
      const queries = sets[set];
      for (const source of sources) {
        const outcomes = new Map<string, Outcome>();
        const digest = idsDigest(queries);
        for (const spec of rowSpecs) {
          if (queries.length === 0) {
            outcomes.set(spec.method, { runs: [], seconds: 0 });
            continue;
          }
          const s0 = performance.now();
          const key = `${corpus === options.corpus ? "" : `${corpus}|`}${set}|${source}|${spec.method}|${spec.retriever}|${spec.fusion}`;
          const hit = cache[key];
          if (hit && hit.build === build && hit.queries === digest) {
            outcomes.set(spec.method, { runs: hit.runs, seconds: hit.runs.reduce((a, r) => a + r.ms, 0) / 1000 });
            log(`${corpus} ${set} ${source} ${spec.method}: ${hit.runs.length} runs read from ${options.runsCache}`);
            continue;
          }
          try {
            const runs = await runUserPapers(
              options.db,
              corpus,
              queries,
              { retriever: spec.retriever, fusion: spec.fusion },
              source,
              source === "offline" ? offline : undefined,
              {
                warmUp: true,
                textOnly: spec.textOnly,
                onProgress: (done, total) => done % 100 === 0 && done < total && log(`${corpus} ${set} ${source} ${spec.method}: ${done}/${total}`),
              },
            );
            outcomes.set(spec.method, { runs, seconds: (performance.now() - s0) / 1000 });
            if (options.runsCache) {
              cache[key] = { build, queries: digest, runs };
              writeCache(options.runsCache, cache);
            }
            const r = userPaperRecall(runs, { resamples: 1 });
            log(
              `${corpus} ${set} ${source} ${spec.method}: R@20 ${r.recall[20].toFixed(3)} over ${runs.length} queries (${((performance.now() - s0) / 1000).toFixed(0)} s)`,
            );
          } catch (err) {
            const reason = err instanceof Error ? err.message : String(err);
            outcomes.set(spec.method, { reason });
            log(`${corpus} ${set} ${source} ${spec.method}: not run: ${reason}`);
          }
        }
        if (options.trecDir) writeTrec(options.trecDir, { corpus, set, source }, outcomes);
        rows[set][source] = userPaperRows(rowSpecs, outcomes, boot, mostCited);
      }
    }
    return rows;
  };
  let rows: Record<UserPaperSet, Partial<Record<FacetSource, UserPaperRow[]>>>;
  let bare: { corpus: string; build: number; rows: Record<UserPaperSet, Partial<Record<FacetSource, UserPaperRow[]>>> } | null = null;
  try {
    rows = await runSets(options.corpus, g.build, specs);
    if (options.withoutCitations) {
      const gb = await loadGraph(options.db, options.withoutCitations);
      if ((await paperText(options.db, gb)).references.refs.length > 0)
        throw new Error(`corpus "${options.withoutCitations}" has citations; import it without them`);
      bare = {
        corpus: options.withoutCitations,
        build: gb.build,
        rows: await runSets(
          options.withoutCitations,
          gb.build,
          specs.filter((r) => WITHOUT_CITATIONS_ROWS.includes(r.method)),
        ),
      };
    }
  } finally {
    unregister();
  }

  const pairs = (qs: readonly UserPaperQuery[]) => qs.reduce((n, q) => n + q.gold.length, 0);
  // Sets 2 and 3: the report half's rows, each with the tuning half's R@20 of the same setting beside it.
  const withTuning = (
    rows: Record<UserPaperSet, Partial<Record<FacetSource, UserPaperRow[]>>>,
    report: UserPaperSet,
    tuning: UserPaperSet,
  ): Partial<Record<FacetSource, UserPaperRow[]>> => {
    const out: Partial<Record<FacetSource, UserPaperRow[]>> = {};
    for (const source of sources) {
      const tune = new Map((rows[tuning][source] ?? []).map((r) => [r.method, r]));
      out[source] = (rows[report][source] ?? []).map((r) => {
        const t = tune.get(r.method);
        if (!t || t.status !== "ok" || t["R@20"] === undefined) return r;
        return {
          ...r,
          tuning: {
            "R@20": t["R@20"],
            ...(t.ci?.["R@20"] ? { ci: t.ci["R@20"] } : {}),
            queries: t.queries ?? 0,
            ...(t.ratio ? { ratio: t.ratio } : {}),
            ...(t.change ? { change: t.change } : {}),
          },
        };
      });
    }
    return out;
  };
  /** Sets 2 and 3: the report half's table, the tuning half beside it. */
  const halvedTable = (id: "unseen" | "later", gold: string): UserPaperTable => {
    const [report, tune] = [`${id}-report`, `${id}-tune`] as const;
    return {
      id,
      title: SET_TITLES[id](sets[report].length),
      gold,
      queries: sets[report].length,
      goldPairs: pairs(sets[report]),
      tuning: { queries: sets[tune].length, goldPairs: pairs(sets[tune]) },
      sources: withTuning(rows, report, tune),
      tuningSources: rows[tune],
    };
  };
  const tables: UserPaperTable[] = [
    {
      id: "ooc",
      title: SET_TITLES.ooc(sets.ooc.length),
      gold: "the corpus papers each query paper cites (ooc-gold.tsv); queries with at least one such paper",
      queries: sets.ooc.length,
      goldPairs: pairs(sets.ooc),
      sources: rows.ooc,
    },
    halvedTable(
      "unseen",
      "the corpus papers each test-split paper cites (citations.tsv); test papers citing at least one, split into halves by a fixed hash of the id",
    ),
    halvedTable(
      "later",
      "the test-split papers citing each train-split query paper (citations.tsv, later work); train papers cited by at least 2 test papers, halves by the same hash as set 2",
    ),
  ];
  if (bare) {
    const nb = bare;
    const note = ` — corpus "${nb.corpus}", imported without citations`;
    tables.push(
      { ...tables[0], title: tables[0].title + note, withoutCitations: nb.corpus, sources: nb.rows.ooc },
      {
        ...tables[1],
        title: tables[1].title + note,
        withoutCitations: nb.corpus,
        sources: withTuning(nb.rows, "unseen-report", "unseen-tune"),
        tuningSources: nb.rows["unseen-tune"],
      },
      {
        ...tables[2],
        title: tables[2].title + note,
        withoutCitations: nb.corpus,
        sources: withTuning(nb.rows, "later-report", "later-tune"),
        tuningSources: nb.rows["later-tune"],
      },
    );
  }
  return {
    corpus: options.corpus,
    k: 50,
    baseline: BASELINE_ROW,
    default: DEFAULT_ROW,
    ablation: ABLATION_ROW,
    settings: { build, hybrid: { ...HYBRID }, sources: [...sources], limits, bootstrap: boot },
    tables,
    seconds: (performance.now() - t0) / 1000,
  };
}
