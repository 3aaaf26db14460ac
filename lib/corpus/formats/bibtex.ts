/**
 * BibTeX / BibLaTeX (Zotero, Mendeley, JabRef exports) through @retorquere/bibtex-parser, the
 * parser of Better BibTeX for Zotero: LaTeX accents, escapes, braces and simple math decoded to
 * Unicode, @string macros resolved, parse errors recovered from and located. Ids are the
 * citation keys (the DOI for an entry without one).
 */
import type { Creator, Entry } from "@retorquere/bibtex-parser";
import type { CorpusFiles } from "../read";
import type { CorpusCollector } from "./collect";
import { lineIndex, normalizeDoi, parseBibtexText, readExportFile, stripMarkup, yearOf } from "./text";

/** Fields that name where a paper appeared, in order of preference. */
const VENUE_FIELDS = ["journal", "journaltitle", "booktitle", "eventtitle", "series"];
/** Entry types that, when other entries cross-reference them, are the container and not a paper. */
const CONTAINER_TYPES = new Set(["proceedings", "mvproceedings", "book", "mvbook", "collection", "mvcollection", "periodical"]);

export function creatorName(c: Creator): string {
  if (c.name) return stripMarkup(c.name);
  return stripMarkup([c.firstName, c.prefix, c.lastName, c.suffix].filter(Boolean).join(" "));
}

function field(entry: Entry, name: string): string | null {
  const v = (entry.fields as Record<string, unknown>)[name];
  if (typeof v !== "string") return null;
  const t = stripMarkup(v);
  return t ? t : null;
}

export async function readBibtex(path: string, c: CorpusCollector): Promise<CorpusFiles> {
  const { files, file, text } = readExportFile(path, "a .bib file (BibTeX or BibLaTeX export)", c);
  if (text === null) return files;
  const lineOf = lineIndex(text);
  const lib = parseBibtexText(text);

  // Parse errors, at the line where the broken entry starts (the parser recovers at the next "@").
  let errorCursor = 0;
  for (const e of lib.errors) {
    const input = e.input?.trim();
    if (!input || !input.startsWith("@")) {
      // Not tied to an entry, e.g. an @string name used but never defined: its text is kept.
      c.notice({ file, line: 0 }, e.error.replace(/^Unresolved @string reference (.*)$/, "undefined @string $1 (its name is kept as the text)"));
      continue;
    }
    const offset = text.indexOf(input, errorCursor);
    const line = offset >= 0 ? lineOf(offset) : Number(/at line (\d+)/.exec(e.error)?.[1] ?? 0);
    if (offset >= 0) errorCursor = offset + 1;
    c.badRecord({ file, line }, `cannot parse this entry: ${e.error}`);
  }

  const crossrefs = new Map<string, number>();
  for (const entry of lib.entries) {
    const target = (entry.fields as Record<string, unknown>).crossref;
    if (typeof target === "string") crossrefs.set(target, (crossrefs.get(target) ?? 0) + 1);
  }

  let cursor = 0;
  for (const entry of lib.entries) {
    // An entry the parser gave up on has no input; its error is reported above.
    if (!entry.input) continue;
    const offset = text.indexOf(entry.input, cursor);
    if (offset >= 0) cursor = offset + 1;
    const at = { file, line: offset >= 0 ? lineOf(offset) : 0 };
    const type = entry.type.toLowerCase();
    const referencedBy = crossrefs.get(entry.key);
    if (referencedBy && CONTAINER_TYPES.has(type)) {
      c.skip(at, `@${type}{${entry.key}} is the ${type} that ${referencedBy} entr${referencedBy === 1 ? "y" : "ies"} cross-reference, not a paper`);
      continue;
    }
    const id = entry.key.trim() || normalizeDoi(field(entry, "doi"));
    if (!id) {
      c.badRecord(at, `@${type} entry without a citation key (and no DOI to use instead)`);
      continue;
    }
    const creators = entry.fields.author ?? entry.fields.editor ?? [];
    c.paper(at, {
      id,
      title: field(entry, "title"),
      abstract: field(entry, "abstract"),
      year: yearOf(field(entry, "year") ?? field(entry, "date")),
      venue: VENUE_FIELDS.map((f) => field(entry, f)).find((v) => v !== null) ?? null,
      authors: creators.map(creatorName).filter((n) => n.length > 0),
      // Not a paper field (the schema drops it): a library upload matches papers by it.
      doi: normalizeDoi(field(entry, "doi")),
    });
  }
  return files;
}
