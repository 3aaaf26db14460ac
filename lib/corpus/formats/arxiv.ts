/**
 * The arXiv metadata snapshot (arxiv-metadata-oai-snapshot.json: JSON Lines despite its name):
 * ids kept as arXiv ids (2101.00001, hep-th/9901001), LaTeX in titles, abstracts and names
 * decoded to Unicode, the year of the first version (update_date, then the id, as fallbacks),
 * and the primary category as the venue ("arXiv cs.CL"). The snapshot has no references.
 */
import type { CorpusFiles } from "../read";
import type { CorpusCollector, Location } from "./collect";
import { fileLabel, forEachJsonLine, partFiles, text } from "./jsonl";
import { latexToUnicode, yearOf } from "./text";

/** The year an arXiv id encodes: YYMM.NNNNN (2007 on) or archive/YYMMNNN (before). */
export function yearOfArxivId(id: string): number | null {
  const m = /^(\d{2})(\d{2})\.\d{4,5}(v\d+)?$/.exec(id) ?? /^[a-z-]+(?:\.[A-Z]{2})?\/(\d{2})(\d{2})\d{3}(v\d+)?$/.exec(id);
  if (!m) return null;
  const yy = Number(m[1]);
  return yy >= 91 ? 1900 + yy : 2000 + yy;
}

/** Authors from authors_parsed ([last, first, suffix]) when present, else from the "authors" string. */
export function arxivAuthors(r: Record<string, unknown>): string[] {
  if (Array.isArray(r.authors_parsed)) {
    return r.authors_parsed
      .filter((a): a is unknown[] => Array.isArray(a))
      .map((a) => {
        const [last, first, suffix] = a.map((x) => (typeof x === "string" ? x.trim() : ""));
        return latexToUnicode([first, last, suffix].filter(Boolean).join(" "));
      })
      .filter((n) => n.length > 0);
  }
  const s = text(r.authors);
  if (!s) return [];
  return s
    .replace(/\([^()]*\)/g, " ") // affiliations in parentheses
    .split(/,|\band\b/)
    .map((n) => latexToUnicode(n))
    .filter((n) => n.length > 0);
}

export async function readArxiv(path: string, c: CorpusCollector): Promise<CorpusFiles> {
  const { root, files } = partFiles(path, "arXiv metadata");
  for (const file of files) {
    await forEachJsonLine(file, fileLabel(root, file), c, (r, loc: Location) => {
      const id = typeof r.id === "string" ? r.id.trim() : r.id;
      const versions = Array.isArray(r.versions) ? r.versions : [];
      const firstVersion = versions.length > 0 && typeof versions[0] === "object" && versions[0] !== null ? (versions[0] as Record<string, unknown>).created : null;
      // The first of these that states a year; an unreadable one is reported only when none does.
      const years = [yearOf(text(firstVersion)), yearOf(text(r.update_date)), typeof id === "string" ? yearOfArxivId(id) : null];
      const year = years.find((y) => typeof y === "number") ?? years.find((y) => y !== null) ?? null;
      const category = text(r.categories)?.split(/\s+/)[0];
      const title = text(r.title);
      const abstract = text(r.abstract);
      c.paper(loc, {
        id,
        title: title === null ? null : latexToUnicode(title),
        abstract: abstract === null ? null : latexToUnicode(abstract),
        year,
        venue: category ? `arXiv ${category}` : "arXiv",
        authors: arxivAuthors(r),
      });
    });
  }
  return { papers: files.length === 1 ? files[0] : root, citations: null, queries: null, queryGold: null };
}
