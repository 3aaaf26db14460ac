/**
 * Citation-preserving corpus sampling (paper, Appendix "Citation-Preserving Sampling").
 *
 * Uniform sampling of p of the nodes keeps only ~p^2 of the citation edges, so the paper
 * instead: restricts to a year range, takes the k-core of the undirected citation graph,
 * gives each year a quota proportional to its share of the year-filtered pool (largest
 * remainder, summing exactly to the target), keeps the highest-degree core papers of each
 * year, completes short years from the one-hop fringe of the selection, and finally adds
 * recent papers that are too poorly connected to survive either step.
 *
 * Everything here is pure and deterministic: ties are always broken by external id
 * (plain code-unit order, not locale order, so results do not depend on the machine).
 */
import type { CitationRecord, PaperRecord } from "./types";
import { Heap } from "@/lib/heap";

type PaperYear = Pick<PaperRecord, "externalId" | "year">;

/** Quota key for papers without a year (only possible when no year range is given). */
export const UNKNOWN_YEAR = "unknown";

/** Internal stratum key for null years: sorts after every real year in tie-breaks. */
const NULL_YEAR_KEY = Number.POSITIVE_INFINITY;

const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const compareNumbers = (a: number, b: number): number => (a < b ? -1 : a > b ? 1 : 0);

function yearLabel(key: number): string {
  return key === NULL_YEAR_KEY ? UNKNOWN_YEAR : String(key);
}

function assertK(k: number): void {
  if (!Number.isInteger(k) || k < 1) {
    throw new Error(`k-core order k must be an integer >= 1, got ${k}`);
  }
}

/**
 * Undirected simple graph in compressed-sparse-row form over a fixed id list.
 * Reciprocal and duplicate citations collapse into one edge; self-loops and edges with an
 * endpoint outside the id list are dropped, since neither says anything about how
 * strongly a paper is tied to the rest of the set.
 */
interface UndirectedGraph {
  ids: string[];
  index: Map<string, number>;
  /** neighbours of node i are targets[offsets[i] .. offsets[i + 1]) */
  offsets: Int32Array;
  targets: Int32Array;
}

function buildUndirectedGraph(ids: string[], edges: readonly CitationRecord[]): UndirectedGraph {
  const n = ids.length;
  const index = new Map<string, number>();
  ids.forEach((id, i) => index.set(id, i));
  // a * n + b stays an exact integer for any realistic n (< 9e7 nodes).
  const seen = new Set<number>();
  const src: number[] = [];
  const dst: number[] = [];
  const degree = new Int32Array(n);
  for (const { citing, cited } of edges) {
    const a = index.get(citing);
    const b = index.get(cited);
    if (a === undefined || b === undefined || a === b) continue;
    const lo = a < b ? a : b;
    const hi = a < b ? b : a;
    const key = lo * n + hi;
    if (seen.has(key)) continue;
    seen.add(key);
    src.push(lo);
    dst.push(hi);
    degree[lo]++;
    degree[hi]++;
  }
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + degree[i];
  const fill = offsets.slice(0, n);
  const targets = new Int32Array(offsets[n]);
  for (let e = 0; e < src.length; e++) {
    targets[fill[src[e]]++] = dst[e];
    targets[fill[dst[e]]++] = src[e];
  }
  return { ids, index, offsets, targets };
}

/**
 * Node indices of the k-core, as a membership mask. Queue peeling: every node is enqueued
 * at most once (when its degree first drops below k) and every edge is looked at at most
 * twice, so this is O(V + E).
 */
