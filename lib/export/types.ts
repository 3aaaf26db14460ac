import type { Facet } from "@/lib/corpus";
import type { Direction } from "@/lib/query";

// What an exported paper carries: its bibliographic fields and, for retrieval results, where and
// why it was retrieved. Client-safe (the web app builds export files in the browser).

export interface ExportFacetCredit {
  facet: Facet;
  /** Rank in the facet's list and fusion weight; absent where a result only says which facets found it (several seeds). */
  rank?: number;
  weight?: number;
}

/** One seed's share in a result of several seeds at once. */
export interface ExportSeedCredit {
  /** The seed's position in the query, from 1 ("seed 1" on screen). */
  seed: number;
  /** Its corpus id; null for a seed that is not a corpus paper. */
  seedId: string | null;
  /** The paper's rank in that seed's list. */
  rank: number;
  /** The facets that seed's list credited for it. */
  facets: Facet[];
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
  /** The seeds that surfaced it, for results of several seeds. */
  seeds?: ExportSeedCredit[];
  /** Earlier work, later work or neither, measured from the query's year, for results of one query. */
  direction?: Direction;
}

export const EXPORT_FORMATS = ["bibtex", "ris", "csv", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportFile {
  filename: string;
  mime: string;
  content: string;
}
