import type { ExportRecord } from "@/lib/export";
import type { MultiSeedPaper, MultiSeedResult, RelatedPaper, RelatedResult } from "@/lib/query";

type ListedPaper = Pick<RelatedPaper, "externalId" | "title" | "authors" | "year" | "venue" | "score">;

/** What every export record says of a listed paper. */
function paperRecord(corpus: string, r: ListedPaper, rank: number | undefined) {
  return { corpus, externalId: r.externalId, title: r.title, authors: r.authors, year: r.year, venue: r.venue, rank, score: r.score };
}

/** A result as an export record, with its rank, score and credited facets. */
export function toRecord(corpus: string, r: RelatedPaper, rank?: number): ExportRecord {
  return {
    ...paperRecord(corpus, r, rank),
    facets: r.facets.map((f) => ({ facet: f.facet, rank: f.rank, weight: f.weight })),
  };
}

/**
 * A result in an export of its list: toRecord's fields and whether it is earlier or later work
 * than the query. (A saved paper leaves the query behind, so toRecord says nothing of it.)
 */
export function toResultRecord(corpus: string, r: RelatedPaper, rank: number): ExportRecord {
  return { ...toRecord(corpus, r, rank), ...(r.direction ? { direction: r.direction } : {}) };
}

/** What a JSON export says about the query that produced the list. */
export function exportContext(result: RelatedResult): Record<string, unknown> {
  return {
    corpus: result.corpus,
    build: result.build,
    retriever: result.retriever,
    fusion: result.fusion,
    query: {
      source: result.query.source,
      externalId: result.query.externalId,
      title: result.query.title,
      facets: result.query.facets,
      // What each paper's direction is measured from.
      year: result.query.year ?? null,
    },
  };
}

/** A result of several seeds as an export record: its facets and the seeds that surfaced it (seeds numbered from 1, as on screen). */
export function toSeedRecord(corpus: string, r: MultiSeedPaper, rank: number): ExportRecord {
  return {
    ...paperRecord(corpus, r, rank),
    facets: r.facets.map((facet) => ({ facet })),
    seeds: r.seeds.map((s) => ({ seed: s.seed + 1, seedId: s.seedId, rank: s.rank, facets: s.facets })),
  };
}

/** What a JSON export says about a query of several seeds: the seeds in order and how their lists were fused. */
export function seedExportContext(result: MultiSeedResult): Record<string, unknown> {
  return {
    corpus: result.corpus,
    build: result.build,
    retriever: result.retriever,
    fusion: result.fusion,
    rrfK: result.rrfK,
    seeds: result.seeds.map((s) => ({ seed: s.index + 1, externalId: s.externalId, title: s.title, source: s.source })),
  };
}
