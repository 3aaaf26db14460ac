import { z } from "zod";
import type { Db } from "@/lib/db";
import { CodedError } from "@/lib/errors";
import { FACETS, type Facet } from "./types";

// Read-side queries for browsing a corpus (home page, paper page, HTTP API, CLI).

export const DEFAULT_CORPUS = "acl-citegraph";

export const corpusName = z
  .string()
  .trim()
  .min(1, "corpus name is empty")
  .max(64, "corpus name is longer than 64 characters")
  .regex(/^[a-z0-9][a-z0-9._-]*$/i, "corpus name may contain letters, digits, '.', '_' and '-' only");

const optionalYear = z.coerce.number().int("year must be an integer").min(1900).max(2100).optional();

export const paperListQuery = z
  .object({
    corpus: corpusName.default(DEFAULT_CORPUS),
    q: z.string().trim().max(200, "search text is longer than 200 characters").optional(),
    yearFrom: optionalYear,
    yearTo: optionalYear,
    venue: z.string().trim().max(300).optional(),
    page: z.coerce.number().int().min(1).max(100_000).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
  })
  .refine((v) => v.yearFrom === undefined || v.yearTo === undefined || v.yearFrom <= v.yearTo, {
    message: "yearFrom must not be after yearTo",
    path: ["yearFrom"],
  });
export type PaperListQuery = z.infer<typeof paperListQuery>;

export interface PaperSummary {
  id: number;
  externalId: string;
  title: string;
  year: number | null;
  venue: string | null;
  authors: string[];
  split: string | null;
  facetCounts: Record<Facet, number>;
}

export interface PaperList {
  corpus: string;
  total: number;
  page: number;
  pageSize: number;
  items: PaperSummary[];
}

export interface FacetItemView {
  id: number;
  position: number;
  text: string;
}

export interface PaperDetail extends PaperSummary {
  corpus: string;
  abstract: string;
  fullText: string | null;
  role: string;
  facets: Record<Facet, FacetItemView[]>;
  /** Papers this paper cites (in the corpus). */
  references: PaperSummary[];
  /** Papers of the corpus that cite this one. */
  citedBy: PaperSummary[];
}

export interface CorpusOverview {
  name: string;
  description: string;
  papers: number;
  queries: number;
  citations: number;
  years: { min: number | null; max: number | null };
  venues: { venue: string; papers: number }[];
}

/** A corpus or paper that does not exist (404 in the API, exit 2 in the CLI). */
export class NotFoundError extends CodedError {
  constructor(message: string) {
    super("not_found", message);
    this.name = "NotFoundError";
  }
}

const summarySelect = {
  id: true,
  externalId: true,
  title: true,
  year: true,
  venue: true,
  authors: true,
  split: true,
  facetItems: { select: { facet: true } },
} as const;

type SummaryRow = {
  id: number;
  externalId: string;
  title: string;
  year: number | null;
  venue: string | null;
  authors: string;
  split: string | null;
  facetItems: { facet: string }[];
};

function toSummary(row: SummaryRow): PaperSummary {
  const facetCounts = Object.fromEntries(FACETS.map((f) => [f, 0])) as Record<Facet, number>;
  for (const item of row.facetItems) if (item.facet in facetCounts) facetCounts[item.facet as Facet] += 1;
  return {
    id: row.id,
    externalId: row.externalId,
    title: row.title,
    year: row.year,
    venue: row.venue,
    authors: parseAuthors(row.authors),
    split: row.split,
    facetCounts,
  };
}

export function parseAuthors(json: string): string[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((a): a is string => typeof a === "string") : [];
  } catch {
    return [];
  }
}

/** The corpus named `name`; an unknown name is a NotFoundError (404 in the API, exit 2 in the CLI). */
export async function requireCorpus(db: Db, name: string) {
  const corpus = await db.corpus.findUnique({ where: { name } });
  if (!corpus) throw new NotFoundError(`no corpus named "${name}" (import one with: graft import <path> --corpus ${name})`);
  return corpus;
}

