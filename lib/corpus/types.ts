/** The four facets of a paper, in the paper's order (also the display order everywhere). */
export const FACETS = ["problems", "methods", "results", "contributions"] as const;
export type Facet = (typeof FACETS)[number];

export const SPLITS = ["train", "dev", "test"] as const;
export type Split = (typeof SPLITS)[number];

export type FacetLists = Partial<Record<Facet, string[]>>;

/** A paper as read from a corpus file, before it reaches the store. */
export interface PaperRecord {
  externalId: string;
  title: string;
  abstract: string;
  fullText: string | null;
  year: number | null;
  venue: string | null;
  authors: string[];
  split: Split | null;
  /** null when the source line had no `facets` field (facets not extracted yet). */
  facets: FacetLists | null;
}

/** A directed citation: `citing` cites `cited` (external ids). */
export interface CitationRecord {
  citing: string;
  cited: string;
}

/** One problem found in an input file, located so a user can fix it. */
export interface InputIssue {
  file: string;
  line: number;
  message: string;
}
