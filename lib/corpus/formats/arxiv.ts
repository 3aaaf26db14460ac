/**
 * The arXiv metadata snapshot (arxiv-metadata-oai-snapshot.json: JSON Lines despite its name):
 * ids kept as arXiv ids (2101.00001, hep-th/9901001), LaTeX in titles, abstracts and names
 * decoded to Unicode, the year of the first version (update_date, then the id, as fallbacks),
 * and the primary category as the venue ("arXiv cs.CL"). The snapshot has no references.
 */
import type { CorpusFiles } from "../read";
import type { CorpusCollector, Location } from "./collect";
import { fileLabel, forEachJsonLine, partFiles, text } from "./jsonl";
import { latexToUnicodeMany, yearOf } from "./text";

/** The year an arXiv id encodes: YYMM.NNNNN (2007 on) or archive/YYMMNNN (before). */
export function yearOfArxivId(id: string): number | null {
  const m = /^(\d{2})(\d{2})\.\d{4,5}(v\d+)?$/.exec(id) ?? /^[a-z-]+(?:\.[A-Z]{2})?\/(\d{2})(\d{2})\d{3}(v\d+)?$/.exec(id);
  if (!m) return null;
  const yy = Number(m[1]);
  return yy >= 91 ? 1900 + yy : 2000 + yy;
}

/** Author names as written (LaTeX not yet decoded): from authors_parsed ([last, first, suffix]) when present, else the "authors" string. */
export function arxivAuthorNames(r: Record<string, unknown>): string[] {
  if (Array.isArray(r.authors_parsed)) {
    return r.authors_parsed
      .filter((a): a is unknown[] => Array.isArray(a))
      .map((a) => {
        const [last, first, suffix] = a.map((x) => (typeof x === "string" ? x.trim() : ""));
        return [first, last, suffix].filter(Boolean).join(" ");
      })
      .filter((n) => n.trim().length > 0);
  }
  const s = text(r.authors);
  if (!s) return [];
  return s
    .replace(/\([^()]*\)/g, " ") // affiliations in parentheses
    .split(/,|\band\b/)
    .map((n) => n.trim())
    .filter((n) => n.length > 0);
}

/** Records decoded together (about 100 texts): one LaTeX parse of many is cheaper than one each, up to a point. */
const BATCH = 25;

export async function readArxiv(path: string, c: CorpusCollector): Promise<CorpusFiles> {
  const { root, files } = partFiles(path, "arXiv metadata");
  let batch: { loc: Location; r: Record<string, unknown> }[] = [];
  const flush = () => {
    const texts: string[] = [];
    const spans = batch.map(({ r }) => {
      const title = text(r.title);
      const abstract = text(r.abstract);
      const names = arxivAuthorNames(r);
      const at = texts.length;
      texts.push(title ?? "", abstract ?? "", ...names);
      return { at, title: title !== null, abstract: abstract !== null, names: names.length };
    });
    const decoded = latexToUnicodeMany(texts);
    batch.forEach(({ loc, r }, i) => {
      const span = spans[i];
      const id = typeof r.id === "string" ? r.id.trim() : r.id;
      const versions = Array.isArray(r.versions) ? r.versions : [];
      const firstVersion =
        versions.length > 0 && typeof versions[0] === "object" && versions[0] !== null ? (versions[0] as Record<string, unknown>).created : null;
      // The first of these that states a year; an unreadable one is reported only when none does.
      const years = [yearOf(text(firstVersion)), yearOf(text(r.update_date)), typeof id === "string" ? yearOfArxivId(id) : null];
      const year = years.find((y) => typeof y === "number") ?? years.find((y) => y !== null) ?? null;
      const category = text(r.categories)?.split(/\s+/)[0];
      c.paper(loc, {
        id,
        title: span.title ? decoded[span.at] : null,
        abstract: span.abstract ? decoded[span.at + 1] : null,
        year,
        venue: category ? `arXiv ${category}` : "arXiv",
        authors: decoded.slice(span.at + 2, span.at + 2 + span.names).filter((n) => n.length > 0),
      });
    });
    batch = [];
  };
  for (const file of files) {
    await forEachJsonLine(file, fileLabel(root, file), c, (r, loc: Location) => {
      batch.push({ loc, r });
      if (batch.length >= BATCH) flush();
    });
    flush();
  }
  return { papers: files.length === 1 ? files[0] : root, citations: null, queries: null, queryGold: null };
}
