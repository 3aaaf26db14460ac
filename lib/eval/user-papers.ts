/**
 * Papers users bring (issue 17): two development query sets with citation gold, each paper
 * queried through the served pipeline (relatedPapers) as a paper that is not in the graph.
 *
 *   set 1  "ooc"     the 212 out-of-corpus papers (ooc-queries.jsonl); gold: ooc-gold.tsv
 *   set 2  "unseen"  the test-split papers that cite corpus papers, each sent as a paper record
 *                    with its corpus id, so relatedPapers never returns it and no retriever
 *                    uses its node (its own references, its edges) as a seed; gold: the corpus
 *                    papers it cites. Halves by a hash of the id: "tune" chooses settings,
 *                    "report" and set 1 report them.
 *   set 3  "later"   train-split papers cited by at least 2 test-split papers (later work), each sent
 *                    as a record with its corpus id, so its node never seeds, votes or is returned;
 *                    gold: the test-split papers citing it. Halves by the same hash as set 2.
 *
 * Facet sources: "llm" sends the corpus's LLM facets with the record; "offline" sends title +
 * abstract only, so the configured offline extractor runs, as for every pasted paper.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Facet } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import type { FacetExtractor } from "@/lib/facets";
import { relatedPapers, relatedOptions, type RelatedOptions } from "@/lib/query";
import { bootstrapCi, RECALL_KS, recallCounts, aggregateRecall, type BootstrapOptions, type QueryRun } from "./metrics";

export type UserPaperSet = "ooc" | "unseen-tune" | "unseen-report" | "later-tune" | "later-report";
export type FacetSource = "llm" | "offline";

export interface UserPaperQuery {
  id: string;
  title: string;
  abstract: string;
  facets: Partial<Record<Facet, string[]>>;
  /** The record's year and authors (the data sets give both; a pasted abstract has neither). */
  year?: number | null;
  authors?: string[];
  /** External ids of the corpus papers it cites. */
  gold: string[];
}

/** One line of papers.jsonl / ooc-queries.jsonl, as far as a query reads it. */
export interface PaperLine {
  id: string;
  title: string;
  abstract?: string;
  split?: string;
  year?: number | null;
  authors?: string[];
  facets?: Partial<Record<Facet, string[]>>;
}

const jsonl = (file: string): PaperLine[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as PaperLine);

function tsvPairs(file: string): [string, string][] {
  return readFileSync(file, "utf8")
    .split("\n")
    .slice(1)
    .filter((l) => l.trim())
    .map((l) => l.split("\t") as [string, string]);
}

/** The tuning half of set 2: an md5 of the id, even first byte (fixed, independent of the runs). */
export function isTuningPaper(id: string): boolean {
  return createHash("md5").update(id).digest()[15] % 2 === 0;
}

function grouped(pairs: [string, string][]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [a, b] of pairs) {
    if (a === b) continue;
    const l = out.get(a) ?? [];
    if (!l.includes(b)) l.push(b);
    out.set(a, l);
  }
  return out;
}

/** A data set's paper as a query paper with its gold (a record: title, abstract, facets, year, authors). */
export const userPaperQuery = (p: PaperLine, gold: string[]): UserPaperQuery => ({
  id: p.id,
  title: p.title,
  abstract: p.abstract ?? "",
  facets: p.facets ?? {},
  year: p.year ?? null,
  authors: p.authors ?? [],
  gold,
});

/** Set 3's queries: train-split papers that at least this many test-split papers cite. */
export const LATER_MIN_CITERS = 2;

/** Set 1 or a half of set 2 or 3, read from a corpus directory (papers.jsonl, citations.tsv, ooc-*). */
export function userPaperQueries(corpusDir: string, set: UserPaperSet): UserPaperQuery[] {
  if (set === "ooc") {
    const gold = grouped(tsvPairs(path.join(corpusDir, "ooc-gold.tsv")));
    return jsonl(path.join(corpusDir, "ooc-queries.jsonl"))
      .filter((q) => gold.has(q.id))
      .map((q) => userPaperQuery(q, gold.get(q.id) as string[]));
  }
  const papers = jsonl(path.join(corpusDir, "papers.jsonl"));
  const pairs = tsvPairs(path.join(corpusDir, "citations.tsv"));
  const tuning = set.endsWith("-tune");
  if (set === "later-tune" || set === "later-report") {
    const split = new Map(papers.map((p) => [p.id, p.split]));
    const citedBy = grouped(pairs.filter(([a, b]) => split.get(a) === "test" && split.get(b) === "train").map(([a, b]) => [b, a]));
    return papers
      .filter((p) => (citedBy.get(p.id)?.length ?? 0) >= LATER_MIN_CITERS && isTuningPaper(p.id) === tuning)
      .map((p) => userPaperQuery(p, citedBy.get(p.id) as string[]));
  }
  const cites = grouped(pairs);
  return papers
    .filter((p) => p.split === "test" && cites.has(p.id) && isTuningPaper(p.id) === tuning)
    .map((p) => userPaperQuery(p, cites.get(p.id) as string[]));
}

export interface UserPaperRun {
  id: string;
  retrieved: string[];
  gold: string[];
  ms: number;
  /** The fusion relatedPapers applied ("auto" resolved). */
  fusion?: string;
  /** The pipeline answered this paper with an error a user would see (no facets, extraction failed): nothing retrieved. */
  error?: string;
}

