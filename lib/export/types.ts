import type { Facet } from "@/lib/corpus/types";

// What an exported paper carries: its bibliographic fields and, for retrieval results, where and
// why it was retrieved. Client-safe (the web app builds export files in the browser).

export interface ExportFacetCredit {
  facet: Facet;
  rank: number;
  weight: number;
}

export interface ExportRecord {
  corpus: string;
  externalId: string;
  title: string;
  authors: string[];
  year: number | null;
  venue: string | null;
  abstract?: string | null;
  /** Rank in the exported result list (1-based), for results. */
  rank?: number;
  score?: number;
  /** The facets fusion credited, for results. */
  facets?: ExportFacetCredit[];
}

export const EXPORT_FORMATS = ["bibtex", "ris", "csv", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportFile {
  filename: string;
  mime: string;
  content: string;
}