function kCoreMask(graph: UndirectedGraph, k: number): Uint8Array {
  const n = graph.ids.length;
  const { offsets, targets } = graph;
  const degree = new Int32Array(n);
  const removed = new Uint8Array(n);
  const queue = new Int32Array(n);
  let tail = 0;
  for (let i = 0; i < n; i++) {
    degree[i] = offsets[i + 1] - offsets[i];
    if (degree[i] < k) {
      removed[i] = 1;
      queue[tail++] = i;
    }
  }
  for (let head = 0; head < tail; head++) {
    const u = queue[head];
    for (let p = offsets[u]; p < offsets[u + 1]; p++) {
      const v = targets[p];
      if (removed[v]) continue;
      if (--degree[v] < k) {
        removed[v] = 1;
        queue[tail++] = v;
      }
    }
  }
  const inCore = new Uint8Array(n);
  for (let i = 0; i < n; i++) inCore[i] = removed[i] ? 0 : 1;
  return inCore;
}

/**
 * The k-core (Seidman 1983) of the undirected citation graph on `nodeIds`: the maximal
 * subgraph in which every node has at least k neighbours inside it. Duplicate node ids
 * count once. Throws if k is not an integer >= 1 (the 0-core is just the input).
 */
export function kCore(nodeIds: Iterable<string>, edges: readonly CitationRecord[], k: number): Set<string> {
  assertK(k);
  const graph = buildUndirectedGraph([...new Set(nodeIds)], edges);
  const inCore = kCoreMask(graph, k);
  const core = new Set<string>();
  graph.ids.forEach((id, i) => {
    if (inCore[i]) core.add(id);
  });
  return core;
}

/**
 * Hamilton (largest-remainder) apportionment of `total` seats over years in proportion to
 * `counts`. Every year gets floor(total * count / sum); the seats left over go one each to
 * the largest remainders, ties to the earlier year. Arithmetic is exact (BigInt), so the
 * tie-break is never decided by floating-point noise. Result keys are ascending years.
 *
 * Throws on a negative or non-integer total or count, and when total > 0 but every count
 * is 0 (nothing to be proportional to).
 */
export function largestRemainderQuotas(counts: ReadonlyMap<number, number>, total: number): Map<number, number> {
  if (!Number.isInteger(total) || total < 0) {
    throw new Error(`quota total must be a non-negative integer, got ${total}`);
  }
  const years = [...counts.keys()].sort(compareNumbers);
  let sum = 0n;
  for (const year of years) {
    const c = counts.get(year)!;
    if (!Number.isInteger(c) || c < 0) {
      throw new Error(`count for year ${year} must be a non-negative integer, got ${c}`);
    }
    sum += BigInt(c);
  }
  const quotas = new Map<number, number>();
  if (sum === 0n) {
    if (total > 0) throw new Error(`cannot apportion ${total} seats over counts that sum to 0`);
    for (const year of years) quotas.set(year, 0);
    return quotas;
  }
  const t = BigInt(total);
  const remainders: { year: number; remainder: bigint }[] = [];
  let assigned = 0;
  for (const year of years) {
    const product = t * BigInt(counts.get(year)!);
    const floor = Number(product / sum);
    quotas.set(year, floor);
    assigned += floor;
    remainders.push({ year, remainder: product % sum });
  }
  remainders.sort((a, b) => (a.remainder !== b.remainder ? (a.remainder > b.remainder ? -1 : 1) : compareNumbers(a.year, b.year)));
  // The leftover is < number of years, because each floor loses less than one seat.
  for (let i = 0; i < total - assigned; i++) {
    const { year } = remainders[i];
    quotas.set(year, quotas.get(year)! + 1);
  }
  return quotas;
}

export interface SampleOptions {
  /** Core order; default 3 as in the paper. Must be an integer >= 1. */
  k?: number;
  /** Inclusive year range of the pool. Giving either bound excludes papers with a null year. */
  yearFrom?: number;
  yearTo?: number;
  /** Sample size. Omitted, or >= the core size: keep the whole k-core. */
  target?: number;
  /**
   * "Extend to recent years" step: afterwards, every input paper with a year in
   * [recentFrom, recentTo] (recentTo omitted: no upper bound) is added, whatever its
   * connectivity. recentTo without recentFrom is an error.
   */
  recentFrom?: number;
  recentTo?: number;
}

