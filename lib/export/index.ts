import { FACETS } from "@/lib/corpus/types";
import { toCsv as csvTable, type CsvValue } from "@/lib/csv";
import type { ExportFile, ExportFormat, ExportRecord, ExportSeedCredit } from "./types";

// Citation exporters: pure functions from records to file text, shared by the results page, the
// collection and the paper page. No I/O, no clock: the same records always give the same bytes.

export * from "./types";

/** A link for a paper id: ids that are URLs as they are, ACL Anthology ids on aclanthology.org. */
export function paperUrl(externalId: string): string | null {
  if (/^https?:\/\//i.test(externalId)) return externalId;
  // Old-style (P19-1542, W04-3250) and new-style (2020.acl-main.1, 2005.mtsummit-papers.11) ids.
  if (/^[A-Z]\d{2}-\d{4}$/.test(externalId) || /^\d{4}\.[a-z0-9]+-[a-z0-9-]+\.\d+$/i.test(externalId)) return `https://aclanthology.org/${externalId}`;
  return null;
}

// ── BibTeX ───────────────────────────────────────────────────────────────────────────────

const BIBTEX_SPECIALS: Record<string, string> = {
  "\\": "\\textbackslash{}",
  "{": "\\{",
  "}": "\\}",
  "&": "\\&",
  "%": "\\%",
  $: "\\$",
  "#": "\\#",
  _: "\\_",
  "~": "\\textasciitilde{}",
  "^": "\\textasciicircum{}",
};

/**
 * Escapes LaTeX's special characters so a field compiles as the text it holds. Non-ASCII
 * characters stay as they are: biber and BibTeX with inputenc/utf8 read them.
 */
export function escapeBibtex(s: string): string {
  return s
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\\{}&%$#_~^]/g, (c) => BIBTEX_SPECIALS[c]);
}

/**
 * A title with acronyms and internal capitals (BERT, MaltParser, CEval) braced, so bibliography
 * styles that lowercase titles keep them. Other words are left to the style.
 */
export function bibtexTitle(title: string): string {
  return escapeBibtex(title)
    .split(" ")
    .map((w) => {
      // A word's letters, ignoring punctuation and escapes around them.
      const letters = w.replace(/\\[a-z]+\{\}|\\./gi, "").replace(/[^\p{L}\p{N}]/gu, "");
      const protect = /\p{Lu}/u.test(letters.slice(1)) || (letters.length > 1 && /^\p{Lu}+\d*$/u.test(letters));
      return protect ? `{${w}}` : w;
    })
    .join(" ");
}

const STOPWORDS = new Set(["a", "an", "the", "on", "of", "for", "in", "and", "to", "with", "from", "by", "at", "is", "are", "towards", "toward", "via"]);

/** ASCII letters and digits only, lowercased: "Müller-Šimić" → "mullersimic". */
function asciiWord(s: string): string {
  return s
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
}

/** The family name of "First Last" or "Last, First". */
function familyName(author: string): string {
  const a = author.trim();
  if (a.includes(",")) return a.split(",")[0];
  const parts = a.split(/\s+/);
  return parts[parts.length - 1] ?? "";
}

/**
 * A citation key in the common `lastnameYEARword` form (koehn2005europarl): the first author's
 * family name, the year and the first significant title word, ASCII only.
 */
export function citationKey(r: Pick<ExportRecord, "authors" | "year" | "title">): string {
  const name = asciiWord(familyName(r.authors[0] ?? "")) || "anon";
  const word =
    r.title
      .split(/[\s:;,.!?()[\]{}"'–—-]+/)
      .map(asciiWord)
      .find((w) => /[a-z]/.test(w) && !STOPWORDS.has(w)) ?? "";
  return `${name}${r.year ?? "nd"}${word}`;
}

/** Keys for a list of records, made unique with a, b, c… suffixes in list order. */
export function citationKeys(records: ExportRecord[]): string[] {
  const base = records.map(citationKey);
  const total = new Map<string, number>();
  for (const k of base) total.set(k, (total.get(k) ?? 0) + 1);
  const seen = new Map<string, number>();
  return base.map((k) => {
    if (total.get(k) === 1) return k;
    const i = seen.get(k) ?? 0;
    seen.set(k, i + 1);
    return k + suffix(i);
  });
}

/** 0 → a, 25 → z, 26 → aa. */
function suffix(i: number): string {
  let s = "";
  let n = i;
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return s;
}

type EntryKind = "conference" | "journal" | "other";

/** Journals (TACL, Computational Linguistics, …) are "journal"; proceedings, workshops and conferences "conference". */
export function entryKind(venue: string | null): EntryKind {
  if (!venue) return "other";
  const journal =
    /\b(journal|transactions)\b/i.test(venue) ||
    /^computational linguistics\b/i.test(venue) ||
    (!/proceedings/i.test(venue) && /\bvolume \d+, (issue|\d{4})/i.test(venue));
  if (journal) return "journal";
  if (/\b(proceedings|conferences?|workshops?|symposium|meeting|congress|summit|lrec|coling)\b/i.test(venue)) return "conference";
  return "other";
}

/** "seed 2 (P19-1542, rank 7)": a seed's share as the notes write it. */
function seedCredit(s: ExportSeedCredit): string {
  return `seed ${s.seed} (${s.seedId ? `${s.seedId}, ` : ""}rank ${s.rank})`;
}

/** How a result sits in time against the query, as the notes say it ("neither" says nothing). */
const DIRECTION_NOTES = { earlier: "Earlier work (published before the query)", later: "Later work (published after the query)" } as const;

/**
 * Where a result came from, for BibTeX's note and RIS's N1: earlier or later work, its credited
 * facets, then the seeds that surfaced it.
 */
function provenanceNote(r: ExportRecord): string | null {
  const parts: string[] = [];
  if (r.direction === "earlier" || r.direction === "later") parts.push(DIRECTION_NOTES[r.direction]);
  if (r.facets?.length) {
    const ordered = [...r.facets].sort((a, b) => FACETS.indexOf(a.facet) - FACETS.indexOf(b.facet));
    parts.push(
      `${parts.length ? "related" : "Related"} via ${ordered.map((f) => (f.rank === undefined ? f.facet : `${f.facet} (rank ${f.rank})`)).join(", ")}`,
    );
  }
  if (r.seeds?.length) parts.push(`${parts.length ? "surfaced" : "Surfaced"} by ${r.seeds.map(seedCredit).join(", ")}`);
  return parts.length ? parts.join("; ") : null;
}

export function toBibtex(records: ExportRecord[]): string {
  const keys = citationKeys(records);
  return records
    .map((r, i) => {
      const kind = entryKind(r.venue);
      const type = kind === "conference" ? "inproceedings" : kind === "journal" ? "article" : "misc";
      const fields: [string, string][] = [["title", bibtexTitle(r.title)]];
      if (r.authors.length) fields.push(["author", r.authors.map(escapeBibtex).join(" and ")]);
      if (r.venue) fields.push([kind === "conference" ? "booktitle" : kind === "journal" ? "journal" : "howpublished", escapeBibtex(r.venue)]);
      if (r.year != null) fields.push(["year", String(r.year)]);
      const url = paperUrl(r.externalId);
      // biblatex reads url verbatim: only characters that would break the braces are encoded.
      if (url) fields.push(["url", url.replace(/[{}\\\s]/g, (c) => encodeURIComponent(c))]);
      if (r.abstract) fields.push(["abstract", escapeBibtex(r.abstract)]);
      const note = provenanceNote(r);
      if (note) fields.push(["note", escapeBibtex(note)]);
      const width = Math.max(...fields.map(([k]) => k.length));
      const body = fields.map(([k, v]) => `  ${k.padEnd(width)} = {${v}}`).join(",\n");
      return `@${type}{${keys[i]},\n${body}\n}\n`;
    })
    .join("\n");
}

// ── RIS ──────────────────────────────────────────────────────────────────────────────────

/** "Philipp Koehn" → "Koehn, Philipp": RIS's AU form. Names already in "Last, First" form stay. */
export function risName(author: string): string {
  const a = author.replace(/\s+/g, " ").trim();
  if (a.includes(",")) return a;
  const parts = a.split(" ");
  if (parts.length < 2) return a;
  // Particles (van, de, von…) belong to the family name.
  let i = parts.length - 1;
  while (i > 1 && /^(van|von|der|den|de|del|della|di|da|du|la|le|ter|ten|bin|al|el)$/i.test(parts[i - 1])) i--;
  return `${parts.slice(i).join(" ")}, ${parts.slice(0, i).join(" ")}`;
}

/** One RIS line; RIS values are single-line, so line breaks become spaces. */
function risLine(tag: string, value: string): string {
  return `${tag}  - ${value.replace(/\s+/g, " ").trim()}`;
}

export function toRis(records: ExportRecord[]): string {
  const keys = citationKeys(records);
  const out: string[] = [];
  records.forEach((r, i) => {
    const kind = entryKind(r.venue);
    out.push(risLine("TY", kind === "conference" ? "CPAPER" : kind === "journal" ? "JOUR" : "GEN"));
    out.push(risLine("ID", keys[i]));
    out.push(risLine("TI", r.title));
    for (const a of r.authors) out.push(risLine("AU", risName(a)));
    if (r.year != null) out.push(risLine("PY", String(r.year)));
    // T2 is the proceedings title for CPAPER; JO the journal name for JOUR.
    if (r.venue) out.push(risLine(kind === "journal" ? "JO" : "T2", r.venue));
    if (r.abstract) out.push(risLine("AB", r.abstract));
    const url = paperUrl(r.externalId);
    if (url) out.push(risLine("UR", url));
    const note = provenanceNote(r);
    if (note) out.push(risLine("N1", note));
    out.push("ER  - ");
    out.push("");
  });
  // The RIS specification uses CR LF line ends; reference managers accept both.
  return out.join("\r\n");
}

// ── CSV ──────────────────────────────────────────────────────────────────────────────────

export const CSV_COLUMNS = ["rank", "score", "corpus", "id", "title", "authors", "year", "venue", "url", "facets"] as const;

/**
 * The records as CSV (lib/csv.ts: RFC 4180, formulas defused), one row per paper. Results of one
 * query get a `direction` column (earlier / later / neither), results of several seeds a last
 * `seeds` column; other lists keep the columns spreadsheets already read.
 */
export function toCsv(records: ExportRecord[]): string {
  const directed = records.some((r) => r.direction !== undefined);
  const seeded = records.some((r) => r.seeds !== undefined);
  const rows = records.map((r) => {
    const row: CsvValue[] = [
      r.rank ?? "",
      r.score === undefined ? "" : Number(r.score.toPrecision(6)),
      r.corpus,
      r.externalId,
      r.title,
      r.authors.join("; "),
      r.year,
      r.venue,
      paperUrl(r.externalId),
      (r.facets ?? []).map((f) => (f.rank === undefined ? f.facet : `${f.facet}#${f.rank}`)).join(" "),
    ];
    if (directed) row.push(r.direction ?? "");
    // Like facets: the seed (its corpus id, else "seed N") and the paper's rank in its list.
    if (seeded) row.push((r.seeds ?? []).map((s) => `${s.seedId ?? `seed${s.seed}`}#${s.rank}`).join(" "));
    return row;
  });
  return csvTable([...CSV_COLUMNS, ...(directed ? ["direction"] : []), ...(seeded ? ["seeds"] : [])], rows);
}

// ── JSON ─────────────────────────────────────────────────────────────────────────────────

export function toJson(records: ExportRecord[], context?: Record<string, unknown>): string {
  const papers = records.map((r) => ({ ...r, url: paperUrl(r.externalId) }));
  return `${JSON.stringify(context ? { ...context, papers } : { papers }, null, 2)}\n`;
}

// ── files ────────────────────────────────────────────────────────────────────────────────

const EXTENSIONS: Record<ExportFormat, { ext: string; mime: string }> = {
  bibtex: { ext: "bib", mime: "application/x-bibtex" },
  ris: { ext: "ris", mime: "application/x-research-info-systems" },
  csv: { ext: "csv", mime: "text/csv" },
  json: { ext: "json", mime: "application/json" },
};

export const FORMAT_LABELS: Record<ExportFormat, string> = { bibtex: "BibTeX", ris: "RIS", csv: "CSV", json: "JSON" };

/** A file name from free text: "Europarl: A Parallel…" → "europarl-a-parallel". */
export function fileSlug(s: string, max = 48): string {
  const slug = s
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug.slice(0, max).replace(/-+$/, "") || "papers";
}

export function exportFile(format: ExportFormat, records: ExportRecord[], name: string, context?: Record<string, unknown>): ExportFile {
  const { ext, mime } = EXTENSIONS[format];
  const content = format === "bibtex" ? toBibtex(records) : format === "ris" ? toRis(records) : format === "csv" ? toCsv(records) : toJson(records, context);
  return { filename: `graft-${fileSlug(name)}.${ext}`, mime: `${mime};charset=utf-8`, content };
}
