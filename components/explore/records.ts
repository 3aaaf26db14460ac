import type { ExportRecord } from "@/lib/export";
import type { RelatedPaper, RelatedResult } from "@/lib/query/types";

/** A result as an export record, with its rank, score and credited facets. */
export function toRecord(corpus: string, r: RelatedPaper, rank?: number): ExportRecord {
  return {
    corpus,
    externalId: r.externalId,
    title: r.title,
    authors: r.authors,
    year: r.year,
    venue: r.venue,
    rank,
    score: r.score,
    facets: r.facets.map((f) => ({ facet: f.facet, rank: f.rank, weight: f.weight })),
  };
}

/** What a JSON export says about the query that produced the list. */
export function exportContext(result: RelatedResult): Record<string, unknown> {
  return {
    corpus: result.corpus,
    build: result.build,
    retriever: result.retriever,
    fusion: result.fusion,
    query: { source: result.query.source, externalId: result.query.externalId, title: result.query.title, facets: result.query.facets },
  };
}