export interface RunHooks {
  /** Answer the first query once, untimed, before timing any (loads the build, indexes, model). */
  warmUp?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** Send title and abstract only, without the record's year and authors (what a pasted abstract gives). */
  textOnly?: boolean;
  /** Corpus papers to treat as absent (relatedPapers' `hidden`): a training run hides the test splits. */
  hidden?: readonly string[];
}

/**
 * Answers the pipeline gives a user instead of results (too little text, no facets, extraction
 * failed): counted as nothing retrieved, not as a failed run.
 */
const USER_FACING = new Set(["no_facets", "extraction_failed", "too_short", "empty"]);

/** Runs each query through relatedPapers (k = 50) with the given options and facet source. */
export async function runUserPapers(
  db: Db,
  corpus: string,
  queries: readonly UserPaperQuery[],
  options: Partial<Omit<RelatedOptions, "retriever">> & { retriever?: string },
  source: FacetSource,
  extractor?: FacetExtractor,
  hooks: RunHooks = {},
): Promise<UserPaperRun[]> {
  // Any registered retriever may run (evaluation variants too), so its name is set after parsing.
  const opts = {
    ...relatedOptions.parse({ ...options, retriever: undefined, k: 50 }),
    ...(options.retriever ? { retriever: options.retriever } : {}),
  } as RelatedOptions;
  const ask = (q: UserPaperQuery) => {
    const meta = hooks.textOnly ? {} : { ...(q.year ? { year: q.year } : {}), ...(q.authors?.length ? { authors: q.authors } : {}) };
    const paper = { id: q.id, title: q.title, abstract: q.abstract, ...meta, ...(source === "llm" ? { facets: q.facets } : {}) };
    return relatedPapers(db, { corpus, paper }, opts, { ...(extractor ? { extractor } : {}), ...(hooks.hidden ? { hidden: hooks.hidden } : {}) });
  };
  if (hooks.warmUp && queries.length > 0) await ask(queries[0]).catch(() => undefined);
  const out: UserPaperRun[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    try {
      const r = await ask(q);
      out.push({ id: q.id, retrieved: r.results.map((x) => x.externalId), gold: q.gold, ms: performance.now() - t0, fusion: r.fusion });
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      if (typeof code !== "string" || !USER_FACING.has(code)) throw err;
      out.push({ id: q.id, retrieved: [], gold: q.gold, ms: performance.now() - t0, error: `${code}: ${(err as Error).message}` });
    }
    hooks.onProgress?.(out.length, queries.length);
  }
  return out;
}

export interface UserPaperRecall {
  queries: number;
  goldPairs: number;
  /** Micro recall at 5/10/20/50 and the 95% bootstrap interval of R@20 (over queries). */
  recall: Record<(typeof RECALL_KS)[number], number>;
  ci20: { low: number; high: number };
}

function asQueryRuns(runs: readonly UserPaperRun[]): QueryRun[] {
  const ids = new Map<string, number>();
  const num = (id: string) => ids.get(id) ?? (ids.set(id, ids.size), ids.size - 1);
  return runs.map((r) => ({ retrieved: r.retrieved.map(num), gold: r.gold.map(num) }));
}

const DEFAULT_BOOT: BootstrapOptions = { seed: 7 };

export function userPaperRecall(runs: readonly UserPaperRun[], boot: BootstrapOptions = DEFAULT_BOOT): UserPaperRecall {
  const q = asQueryRuns(runs);
  const recall = Object.fromEntries(RECALL_KS.map((k) => [k, aggregateRecall(q.map((r) => recallCounts(r, k)))])) as UserPaperRecall["recall"];
  const ci = bootstrapCi(q, (s) => aggregateRecall(s.map((r) => recallCounts(r, 20))), boot);
  return { queries: runs.length, goldPairs: runs.reduce((n, r) => n + r.gold.length, 0), recall, ci20: { low: ci.lower, high: ci.upper } };
}

/**
 * R@20 of `runs` over R@20 of `baseline` (the same queries), with a paired percentile bootstrap
 * over queries: both recalls are recomputed on each resample. NaN where the baseline finds
 * nothing (on the full set, or on a resample: then the interval is NaN too).
 */
export function recallRatio(
  runs: readonly UserPaperRun[],
  baseline: readonly UserPaperRun[],
  k = 20,
  boot: BootstrapOptions = DEFAULT_BOOT,
): { ratio: number; low: number; high: number } {
  const base = new Map(baseline.map((r) => [r.id, r]));
  const pairs = runs.filter((r) => base.has(r.id)).map((r) => [r, base.get(r.id) as UserPaperRun] as const);
  const at = (rs: readonly UserPaperRun[]) => aggregateRecall(asQueryRuns(rs).map((q) => recallCounts(q, k)));
  const ratioOf = (s: readonly (readonly [UserPaperRun, UserPaperRun])[]) => {
    const d = at(s.map((p) => p[1]));
    return d > 0 ? at(s.map((p) => p[0])) / d : NaN;
  };
  let nan = false;
  const ci = bootstrapCi(
    pairs,
    (s) => {
      const r = ratioOf(s);
      if (Number.isNaN(r)) nan = true;
      return r;
    },
    boot,
  );
  return nan ? { ratio: ci.estimate, low: NaN, high: NaN } : { ratio: ci.estimate, low: ci.lower, high: ci.upper };
}

export const FACET_SOURCES: readonly FacetSource[] = ["llm", "offline"];
