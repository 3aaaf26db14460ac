/**
 * What every table of the evaluation harness shares: the corpus, the top-20 typed graph and its
 * gold, the sampled queries, the corpus as the index the served retrievers read, row scoring and
 * the memoised generative decodes. Every fused row runs lib/retrieve's retrieve-and-fuse step:
 * a served retriever's lists via fusedPapers, precomputed lists (a provider's, the dense item
 * lists) via fusedLists. Built once per run by evalContext(); the table functions only read it
 * (bar generativeManifest, which each decode fills in).
 */
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { FacetLists, FusedResult } from "@/lib/fusion";
import { citationRows } from "@/lib/graph";
import type { CorpusData } from "@/lib/graph/corpus-data";
import type { PaperGraph } from "@/lib/graph";
import { DEFAULT_EDGE_WEIGHT } from "@/lib/graph";
import { MaxSimEngine } from "@/lib/graph";
import { buildPaperGraph } from "@/lib/graph";
import { mulberry32 } from "@/lib/random";
import type { FacetBlockIndex } from "@/lib/retrieve";
import type { RetrievalIndex } from "@/lib/retrieve";
import { precomputedRetriever, type PrecomputedLists } from "@/lib/retrieve";
import { retrieveAndFuse, type FusionRule, type FusionSettings } from "@/lib/retrieve";
import type { IndexRetrieveContext, Retriever } from "@/lib/retrieve";
import { corpusIndex, corpusRetrieveContext } from "../corpus-index";
import { denseItemLists, prepareItemLists, type ItemListIndex } from "../baselines";
import { neighbourGold, paperItems, papersOf, prepareFacetIndex, scoreRuns, type RecallReport } from "../dense-graph";
import {
  availability,
  paperQuery,
  validateGenerativeResults,
  viewLmScore,
  type GenerativeProvider,
  type GenerativeQuery,
  type GenerativeResult,
  type GenerativeVariant,
} from "../generative";
import type { QueryRun } from "../metrics";
import { notRunRow, recallRow, type RecallRow } from "../report";
import { EVAL_K, PER_ITEM, TOP_N } from "./constants";

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

/** The first TOP_N papers of a retriever (the registered objects, or dense-only)'s lists through the shared retrieve-and-fuse step. */
export async function fusedPapers(retriever: Retriever<IndexRetrieveContext>, c: IndexRetrieveContext, fusion: FusionRule): Promise<Int32Array> {
  return papersOf((await retrieveAndFuse(retriever, c, fusion)).fused.slice(0, TOP_N));
}

/** The first TOP_N results of precomputed lists (a provider's decoded lists, the dense item lists) through the same step. */
export async function fusedLists(lists: PrecomputedLists, c: IndexRetrieveContext, fusion: FusionRule, settings?: FusionSettings): Promise<FusedResult[]> {
  return (await retrieveAndFuse(precomputedRetriever(lists), c, fusion, undefined, settings)).fused.slice(0, TOP_N);
}

export type Retrieve = (q: number, pos: number) => ArrayLike<number> | Promise<ArrayLike<number>>;
export type DecodeResult = GenerativeResult[] | { reason: string };

export interface EvalContext {
  data: CorpusData;
  /** Corpus papers. */
  n: number;
  /** The shared top-20 graph at the paper's α, and a builder for other α or K. */
  graph: PaperGraph;
  mainAlpha: number;
  buildGraph: (alpha: number, k?: number) => Promise<PaperGraph>;
  splitOf: (split: string) => number[];
  /** Sampled query sets: test and dev papers (corpus indexes), out-of-corpus queries (query indexes). */
  test: number[];
  dev: number[];
  ooc: number[];
  engine: MaxSimEngine;
  facetIndex: FacetBlockIndex;
  itemIndex: ItemListIndex;
  /** The corpus and the shared graph as the index the served retrievers read. */
  index: RetrievalIndex;
  /** The retrieve context of a corpus paper (its node; over `index` unless another is given) and of the out-of-corpus query at a position of `ooc`'s query indexes. */
  paperContext: (q: number, on?: RetrievalIndex) => IndexRetrieveContext;
  oocContext: (i: number) => IndexRetrieveContext;
  seed: number;
  boot: { resamples: number; seed: number };
  log: (message: string) => void;
  /** Gold of an in-corpus query: its own out-neighbours in the top-20 graph. */
  goldOf: (q: number) => Set<number>;
  /** Gold of the out-of-corpus query at each position of `ooc`: the corpus papers it cites. */
  oocGold: Set<number>[];
  oocItems: (i: number) => Partial<Record<Facet, Float32Array[]>>;
  /** The corpus index of an out-of-corpus query that is also in the corpus (never returned), else -1. */
  oocSelf: (i: number) => number;
  score: (queries: readonly number[], lists: readonly ArrayLike<number>[], goldFor: (pos: number) => ReadonlySet<number>) => RecallReport;
  /** Runs `retrieve` over the queries and scores it into a recall row (logged). */
  rowFrom: (
    method: string,
    label: string,
    queries: readonly number[],
    retrieve: Retrieve,
    goldFor: (pos: number) => ReadonlySet<number>,
    extra?: Partial<RecallRow>,
  ) => Promise<{ row: RecallRow; lists: ArrayLike<number>[] }>;
  /** The provider's results for the test or out-of-corpus queries, memoised per (variant, setting). */
  decode: (variant: GenerativeVariant, setting: "test" | "ooc") => Promise<DecodeResult>;
  /** In-corpus generative row: graph-RRF over facet lists (the shared step), MINDER's LM-score over views. */
  generativeRow: (variant: GenerativeVariant, method: string, label: string, extra?: Partial<RecallRow>) => Promise<RecallRow>;
  /** Dense item lists of a test paper, memoised. */
  denseItemsOf: (q: number) => FacetLists;
  /** Per generative variant, the provider's description and decode seconds (the manifest's "generative"). */
  generativeManifest: Record<string, unknown>;
}