export interface SampleResult {
  /** External ids, sorted (code-unit order). */
  selected: string[];
  /** Papers taken from the k-core. */
  fromCore: number;
  /** Papers taken from the one-hop fringe to complete short years (0 when the whole core is kept). */
  fromFringe: number;
  /** Papers added by the recent-years step that were not selected already. */
  recentAdded: number;
  /**
   * Year -> quota ("unknown" for null years). When the whole core is kept, these are the
   * core's per-year counts, so that per-year counts of the non-recent selection always
   * equal the quotas unless a year is reported in `unfilled`.
   */
  quotas: Record<string, number>;
  /** Year -> seats its quota could not fill (core and fringe both exhausted); only short years appear. */
  unfilled: Record<string, number>;
}

/** Heap entry for fringe completion. */
interface FringeCandidate {
  node: number;
  score: number;
}

function validateOptions(options: SampleOptions): void {
  const { target, yearFrom, yearTo, recentFrom, recentTo } = options;
  if (target !== undefined && (!Number.isInteger(target) || target < 0)) {
    throw new Error(`target must be a non-negative integer, got ${target}`);
  }
  if (yearFrom !== undefined && yearTo !== undefined && yearFrom > yearTo) {
    throw new Error(`yearFrom (${yearFrom}) is after yearTo (${yearTo})`);
  }
  if (recentTo !== undefined && recentFrom === undefined) {
    throw new Error("recentTo needs recentFrom: the recent-years step is enabled by recentFrom");
  }
  if (recentFrom !== undefined && recentTo !== undefined && recentFrom > recentTo) {
    throw new Error(`recentFrom (${recentFrom}) is after recentTo (${recentTo})`);
  }
}

/** The pool: papers within the year range (all of them without one), and each one's year stratum. */
function yearPool(papers: readonly PaperYear[], { yearFrom, yearTo }: SampleOptions): { poolIds: string[]; stratum: number[] } {
  const ranged = yearFrom !== undefined || yearTo !== undefined;
  const yearOf = new Map<string, number | null>();
  for (const p of papers) {
    if (yearOf.has(p.externalId)) throw new Error(`duplicate paper externalId ${p.externalId}`);
    yearOf.set(p.externalId, p.year);
  }

  const poolIds: string[] = [];
  for (const p of papers) {
    if (ranged) {
      if (p.year === null) continue;
      if (yearFrom !== undefined && p.year < yearFrom) continue;
      if (yearTo !== undefined && p.year > yearTo) continue;
    }
    poolIds.push(p.externalId);
  }
  return { poolIds, stratum: poolIds.map((id) => yearOf.get(id) ?? NULL_YEAR_KEY) };
}

/**
 * Completes each short year from the fringe (see citationPreservingSample), greedily by edges
 * into the selection; marks the picks in selectedMask, records what stays short in `unfilled`,
 * and returns how many it picked.
 */
