/**
 * RIS (Zotero, Mendeley, EndNote exports) through Citation.js's RIS plugin, which knows the
 * old and new RIS specifications' tags (TI/T1, AU/A1, PY/Y1/DA, JO/JF/T2, AB/N2, DO, …) and
 * maps them to CSL. The records themselves are delimited here ("TY  - " to "ER  - ") so every
 * record, and every problem, has its line. Ids: the record's ID tag, else its DOI, else a key
 * made from the first author, year and title (stable across re-imports of the same record).
 */
import { createHash } from "node:crypto";
import { plugins, type CslItem, type CslName } from "@citation-js/core";
import "@citation-js/plugin-ris";
import type { CorpusFiles } from "../read";
import type { CorpusCollector, Location } from "./collect";
import { normalizeDoi, readExportFile, squash, stripMarkup, yearOf } from "./text";

const TAG_LINE = /^([A-Z][A-Z0-9]) {2}-(?: |$)/;

export function cslName(n: CslName): string {
  if (n.literal) return squash(n.literal);
  return squash([n.given, n["dropping-particle"], n["non-dropping-particle"], n.family, n.suffix].filter(Boolean).join(" "));
}

const ascii = (s: string) =>
  s
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "");

/** "mueller2019uber-1a2b3c": readable, and unique per (title, year, authors). */
export function generatedKey(title: string, year: number | null, authors: string[]): string {
  const family = ascii(authors[0]?.split(" ").pop() ?? "") || "anon";
  const word =
    title
      .split(/\s+/)
      .map(ascii)
      .find((w) => w.length > 3 && !["with", "from", "that", "this", "into", "over"].includes(w)) ?? "";
  const hash = createHash("sha1")
    .update(JSON.stringify([title, year, authors]))
    .digest("hex")
    .slice(0, 6);
  return `${family}${year ?? ""}${word}-${hash}`;
}

function recordToPaper(csl: CslItem): Record<string, unknown> {
  const title = typeof csl.title === "string" ? stripMarkup(csl.title) : null;
  const authors = (csl.author ?? csl.editor ?? []).map(cslName).filter((n) => n.length > 0);
  // Conference papers carry their year as the event's date in the new RIS specification.
  const date = csl.issued ?? (csl["event-date"] as CslItem["issued"]) ?? (csl["original-date"] as CslItem["issued"]);
  const rawYear = date?.["date-parts"]?.[0]?.[0] ?? date?.raw ?? date?.literal ?? null;
  const year = yearOf(rawYear);
  const venueField = [csl["container-title"], csl["event-title"], csl.event, csl["collection-title"]].find((v) => typeof v === "string" && v.trim());
  const doi = normalizeDoi(csl.DOI);
  const given = csl.id !== undefined && csl.id !== null ? String(csl.id).trim() : "";
  // (A record without a title gets a key too, so that its one problem reads "title" is missing.)
  const id = given || doi || generatedKey(title ?? "", typeof year === "number" ? year : null, authors);
  return {
    id,
    title,
    abstract: typeof csl.abstract === "string" ? stripMarkup(csl.abstract) : null,
    year,
    venue: typeof venueField === "string" ? stripMarkup(venueField) : null,
    authors,
    // Not a paper field (the schema drops it): a library upload matches papers by it.
    doi,
  };
}

export async function readRis(path: string, c: CorpusCollector): Promise<CorpusFiles> {
  const { files, file, text } = readExportFile(path, "a .ris file (RIS export)", c);
  if (text === null) return files;
  const lines = text.split(/\r\n|\n|\r/);
  let open: { at: Location; lines: string[] } | null = null;
  let strayReported = false;

  const close = (record: { at: Location; lines: string[] }) => {
    let items: CslItem[];
    try {
      items = plugins.input.chain(`${record.lines.join("\n")}\nER  - \n`, { generateGraph: false, forceType: "@ris/file" });
    } catch (err) {
      c.badRecord(record.at, `cannot read this record: ${(err as Error).message}`);
      return;
    }
    if (items.length !== 1) {
      c.badRecord(record.at, `cannot read this record (the RIS parser found ${items.length} records in it)`);
      return;
    }
    c.paper(record.at, recordToPaper(items[0]));
  };

  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    const line = raw.replace(/\s+$/, "");
    const tag = TAG_LINE.exec(line)?.[1];
    if (!open) {
      if (line === "") return;
      if (tag === "TY") {
        open = { at: { file, line: lineNo }, lines: [line] };
        strayReported = false;
        return;
      }
      // Report a run of lines outside any record once, where it starts.
      if (!strayReported) {
        c.badRecord(
          { file, line: lineNo },
          tag
            ? `"${tag}  - " outside a record: a RIS record starts with "TY  - " and ends with "ER  - "`
            : `not a RIS line (a record starts with "TY  - "): ${JSON.stringify(line.slice(0, 60))}`,
        );
        strayReported = true;
      }
      return;
    }
    const current: { at: Location; lines: string[] } = open;
    if (tag === "ER") {
      close(current);
      open = null;
    } else if (tag === "TY") {
      c.badRecord(current.at, `record has no "ER  - " line before the next record starts on line ${lineNo}`);
      open = { at: { file, line: lineNo }, lines: [line] };
    } else current.lines.push(line);
  });
  const last = open as { at: Location; lines: string[] } | null;
  if (last) c.badRecord(last.at, `record is not closed: no "ER  - " line before the end of the file`);
  return files;
}
