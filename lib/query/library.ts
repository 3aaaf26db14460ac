/**
 * "Your library" (issue 19): the papers a reader already has (an uploaded BibTeX or RIS file),
 * and which corpus papers they are. Client-safe: plain data and pure functions only, so the
 * explorer marks results in the browser with the same function the tests check. The file itself
 * is read on the server by the corpus importers' own parsers (library-file.ts).
 */

/** One paper of a library, as the upload operation returns it. */
export interface LibraryEntry {
  /** The citation key (BibTeX) or record id (RIS). */
  key: string;
  /** Bare, lower-case DOI, or null. */
  doi: string | null;
  title: string;
  year: number | null;
  /** Where the entry starts in its file (1-based). */
  line: number;
}

/** A parsed library as the browser keeps it. */
export interface Library {
  /** The uploaded file's name. */
  name: string;
  format: "bibtex" | "ris";
  entries: LibraryEntry[];
}

/** Why a paper counts as in the library: its DOI, or its normalised title and year. */
export type LibraryMatch = "doi" | "title-year";

/** A DOI in its bare, lower-case form, from a DOI, a doi.org URL or an id that is a DOI; else null. */
export function bareDoi(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const m = /10\.\d{4,9}\/\S+/.exec(raw.trim());
  // DOIs are case-insensitive; trailing punctuation is the sentence's, not the DOI's.
  return m ? m[0].replace(/[.,;]+$/, "").toLowerCase() : null;
}

/**
 * A title as a comparison key: accents, case, punctuation, LaTeX braces and spacing dropped, so
 * "{BERT}: Pre-training of Deep…" and "Bert - pre-training of deep…" compare equal.
 */
export function normalisedTitle(title: string): string {
  return title
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

const titleYearKey = (title: string, year: number) => `${normalisedTitle(title)}\u0000${year}`;

/** A library as lookup sets: built once per library, asked once per paper on screen. */
export interface LibraryIndex {
  size: number;
  dois: ReadonlySet<string>;
  titleYears: ReadonlySet<string>;
}

export function libraryIndex(entries: readonly LibraryEntry[]): LibraryIndex {
  const dois = new Set<string>();
  const titleYears = new Set<string>();
  for (const e of entries) {
    const doi = bareDoi(e.doi);
    if (doi) dois.add(doi);
    // Title alone is too weak a key ("Introduction", "Discussion"): a year is needed too.
    if (e.year !== null && normalisedTitle(e.title) !== "") titleYears.add(titleYearKey(e.title, e.year));
  }
  return { size: entries.length, dois, titleYears };
}

/** What the matcher needs of a corpus paper; corpus records hold no DOI field, so an id that is a DOI is its DOI. */
export interface PaperIdentity {
  externalId: string;
  title: string;
  year: number | null;
  doi?: string | null;
}

/** Whether `paper` is in the library: by DOI first, then by normalised title and year; null when not. */
export function libraryMatch(index: LibraryIndex, paper: PaperIdentity): LibraryMatch | null {
  const doi = bareDoi(paper.doi) ?? bareDoi(paper.externalId);
  if (doi && index.dois.has(doi)) return "doi";
  if (paper.year !== null && index.titleYears.has(titleYearKey(paper.title, paper.year))) return "title-year";
  return null;
}

/** The papers of `papers` in the library, by external id. */
export function inLibrary(index: LibraryIndex, papers: readonly PaperIdentity[]): Map<string, LibraryMatch> {
  const out = new Map<string, LibraryMatch>();
  for (const p of papers) {
    const m = libraryMatch(index, p);
    if (m) out.set(p.externalId, m);
  }
  return out;
}