export interface EvalContextOptions {
  seed: number;
  resamples: number;
  limits: { test?: number; dev?: number; ooc?: number };
  provider: GenerativeProvider | undefined;
  log: (message: string) => void;
  /** Times the graph build into the run's section seconds. */
  timed: <T>(name: string, fn: () => Promise<T> | T) => Promise<T>;
}

/** Builds the shared graph, samples the queries and sets up the machinery every table uses. */
// eslint-disable-next-line max-lines-per-function -- the eval-side assembly that issue 30 replaces with the Retriever registry and the shared retrieve-and-fuse step
export async function evalContext(data: CorpusData, options: EvalContextOptions): Promise<EvalContext> {
  const { seed, resamples, limits, provider, log, timed } = options;
  const boot = { resamples, seed };
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
  const index = corpusIndex(data, graph, facetIndex, mainAlpha);
  const generativeManifest: Record<string, unknown> = { provider: provider ? "given" : "none" };

  const goldOf = (q: number): Set<number> => gold[q];
  const oocGold = ooc.map((i) => new Set(data.queries.gold[i]));
  const oocItems = (i: number): Partial<Record<Facet, Float32Array[]>> => Object.fromEntries(FACETS.map((f) => [f, data.queries.items[f][i]]));
  // A query id that is also a corpus id would be the query itself: never return it.
  const oocSelf = (i: number): number => data.index.get(data.queries.ids[i]) ?? -1;
  // `on`: another graph of the same corpus (the α sweep's).
  const paperContext = (q: number, on: RetrievalIndex = index) =>
    corpusRetrieveContext(on, { index: q, exclude: null, text: data.texts[q], vectors: paperItems(data.items, q) });
  const oocContext = (i: number) =>
    corpusRetrieveContext(index, { index: null, exclude: oocSelf(i) >= 0 ? oocSelf(i) : null, text: data.queries.texts[i], vectors: oocItems(i) });

  const score = (queries: readonly number[], lists: readonly ArrayLike<number>[], goldFor: (pos: number) => ReadonlySet<number>) =>
    scoreRuns(
      lists.map((retrieved, pos): QueryRun => ({ retrieved, gold: goldFor(pos) })),
      boot,
    );
  const rowFrom = async (
    method: string,
    label: string,
    queries: readonly number[],
    retrieve: Retrieve,
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
  const decoded = new Map<string, Promise<DecodeResult>>();
  const testQueries: GenerativeQuery[] = test.map((q) => paperQuery(data.ids[q], q, data.texts[q], paperItems(data.items, q)));
  const oocQueries: GenerativeQuery[] = ooc.map((i) => paperQuery(data.queries.ids[i], null, data.queries.texts[i], oocItems(i)));
  const decode = (variant: GenerativeVariant, setting: "test" | "ooc"): Promise<DecodeResult> => {
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

  const generativeRow = async (variant: GenerativeVariant, method: string, label: string, extra: Partial<RecallRow> = {}): Promise<RecallRow> => {
    const results = await decode(variant, "test");
    if (!Array.isArray(results)) return notRunRow(method, label, results.reason, extra);
    // MINDER's views are not facet lists: its LM-score sums over views; a facet-list model's lists go through the shared step.
    const fuse = async (r: GenerativeResult, q: number): Promise<FusedResult[]> =>
      r.views
        ? viewLmScore(r.views, { exclude: q, topN: TOP_N })
        : fusedLists({ name: `generative:${variant}`, scoreKind: "log-prob", lists: r.lists ?? {} }, { ...paperContext(q), facets: FACETS }, "graph-rrf");
    return (
      await rowFrom(
        method,
        label,
        test,
        async (q, pos) => papersOf(await fuse(results[pos], q)),
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

  return {
    data,
    n,
    graph,
    mainAlpha,
    buildGraph,
    splitOf,
    test,
    dev,
    ooc,
    engine,
    facetIndex,
    itemIndex,
    index,
    paperContext,
    oocContext,
    seed,
    boot,
    log,
    goldOf,
    oocGold,
    oocItems,
    oocSelf,
    score,
    rowFrom,
    decode,
    generativeRow,
    denseItemsOf,
    generativeManifest,
  };
}
