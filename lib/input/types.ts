import type { FacetLists } from "@/lib/corpus";

export interface PaperSection {
  /** The heading as printed, numbering included ("2.1 Data"); "" for text before any heading. */
  heading: string;
  /** Paragraphs separated by blank lines. */
  text: string;
}

/** Record fields that only a JSON paper record can carry. */
export interface PaperMetadata {
  /** The record's id, or null when it had none (ids are optional for a pasted record). */
  externalId: string | null;
  authors: string[];
  year: number | null;
  venue: string | null;
}

/** A paper as a user brought it, validated and split into the parts Graft analyses. */
export interface InputPaper {
  /** "" when no title could be recognised. */
  title: string;
  abstract: string;
  /**
   * The main text after the abstract, section headings included, without running headers,
   * footers, page numbers and the reference list. Does not repeat the abstract.
   */
  body: string;
  sections: PaperSection[];
  /** Titles of the cited works (best effort; an entry whose title cannot be found is given whole). */
  references: string[];
  /** Only a JSON record can carry facets; text and PDFs get theirs from extraction later. */
  facets: FacetLists | null;
  source: "text" | "pdf" | "json";
  /** Page count, for PDFs. */
  pages?: number;
  /** For JSON records. */
  metadata?: PaperMetadata;
}
