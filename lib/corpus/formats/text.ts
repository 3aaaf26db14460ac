/**
 * Small text helpers shared by the import formats: reading a whole export file (gzip, BOMs,
 * UTF-16, invalid UTF-8 located by line), line numbers of offsets, LaTeX and markup to plain
 * Unicode, DOIs and years.
 */
import { readFileSync, statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { parse as parseBibtex, type Options as BibtexOptions } from "@retorquere/bibtex-parser";
import { gunzipCapped, isGzip, UnpackLimitError } from "@/lib/unpack";
import type { CorpusFiles } from "../read";
import type { CorpusCollector } from "./collect";

export type TextResult = { ok: true; text: string } | { ok: false; line: number; message: string };

/**
 * A one-file export (`expected` names it in the error for a folder): its files, its base name
 * for locations, and its text, null when it cannot be read as text (an error is collected).
 */
export function readExportFile(path: string, expected: string, c: CorpusCollector): { files: CorpusFiles; file: string; text: string | null } {
  const abs = resolve(path);
  if (!statSync(abs).isFile()) throw new Error(`${abs} is not a file: give ${expected}`);
  const files: CorpusFiles = { papers: abs, citations: null, queries: null, queryGold: null };
  const file = basename(abs);
  const read = readTextFile(abs);
  if (read.ok) return { files, file, text: read.text };
  c.error({ file, line: read.line }, read.message);
  return { files, file, text: null };
}

/**
 * The text of a (possibly gzipped) export file. UTF-8 with or without a byte-order mark, or
 * UTF-16 with one (some Windows tools export RIS that way); anything else that is not valid
 * UTF-8 is refused with the first bad line, rather than imported as mojibake. A gzip that
 * expands beyond GRAFT_MAX_UNPACKED_MB throws UnpackLimitError (too_large) as soon as it passes it.
 */
export function readTextFile(file: string): TextResult {
  let buf: Buffer = readFileSync(file);
  if (isGzip(buf)) {
    try {
      buf = gunzipCapped(buf, basename(file));
    } catch (err) {
      if (err instanceof UnpackLimitError) throw err;
      return { ok: false, line: 0, message: `cannot decompress the file: ${(err as Error).message}` };
    }
  }
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return { ok: true, text: new TextDecoder("utf-16le").decode(buf.subarray(2)) };
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) {
    const swapped = Buffer.from(buf.subarray(2));
    swapped.swap16();
    return { ok: true, text: new TextDecoder("utf-16le").decode(swapped) };
  }
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
  try {
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(buf) };
  } catch {
    const strict = new TextDecoder("utf-8", { fatal: true });
    let line = 1;
    let start = 0;
    for (let i = 0; i <= buf.length; i++) {
      if (i < buf.length && buf[i] !== 0x0a) continue;
      try {
        strict.decode(buf.subarray(start, i));
      } catch {
        return { ok: false, line, message: "not valid UTF-8 text (a Latin-1 or Windows-1252 export?): save or export the file as UTF-8" };
      }
      line++;
      start = i + 1;
    }
    return { ok: false, line: 0, message: "not valid UTF-8 text: save or export the file as UTF-8" };
  }
}

/** 1-based line numbers of character offsets in a text, by binary search over its line starts. */
export function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/**
 * Runs of white space (line breaks of wrapped fields included) as one space, trimmed, in
 * Unicode's composed form (NFC): "\\"u" decoded and a typed "ü" are then the same text, for
 * search and for comparing re-imports.
 */
export function squash(s: string): string {
  return s.replace(/\s+/g, " ").trim().normalize("NFC");
}

const MARKUP_TAG = /<\/?(?:i|b|em|strong|u|sup|sub|sc|p|br|span|a|code|tt|scp|inf|mml:[a-z]+|jats:[a-z-]+)(?:\s[^<>]*)?\/?>/gi;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/**
 * Plain text of a field that may carry light markup: the bibtex parser's rich text (<i>, <sup>,
 * <span class="nocase">) and the HTML/JATS/MathML tags some OpenAlex titles and abstracts carry.
 * Only known tags are removed, so a literal "a < b" survives.
 */
