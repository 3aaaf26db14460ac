/**
 * Pasted text: anything from a title and abstract to a whole paper copied out of a PDF viewer.
 */
import { ascending, quantileAtIndex } from "@/lib/quantile";
import { InputError } from "./errors";
import { checkSize, resolveLimits, type InputLimits } from "./limits";
import { cleanLine, isListItem, letterCount, wordCount, type DocLine } from "./lines";
import { analyseStructure, isStructuralHeading } from "./structure";
import { countedChars } from "./text-amount";
import type { InputPaper } from "./types";

/**
 * Lines longer than this are whole paragraphs (soft-wrapped text, e.g. copied from a web page);
 * text copied from a PDF is hard-wrapped with lines well under it.
 */
const HARD_WRAP_MAX = 130;

/**
 * Non-blank lines with paragraph breaks marked. In soft-wrapped text every line is a paragraph;
 * in hard-wrapped text a paragraph ends at a blank line or at a short line that ends a sentence.
 */
export function textLines(text: string): { lines: DocLine[]; wrapWidth: number } {
  const raw = text
    .replace(/^\ufeff/, "")
    .replace(/\r\n?/g, "\n")
    .replace(/\f/g, "\n")
    .split("\n");
  const long = raw.map((l) => cleanLine(l).length).filter((len) => len >= 40);
  const hardWrapped = long.length >= 3 && quantileAtIndex(ascending(long), 0.9) <= HARD_WRAP_MAX;
  const wrapWidth = hardWrapped ? quantileAtIndex(ascending(long), 0.9) : Infinity;
  const lines: DocLine[] = [];
  let blank = false;
  for (const r of raw) {
    const text = cleanLine(r);
    if (!text) {
      blank = true;
      continue;
    }
    const prev = lines[lines.length - 1];
    const shortEnd = prev !== undefined && /[.!?:]$/.test(prev.text) && prev.text.length < 0.75 * wrapWidth;
    const indent = r.replace(/\t/g, "    ").search(/\S/);
    lines.push({ text, indent, breakBefore: blank || !hardWrapped || shortEnd || isListItem(text) });
    blank = false;
  }
  return { lines, wrapWidth };
}

/** Title-like: a short line of words with no sentence punctuation at its end. */
export function looksLikeTitle(s: string): boolean {
  return letterCount(s) >= 3 && s.length <= 250 && wordCount(s) <= 30 && !/[.,;:]$/.test(s) && !isStructuralHeading(s);
}

/** Most words of four letters or more capitalised, as in "Graph Retrieval for Papers". */
function titleCase(s: string): boolean {
  const words = s.split(/\s+/).filter((w) => letterCount(w) >= 4);
  return words.length > 0 && words.filter((w) => /^\p{Lu}/u.test(w)).length >= 0.6 * words.length;
}

/** The title (first line, when it looks like one) and the lines after it. */
export function takeTitle(lines: readonly DocLine[], wrapWidth: number): { title: string; rest: DocLine[] } {
  const first = lines[0];
  if (!first) return { title: "", rest: [] };
  const labelled = /^title\s*:\s*(.+)$/i.exec(first.text);
  if (labelled) return { title: labelled[1].trim(), rest: lines.slice(1) };
  const next = lines[1];
  const standsAlone = next === undefined || next.breakBefore === true || isStructuralHeading(next.text);
  if (looksLikeTitle(first.text) && next !== undefined && (standsAlone || titleCase(first.text) || first.text.length < 0.6 * wrapWidth)) {
    return { title: first.text.replace(/^#{1,6}\s+/, ""), rest: lines.slice(1).map((l, i) => (i === 0 ? { ...l, breakBefore: true } : l)) };
  }
  return { title: "", rest: [...lines] };
}

/** Throws empty or too_short; `what` names the input in the message. */
export function checkTextAmount(text: string, limits: InputLimits, what: string, hint: string): void {
  const chars = countedChars(text);
  if (!chars) throw new InputError("empty", `The ${what} is empty; ${hint}.`);
  if (chars < limits.minChars) {
    throw new InputError("too_short", `The ${what} has only ${chars} characters, fewer than the ${limits.minChars} needed; ${hint}.`);
  }
}

/** A paper from pasted text: title, abstract, sections and references as far as they can be told apart. */
export function paperFromText(text: string, limits?: Partial<InputLimits>): InputPaper {
  const lim = resolveLimits(limits);
  checkSize(Buffer.byteLength(text, "utf8"), lim, "text");
  checkTextAmount(text, lim, "text", "paste at least the paper's title and abstract");
  const { lines, wrapWidth } = textLines(text);
  const { title, rest } = takeTitle(lines, wrapWidth);
  return { title, ...analyseStructure(rest), facets: null, source: "text" };
}