function fillFromFringe(
  { offsets, targets }: UndirectedGraph,
  sel: {
    poolIds: string[];
    stratum: number[];
    selectedMask: Uint8Array;
    quotas: ReadonlyMap<number, number>;
    coreByYear: ReadonlyMap<number, number[]>;
    shortYears: number[];
    unfilled: Record<string, number>;
  },
): number {
  const { poolIds, stratum, selectedMask, quotas, coreByYear, shortYears, unfilled } = sel;
  const n = poolIds.length;
  let fromFringe = 0;
  // score[v] = edges from v into the current selection, kept up to date as it grows.
  const score = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (!selectedMask[i]) continue;
    for (let p = offsets[i]; p < offsets[i + 1]; p++) score[targets[p]]++;
  }
  for (const year of shortYears) {
    let need = quotas.get(year)! - (coreByYear.get(year)?.length ?? 0);
    // More edges into the selection first, then the smaller id.
    const heap = new Heap<FringeCandidate>((a, b) => (a.score !== b.score ? a.score > b.score : poolIds[a.node] < poolIds[b.node]));
    for (let i = 0; i < n; i++) {
      if (stratum[i] === year && !selectedMask[i] && score[i] > 0) heap.push({ node: i, score: score[i] });
    }
    while (need > 0 && heap.size > 0) {
      const { node, score: s } = heap.pop()!;
      // Lazy deletion: an entry is stale once the node is taken or its score has grown.
      if (selectedMask[node] || s !== score[node]) continue;
      selectedMask[node] = 1;
      fromFringe++;
      need--;
      for (let p = offsets[node]; p < offsets[node + 1]; p++) {
        const v = targets[p];
        score[v]++;
        if (stratum[v] === year && !selectedMask[v]) heap.push({ node: v, score: score[v] });
      }
    }
    if (need > 0) unfilled[yearLabel(year)] = need;
  }
  return fromFringe;
}

/**
 * The paper's citation-preserving sample.
 *
 * Decisions where the paper is silent:
 * - Fringe: a short year y is completed only with year-y papers of the pool (outside the
 *   core pick), adjacent in the full year-filtered graph to the current selection (of any
 *   year). Keeping the candidate in year y preserves the temporal balance the quotas exist
 *   for. The selection grows greedily: each pick adds its edges to the scores, so a paper
 *   two hops out can follow once its neighbour is in. Short years are completed in
 *   ascending order after every year's core pick is made.
 * - A candidate needs at least one edge into the selection; if a year runs out of such
 *   candidates it stays short (reported in `unfilled`) rather than pulling in isolated
 *   papers, which would defeat the point of the sampling.
 * - Whole core: target omitted or >= core size keeps the core unchanged (fromFringe 0),
 *   even when the core is smaller than the target; the fringe only completes quotas.
 * - target 0 selects nothing before the recent step. Empty input gives an empty result.
 * - No year range: papers with a null year stay in the graph and form an "unknown" stratum
 *   that sorts after every year in quota tie-breaks.
 * - Duplicate external ids are an error (their years could disagree).
 */