export function stripMarkup(s: string): string {
  if (!s.includes("<") && !s.includes("&")) return squash(s);
  return squash(
    s
      .replace(MARKUP_TAG, "")
      .replace(/&(amp|lt|gt|quot|apos|nbsp);/g, (_, e: string) => ENTITIES[e])
      .replace(/&#(\d+);/g, (m, d: string) => safeCodePoint(Number(d)) ?? m)
      .replace(/&#x([0-9a-f]+);/gi, (m, h: string) => safeCodePoint(parseInt(h, 16)) ?? m),
  );
}

function safeCodePoint(n: number): string | null {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : null;
}

/** Font and sizing commands: their argument is the text, the command itself says nothing. */
const STYLE_MACRO =
  /^(?:math[a-z]+|text[a-z]*|operatorname\*?|boldsymbol|bm|rm|bf|it|sf|tt|cal|left|right|[bB]ig+[lr]?|displaystyle|scriptstyle|emph|cite[a-z]*|ref|label|url|href)$/;

/**
 * Commands the parser does not know: dropped in text (their argument stays), but an unknown
 * math operator keeps its name ("$O(n \log n)$" reads "O(n log n)", not "O(nn)").
 */
function unknownCommand(node: { type: string; content?: unknown; _renderInfo?: Record<string, unknown> }): string {
  const name = typeof node.content === "string" ? node.content : "";
  if (node.type !== "macro" || node._renderInfo?.mode !== "math" || !/^[A-Za-z]+$/.test(name) || STYLE_MACRO.test(name)) return "";
  return ` ${name} `;
}

/** The bibtex parser's options for Graft: keep the casing as written, never throw on unknown commands. */
export const BIBTEX_OPTIONS: BibtexOptions = { english: false, sentenceCase: false, caseProtection: false, unsupported: unknownCommand };

/** Strings anywhere in a parsed field value (a string, a list, creators' name parts) mapped by `f`. */
function mapStrings<T>(value: T, f: (s: string) => string): T {
  if (typeof value === "string") return f(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => mapStrings(v, f)) as T;
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)])) as T;
  return value;
}

/**
 * The bibtex parser with Graft's options. The parser reads `<` and `>` in text as TeX's OT1
 * font does, as "¡" and "¿" (issue 28: "a < b" imported as "a ¡ b"); an entry whose source has
 * neither those characters nor the `!\`` / `?\`` ligatures gets its "<" and ">" back.
 */
export function parseBibtexText(source: string): ReturnType<typeof parseBibtex> {
  const lib = parseBibtex(source, BIBTEX_OPTIONS);
  for (const e of lib.entries) {
    if (/[¡¿]|[!?]`/.test(e.input ?? "")) continue;
    e.fields = mapStrings(e.fields, (s) => s.replace(/¡/g, "<").replace(/¿/g, ">"));
  }
  return lib;
}

/** Braces balance (ignoring escaped ones): a precondition for handing text to the LaTeX decoder. */
function balanced(s: string): boolean {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}" && --depth < 0) return false;
  }
  return depth === 0;
}

/** Text the LaTeX decoder can take: it has LaTeX in it, balanced braces, no trailing backslash. */
function decodable(text: string): boolean {
  return /[\\${}]/.test(text) && balanced(text) && !/(^|[^\\])(\\\\)*\\$/.test(text);
}

/**
 * LaTeX accents, escapes and simple math in running text (arXiv titles, authors and abstracts
 * write "Bal\\'azs", "$\\alpha$-smoothing") decoded to Unicode by the bibtex parser's LaTeX
 * engine, many texts in one parse (a parse costs about as much as a hundred entries in one).
 * Text without LaTeX is returned as is (white space squashed); text the engine cannot take
 * (unbalanced braces, a parse error) is kept verbatim rather than guessed at.
 */
export function latexToUnicodeMany(texts: readonly string[]): string[] {
  const out = texts.map(squash);
  const todo = texts.flatMap((t, i) => (decodable(t) ? [i] : []));
  if (todo.length === 0) return out;
  // Plain-text characters that are special to TeX: "5%" is not a comment, "~10" not a tie.
  const tex = (t: string) => t.replace(/(?<!\\)([%&#])/g, "\\$1").replace(/(?<!\\)~/g, "\\textasciitilde{}");
  const source = todo.map((i, j) => `@misc{k${j}, title = {${tex(texts[i])}}}`).join("\n");
  let lib: ReturnType<typeof parseBibtex>;
  try {
    lib = parseBibtexText(source);
  } catch {
    return out;
  }
  const failed = new Set(lib.errors.map((e) => /^@misc\{(k\d+),/.exec(e.input ?? "")?.[1]).filter((k) => k !== undefined));
  for (const e of lib.entries) {
    const j = Number(e.key.slice(1));
    const title = e.fields.title;
    if (!e.input || failed.has(e.key) || !Number.isInteger(j) || todo[j] === undefined || typeof title !== "string") continue;
    out[todo[j]] = stripMarkup(title);
  }
  return out;
}

/** One text through latexToUnicodeMany. */
export function latexToUnicode(text: string): string {
  return latexToUnicodeMany([text])[0];
}

/** A DOI in its bare, lower-case form (DOIs are case-insensitive), or null. */
export function normalizeDoi(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  const m = /10\.\d{4,9}\/\S+/.exec(raw.trim());
  return m ? m[0].replace(/[.,;]+$/, "").toLowerCase() : null;
}

/**
 * The year a date-ish field states ("2019", "c2019", "2019-03-01", "Mon, 2 Apr 2007 19:18:42
 * GMT", "801"): a number (possibly out of range: the collector says so), null when absent,
 * or the text itself when it holds no number ("in press"), for the caller to report.
 */
export function yearOf(raw: unknown): number | string | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === "number") return raw;
  const s = String(raw).trim();
  if (s === "") return null;
  const four = /(?<!\d)(\d{4})(?!\d)/.exec(s);
  if (four) return Number(four[1]);
  const any = /(?<!\d)(\d{1,5})(?!\d)/.exec(s);
  return any ? Number(any[1]) : s;
}