/** One page of a corpus's papers, newest first, filtered by title text, year range and venue. */
export async function listPapers(db: Db, query: PaperListQuery): Promise<PaperList> {
  const corpus = await requireCorpus(db, query.corpus);
  const where = {
    corpusId: corpus.id,
    role: "corpus",
    ...(query.q ? { titleSearch: { contains: query.q.toLowerCase() } } : {}),
    ...(query.venue ? { venue: query.venue } : {}),
    ...(query.yearFrom !== undefined || query.yearTo !== undefined
      ? { year: { ...(query.yearFrom !== undefined ? { gte: query.yearFrom } : {}), ...(query.yearTo !== undefined ? { lte: query.yearTo } : {}) } }
      : {}),
  };
  const orderBy = [{ year: "desc" as const }, { title: "asc" as const }];
  const skip = (query.page - 1) * query.pageSize;
  const page = { corpus: corpus.name, page: query.page, pageSize: query.pageSize };
  if (query.q && /[%_]/.test(query.q)) {
    // Prisma's `contains` is SQL LIKE, where % and _ are wildcards (not escaped): its matches are
    // a superset of the titles holding the text, so the literal ones are kept here.
    const text = query.q.toLowerCase();
    const like = await db.paper.findMany({ where, select: { id: true, titleSearch: true }, orderBy });
    const ids = like.filter((p) => p.titleSearch.includes(text)).map((p) => p.id);
    const rows = await db.paper.findMany({ where: { id: { in: ids.slice(skip, skip + query.pageSize) } }, select: summarySelect, orderBy });
    return { ...page, total: ids.length, items: rows.map(toSummary) };
  }
  const [total, rows] = await Promise.all([
    db.paper.count({ where }),
    db.paper.findMany({ where, select: summarySelect, orderBy, skip, take: query.pageSize }),
  ]);
  return { ...page, total, items: rows.map(toSummary) };
}

/** A paper with its facets, references and citers; null when the corpus has no such paper. */
export async function getPaperDetail(db: Db, corpus: string, externalId: string): Promise<PaperDetail | null> {
  const c = await requireCorpus(db, corpus);
  const row = await db.paper.findUnique({
    where: { corpusId_externalId: { corpusId: c.id, externalId } },
    select: {
      ...summarySelect,
      abstract: true,
      fullText: true,
      role: true,
      facetItems: { select: { id: true, facet: true, position: true, text: true }, orderBy: [{ facet: "asc" }, { position: "asc" }] },
      citing: { select: { cited: { select: summarySelect } } },
      // Out-of-corpus query papers also cite corpus papers (the evaluation gold); they are
      // not part of the corpus, so they are not listed as its citers.
      citedBy: { where: { citing: { role: "corpus" } }, select: { citing: { select: summarySelect } } },
    },
  });
  if (!row) return null;
  const facets = Object.fromEntries(FACETS.map((f) => [f, [] as FacetItemView[]])) as Record<Facet, FacetItemView[]>;
  for (const item of row.facetItems) if (item.facet in facets) facets[item.facet as Facet].push({ id: item.id, position: item.position, text: item.text });
  const byYear = (a: PaperSummary, b: PaperSummary) => (b.year ?? 0) - (a.year ?? 0) || a.title.localeCompare(b.title);
  return {
    ...toSummary(row),
    corpus: c.name,
    abstract: row.abstract,
    fullText: row.fullText,
    role: row.role,
    facets,
    references: row.citing.map((r) => toSummary(r.cited)).sort(byYear),
    citedBy: row.citedBy.map((r) => toSummary(r.citing)).sort(byYear),
  };
}

/** Every corpus with its size, year range and venues (for pickers and filters). */
export async function listCorpora(db: Db): Promise<CorpusOverview[]> {
  const corpora = await db.corpus.findMany({ orderBy: { name: "asc" } });
  return Promise.all(corpora.map((c) => corpusOverview(db, c.name)));
}

export async function corpusOverview(db: Db, name: string): Promise<CorpusOverview> {
  const c = await requireCorpus(db, name);
  const [papers, queries, citations, years, venues] = await Promise.all([
    db.paper.count({ where: { corpusId: c.id, role: "corpus" } }),
    db.paper.count({ where: { corpusId: c.id, role: "query" } }),
    db.citation.count({ where: { corpusId: c.id, citing: { role: "corpus" } } }),
    db.paper.aggregate({ where: { corpusId: c.id, role: "corpus" }, _min: { year: true }, _max: { year: true } }),
    db.paper.groupBy({ by: ["venue"], where: { corpusId: c.id, role: "corpus", venue: { not: null } }, _count: { _all: true } }),
  ]);
  return {
    name: c.name,
    description: c.description,
    papers,
    queries,
    citations,
    years: { min: years._min.year, max: years._max.year },
    venues: venues.map((v) => ({ venue: v.venue ?? "", papers: v._count._all })).sort((a, b) => b.papers - a.papers || a.venue.localeCompare(b.venue)),
  };
}
