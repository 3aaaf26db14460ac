/**
 * The zod schema of one paper record (one line of papers.jsonl / ooc-queries.jsonl).
 *
 * Exported on its own so every way a paper enters Graft (corpus files, a pasted JSON record,
 * the HTTP API) accepts exactly the same shape and reports problems in the same words.
 * Validation stops here: callers get a plain PaperRecord or a list of readable sentences.
 */
import { z } from "zod";
import { FACETS, SPLITS, type FacetLists, type PaperRecord } from "./types";

/** Years outside this range are almost always a parsing accident (e.g. a page number). */
export const MIN_YEAR = 1000;
export const MAX_YEAR = 2100;

/**
 * Ids are strings. A non-negative safe integer is accepted and converted to its decimal
 * string, because some exports (e.g. numeric corpus ids) write ids as JSON numbers while the
 * TSV files necessarily hold them as text; the conversion is lossless, so both sides match.
 * Anything else (fractions, huge numbers, booleans) is rejected rather than guessed at.
 */
const idSchema = z.preprocess((v) => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? String(v) : v), z.string().trim().min(1));

/** Trim items and drop the empty ones: a blank facet item carries no information. */
const cleanList = (items: string[]): string[] => items.map((s) => s.trim()).filter((s) => s.length > 0);

const stringList = z.array(z.string()).transform(cleanList);

/** Optional text: absent and null mean the same; blank counts as absent. */
const optionalText = z
  .string()
  .nullish()
  .transform((v) => {
    const t = v?.trim();
    return t ? t : null;
  });

const facetsSchema = z.strictObject(
  Object.fromEntries(FACETS.map((f) => [f, stringList.optional()])) as Record<(typeof FACETS)[number], z.ZodOptional<typeof stringList>>,
);

/**
 * One paper line. Unknown top-level fields are ignored (exports often carry extra metadata
 * such as urls or dois); unknown facet names are rejected, since a misspelt facet would
 * otherwise silently lose data.
 */
export const paperLineSchema = z
  .object({
    id: idSchema,
    title: z.string().trim().min(1),
    abstract: z.string().nullish(),
    full_text: z.string().nullish(),
    fullText: z.string().nullish(),
    year: z.int().min(MIN_YEAR).max(MAX_YEAR).nullish(),
    venue: optionalText,
    authors: stringList.nullish(),
    split: z.enum(SPLITS).nullish(),
    facets: facetsSchema.nullish(),
  })
  .refine((p) => p.full_text == null || p.fullText == null, {
    message: 'give the full text as either "full_text" or "fullText", not both',
    path: ["fullText"],
  })
  .transform((p): PaperRecord => {
    let facets: FacetLists | null = null;
    if (p.facets) {
      facets = {};
      // Rebuild in FACETS order so every consumer sees the same key order.
      for (const f of FACETS) {
        const items = p.facets[f];
        if (items) facets[f] = items;
      }
    }
    const fullText = (p.full_text ?? p.fullText ?? "").trim();
    return {
      externalId: p.id,
      title: p.title,
      abstract: (p.abstract ?? "").trim(),
      fullText: fullText || null,
      year: p.year ?? null,
      venue: p.venue,
      authors: p.authors ?? [],
      split: p.split ?? null,
      facets,
    };
  });

export type PaperLine = z.input<typeof paperLineSchema>;

export type PaperParseResult = { ok: true; paper: PaperRecord } | { ok: false; errors: string[] };

/** Validate one decoded JSON value as a paper; errors are one readable sentence each. */
export function parsePaperRecord(value: unknown): PaperParseResult {
  const result = paperLineSchema.safeParse(value);
  if (result.success) return { ok: true, paper: result.data };
  const errors: string[] = [];
  const seenPaths = new Set<string>();
  for (const issue of result.error.issues) {
    // zod can report several checks on one field (e.g. "not a safe integer" and "too big");
    // the first says enough, the rest would read as noise.
    const key = issue.code === "unrecognized_keys" ? `${pathLabel(issue.path)}#keys` : pathLabel(issue.path);
    if (seenPaths.has(key)) continue;
    seenPaths.add(key);
    errors.push(...describeIssue(issue, value));
  }
  return { ok: false, errors };
}

/**
 * The id of a paper value if its id field alone is valid, else null. Lets the file reader
 * track ids of lines that fail for other reasons, so one bad field does not also produce
 * "unknown id" errors for every citation of that paper.
 */
export function paperIdOf(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const r = idSchema.safeParse((value as Record<string, unknown>).id);
  return r.success ? r.data : null;
}

// ---------------------------------------------------------------------------------------------
// Turning zod issues into sentences

type Issue = z.core.$ZodIssue;

/** `facets.methods[1]` style label for a path. */
function pathLabel(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const part of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[part];
  }
  return cur;
}

/** Short, unambiguous rendering of the offending value for an error sentence. */
export function showValue(v: unknown): string {
  if (v === undefined) return "nothing";
  if (Array.isArray(v)) return "an array";
  if (v !== null && typeof v === "object") return "an object";
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** What a field must be, in words; keyed by the path with indexes removed. */
function expectation(path: readonly PropertyKey[], fallback: string): string {
  const names = path.filter((p) => typeof p !== "number").map(String);
  const isItem = typeof path[path.length - 1] === "number";
  const head = names[0];
  if (isItem) return "a string";
  if (names.length === 2 && head === "facets") return "an array of strings";
  switch (head) {
    case "id":
      return "a non-empty string";
    case "title":
      return "a non-empty string";
    case "abstract":
    case "venue":
    case "full_text":
    case "fullText":
      return "a string";
    case "year":
      return "an integer";
    case "authors":
      return "an array of strings";
    case "facets":
      return `an object with the lists ${FACETS.join(", ")}`;
    default:
      return fallback;
  }
}

function describeIssue(issue: Issue, root: unknown): string[] {
  const label = pathLabel(issue.path);
  const value = valueAt(root, issue.path);
  const field = `"${label}"`;
  switch (issue.code) {
    case "invalid_type": {
      if (issue.path.length === 0) return [`a paper must be a JSON object, got ${showValue(root)}`];
      if (value === undefined) return [`${field} is missing`];
      return [`${field} must be ${expectation(issue.path, issue.expected)}, got ${showValue(value)}`];
    }
    case "too_small":
    case "too_big":
      if (issue.origin === "string") return [`${field} must not be empty`];
      // The year is the only bounded number in a paper line.
      return [`${field} must be between ${MIN_YEAR} and ${MAX_YEAR}, got ${showValue(value)}`];
    case "invalid_value":
      return [`${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, got ${showValue(value)}`];
    case "unrecognized_keys":
      if (label === "facets") {
        return issue.keys.map((k) => `unknown facet "${k}" in "facets"; valid facets are ${FACETS.join(", ")}`);
      }
      return issue.keys.map((k) => `unknown field "${k}" in ${field}`);
    case "custom":
      // Our own refinements already carry a full sentence.
      return [issue.message];
    default:
      return [label ? `${field}: ${issue.message}` : issue.message];
  }
}
