/**
 * A JSON paper record, in the same shape as a line of a corpus papers.jsonl (the id may be
 * left out), validated by the corpus schema so every way in reports problems in the same words.
 */
import { parsePaperRecord } from "@/lib/corpus";
import { InputError } from "./errors";
import { checkSize, resolveLimits, type InputLimits } from "./limits";
import { analyseStructure } from "./structure";
import { checkTextAmount, textLines } from "./text";
import type { InputPaper, PaperSection } from "./types";

/** Stands in for a missing id during validation only; never reaches the result. */
const NO_ID = "(no id)";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function isJsonObjectLine(line: string): boolean {
  try {
    return isObject(JSON.parse(line));
  } catch {
    return false;
  }
}

/** Letters and digits only, to compare two copies of an abstract that differ in spacing or hyphens. */
const squash = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

export function paperFromJson(text: string, limits?: Partial<InputLimits>): InputPaper {
  const lim = resolveLimits(limits);
  checkSize(Buffer.byteLength(text, "utf8"), lim, "JSON record");
  const src = text.replace(/^\ufeff/, "").trim();
  if (!src) {
    throw new InputError("empty", "The JSON record is empty; give one paper as a JSON object with at least a title and an abstract.");
  }
  let value: unknown;
  try {
    value = JSON.parse(src);
  } catch (err) {
    const lines = src.split("\n").filter((l) => l.trim());
    // A pasted papers.jsonl excerpt: say so rather than report a syntax error on line 2.
    if (lines.length > 1 && lines.every(isJsonObjectLine)) {
      throw new InputError("invalid_json", `The input holds ${lines.length} JSON records, one per line; give one paper at a time.`);
    }
    const reason = err instanceof Error ? err.message : String(err);
    throw new InputError("invalid_json", `The input is not valid JSON (${reason}); give one paper as a JSON object.`, { cause: err });
  }
  const hasId = isObject(value) && value.id !== undefined && value.id !== null;
  const r = parsePaperRecord(isObject(value) && !hasId ? { ...value, id: NO_ID } : value);
  if (!r.ok) {
    throw new InputError("invalid_record", `The paper record is invalid: ${r.errors.join("; ")}.`, { details: r.errors });
  }
  const paper = r.paper;
  // Facets given: nothing needs extracting, so the text may be as short as a title.
  if (!paper.facets) {
    const allText = [paper.title, paper.abstract, paper.fullText ?? ""].join(" ");
    checkTextAmount(allText, lim, "paper record", 'add its "abstract" (or "facets")');
  }

  let abstract = paper.abstract;
  let body = "";
  let sections: PaperSection[] = [];
  let references: string[] = [];
  if (paper.fullText) {
    const s = analyseStructure(textLines(paper.fullText).lines);
    ({ body, sections, references } = s);
    if (!abstract) abstract = s.abstract;
    else if (s.abstract && !squash(s.abstract).includes(squash(abstract).slice(0, 100))) {
      // The full text opens with something other than the record's abstract: keep it as body.
      sections = [{ heading: "", text: s.abstract }, ...sections];
      body = [s.abstract, body].filter((t) => t).join("\n\n");
    }
  }
  return {
    title: paper.title,
    abstract,
    body,
    sections,
    references,
    facets: paper.facets,
    source: "json",
    metadata: {
      externalId: hasId ? paper.externalId : null,
      authors: paper.authors,
      year: paper.year,
      venue: paper.venue,
    },
  };
}