export function citationPreservingSample(papers: readonly PaperYear[], citations: readonly CitationRecord[], options: SampleOptions = {}): SampleResult {
  const k = options.k ?? 3;
  assertK(k);
  validateOptions(options);
  const { target, recentFrom, recentTo } = options;

  const { poolIds, stratum } = yearPool(papers, options);
  const graph = buildUndirectedGraph(poolIds, citations);
  const { offsets, targets } = graph;
  const n = poolIds.length;
  const inCore = kCoreMask(graph, k);

  let coreSize = 0;
  for (let i = 0; i < n; i++) coreSize += inCore[i];

  const selectedMask = new Uint8Array(n);
  let fromCore = 0;
  let fromFringe = 0;
  const quotas = new Map<number, number>();
  const unfilled: Record<string, number> = {};

  if (target === undefined || target >= coreSize) {
    for (let i = 0; i < n; i++) {
      if (!inCore[i]) continue;
      selectedMask[i] = 1;
      quotas.set(stratum[i], (quotas.get(stratum[i]) ?? 0) + 1);
    }
    fromCore = coreSize;
  } else {
    // Quotas follow the full year-filtered pool, not the core: the core over-represents
    // older years, which is exactly the bias the quotas are meant to remove.
    const poolCounts = new Map<number, number>();
    for (let i = 0; i < n; i++) poolCounts.set(stratum[i], (poolCounts.get(stratum[i]) ?? 0) + 1);
    for (const [year, q] of largestRemainderQuotas(poolCounts, target)) quotas.set(year, q);

    // Degree inside the core ranks papers within a year.
    const coreDegree = new Int32Array(n);
    const coreByYear = new Map<number, number[]>();
    for (let i = 0; i < n; i++) {
      if (!inCore[i]) continue;
      for (let p = offsets[i]; p < offsets[i + 1]; p++) if (inCore[targets[p]]) coreDegree[i]++;
      const list = coreByYear.get(stratum[i]);
      if (list) list.push(i);
      else coreByYear.set(stratum[i], [i]);
    }
    const shortYears: number[] = [];
    for (const [year, quota] of quotas) {
      const pool = (coreByYear.get(year) ?? []).sort((a, b) => coreDegree[b] - coreDegree[a] || compareIds(poolIds[a], poolIds[b]));
      const take = Math.min(quota, pool.length);
      for (let j = 0; j < take; j++) selectedMask[pool[j]] = 1;
      fromCore += take;
      if (take < quota) shortYears.push(year);
    }

    if (shortYears.length > 0) fromFringe = fillFromFringe(graph, { poolIds, stratum, selectedMask, quotas, coreByYear, shortYears, unfilled });
  }

  const selected = new Set<string>();
  for (let i = 0; i < n; i++) if (selectedMask[i]) selected.add(poolIds[i]);

  let recentAdded = 0;
  if (recentFrom !== undefined) {
    for (const p of papers) {
      if (p.year === null || p.year < recentFrom || (recentTo !== undefined && p.year > recentTo)) continue;
      if (selected.has(p.externalId)) continue;
      selected.add(p.externalId);
      recentAdded++;
    }
  }

  const quotaRecord: Record<string, number> = {};
  for (const year of [...quotas.keys()].sort(compareNumbers)) quotaRecord[yearLabel(year)] = quotas.get(year)!;

  return {
    selected: [...selected].sort(compareIds),
    fromCore,
    fromFringe,
    recentAdded,
    quotas: quotaRecord,
    unfilled,
  };
}

export interface CorpusStatistics {
  papers: number;
  /** Year -> papers ("unknown" for null years), ascending years. */
  perYear: Record<string, number>;
  /** Directed citation edges with both ends in the set, deduplicated, without self-loops. */
  citationEdges: number;
  /** Mean degree of the undirected simple graph induced on the set (2|E| / |V|; 0 when empty). */
  meanDegree: number;
}

/**
 * Size, year spread and citation density of a paper set, the figures the paper reports for
 * its corpus. Throws if an id is not among `papers`, since its year would be unknown.
 */
export function corpusStatistics(paperIds: Iterable<string>, papers: readonly PaperYear[], citations: readonly CitationRecord[]): CorpusStatistics {
  const yearOf = new Map<string, number | null>();
  for (const p of papers) if (!yearOf.has(p.externalId)) yearOf.set(p.externalId, p.year);
  const ids = new Set(paperIds);
  const counts = new Map<number, number>();
  for (const id of ids) {
    if (!yearOf.has(id)) throw new Error(`paper ${id} is not among the given papers`);
    const key = yearOf.get(id) ?? NULL_YEAR_KEY;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const perYear: Record<string, number> = {};
  for (const year of [...counts.keys()].sort(compareNumbers)) perYear[yearLabel(year)] = counts.get(year)!;

  // citing -> cited ids; nested sets rather than a joined string key, so no id can collide.
  const directed = new Map<string, Set<string>>();
  let citationEdges = 0;
  for (const { citing, cited } of citations) {
    if (citing === cited || !ids.has(citing) || !ids.has(cited)) continue;
    let out = directed.get(citing);
    if (!out) directed.set(citing, (out = new Set()));
    if (out.has(cited)) continue;
    out.add(cited);
    citationEdges++;
  }
  const graph = buildUndirectedGraph([...ids], citations);
  const undirectedEdges = graph.targets.length / 2;
  return {
    papers: ids.size,
    perYear,
    citationEdges,
    meanDegree: ids.size === 0 ? 0 : (2 * undirectedEdges) / ids.size,
  };
}
