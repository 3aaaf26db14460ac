import { DEFAULT_CORPUS } from "@/lib/corpus/browse";
import { FACETS, type Facet } from "@/lib/corpus/types";
import {
  DEFAULT_FUSION,
  DEFAULT_K,
  DEFAULT_RETRIEVER,
  DIRECTION_FILTERS,
  FUSION_NAMES,
  MAX_K,
  RETRIEVER_NAMES,
  type DirectionFilter,
  type FusionName,
  type RetrieverName,
} from "@/lib/query/types";

// The explorer's options live in the URL so a result view can be shared and survives a reload.
// The query itself does too when it is a corpus paper (?paper=…); pasted text and files stay in
// the page (they can be long or private).

export const SORTS = ["score", "year"] as const;
export type Sort = (typeof SORTS)[number];
export const VIEWS = ["list", "facets", "graph", "lineage"] as const;
export type View = (typeof VIEWS)[number];
export const K_CHOICES = [10, 20, 50, 100] as const;

/** The explorer asks for the same default as the API and the CLI (lib/query/types.ts). */
export const PREFERRED_RETRIEVER: RetrieverName = DEFAULT_RETRIEVER;

export interface ExploreParams {
  corpus: string;
  paper: string | null;
  /** Corpus papers gathered as seeds (?seeds=A,B,C); with no `paper`, the query is all of them at once. */
  seeds: string[];
  retriever: RetrieverName;
  fusion: FusionName;
  k: number;
  facets: Facet[];
  yearFrom?: number;
  yearTo?: number;
  venue?: string;
  /** Earlier work, later work or both (the default), measured from the query's year. */
  direction: DirectionFilter;
  sort: Sort;
  view: View;
}

const oneOf = <T extends string>(list: readonly T[], v: string | null, fallback: T): T => (v && (list as readonly string[]).includes(v) ? (v as T) : fallback);

function year(v: string | null): number | undefined {
  const n = Number(v);
  return v && Number.isInteger(n) && n >= 1900 && n <= 2100 ? n : undefined;
}

/** At most this many seeds (the API's MAX_SEEDS in lib/query/multi-seed.ts). */
export const MAX_EXPLORER_SEEDS = 20;

/** Seed ids from ?seeds=A,B,C: trimmed, deduplicated, at most MAX_EXPLORER_SEEDS. */
export function readSeeds(v: string | null): string[] {
  const ids = (v ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return [...new Set(ids)].slice(0, MAX_EXPLORER_SEEDS);
}

/** Lenient: a malformed value falls back to its default instead of breaking the page. */
export function readParams(sp: URLSearchParams): ExploreParams {
  const k = Number(sp.get("k"));
  const facets = (sp.get("facets") ?? "")
    .split(",")
    .map((f) => f.trim())
    .filter((f): f is Facet => (FACETS as readonly string[]).includes(f));
  let yearFrom = year(sp.get("yearFrom"));
  let yearTo = year(sp.get("yearTo"));
  if (yearFrom !== undefined && yearTo !== undefined && yearFrom > yearTo) [yearFrom, yearTo] = [yearTo, yearFrom];
  return {
    corpus: sp.get("corpus") || DEFAULT_CORPUS,
    paper: sp.get("paper") || null,
    seeds: readSeeds(sp.get("seeds")),
    retriever: oneOf(RETRIEVER_NAMES, sp.get("retriever"), PREFERRED_RETRIEVER),
    fusion: oneOf(FUSION_NAMES, sp.get("fusion"), DEFAULT_FUSION),
    k: Number.isInteger(k) && k >= 1 && k <= MAX_K ? k : DEFAULT_K,
    facets: facets.length ? FACETS.filter((f) => facets.includes(f)) : [...FACETS],
    yearFrom,
    yearTo,
    venue: sp.get("venue")?.trim() || undefined,
    direction: oneOf(DIRECTION_FILTERS, sp.get("direction"), "both"),
    sort: oneOf(SORTS, sp.get("sort"), "score"),
    view: oneOf(VIEWS, sp.get("view"), "list"),
  };
}

/** Only non-default values, so the bare start page is "/". */
export function writeParams(p: ExploreParams): URLSearchParams {
  const sp = new URLSearchParams();
  if (p.corpus !== DEFAULT_CORPUS) sp.set("corpus", p.corpus);
  if (p.paper) sp.set("paper", p.paper);
  if (p.seeds.length) sp.set("seeds", p.seeds.join(","));
  if (p.retriever !== PREFERRED_RETRIEVER) sp.set("retriever", p.retriever);
  if (p.fusion !== DEFAULT_FUSION) sp.set("fusion", p.fusion);
  if (p.k !== DEFAULT_K) sp.set("k", String(p.k));
  if (p.facets.length !== FACETS.length) sp.set("facets", p.facets.join(","));
  if (p.yearFrom !== undefined) sp.set("yearFrom", String(p.yearFrom));
  if (p.yearTo !== undefined) sp.set("yearTo", String(p.yearTo));
  if (p.venue) sp.set("venue", p.venue);
  if (p.direction !== "both") sp.set("direction", p.direction);
  if (p.sort !== "score") sp.set("sort", p.sort);
  if (p.view !== "list") sp.set("view", p.view);
  return sp;
}

/** The explorer URL for a corpus paper, e.g. from a paper page or the demo. */
export function exploreHref(corpus: string, paperId: string, extra: Partial<ExploreParams> = {}): string {
  const base = readParams(new URLSearchParams());
  const qs = writeParams({ ...base, corpus, paper: paperId, ...extra }).toString();
  return `/?${qs}`;
}
