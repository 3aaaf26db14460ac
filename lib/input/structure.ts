/**
 * Turns the lines of a paper (after its title) into abstract, sections and references. Shared by
 * pasted text and PDFs: a PDF adds font sizes and paragraph breaks from the layout, plain text
 * only has blank lines, so every rule works on text patterns first and uses sizes as a bonus.
 */
import { letterCount, paragraphs, wordCount, type DocLine } from "./lines";
import { referenceTitle, splitReferenceEntries } from "./references";
import type { PaperSection } from "./types";

export interface StructureOptions {
  /** The body font size, when known: headings are never smaller, and a size shared with a
   * recognised heading marks further (unnumbered) headings. */
  bodySize?: number;
}

export interface PaperStructure {
  abstract: string;
  body: string;
  sections: PaperSection[];
  references: string[];
}

/**
 * Without an "Abstract" heading or any section heading, all text is taken as the abstract only
 * up to this length; longer text is a headingless paper, whose first paragraph is the abstract.
 */
const ABSTRACT_MAX_CHARS = 3000;

const SECTION_NAMES = new Set([
  "introduction",
  "related work",
  "related works",
  "background",
  "preliminaries",
  "motivation",
  "method",
  "methods",
  "methodology",
  "approach",
  "our approach",
  "proposed method",
  "model",
  "models",
  "materials and methods",
  "data",
  "dataset",
  "datasets",
  "experiments",
  "experiment",
  "experimental setup",
  "experimental settings",
  "experimental results",
  "setup",
  "evaluation",
  "results",
  "results and discussion",
  "analysis",
  "error analysis",
  "case study",
  "discussion",
  "conclusion",
  "conclusions",
  "conclusion and future work",
  "conclusions and future work",
  "future work",
  "limitations",
  "ethics statement",
  "ethical considerations",
  "broader impact",
  "acknowledgments",
  "acknowledgements",
  "acknowledgment",
  "acknowledgement",
]);

const REFERENCE_NAMES = new Set(["references", "reference", "bibliography", "works cited", "literature cited", "references and notes", "cited literature"]);

/** Affiliation lines ("1 University of X") look like numbered headings; these words give them away. */
const AFFILIATION = /\b(?:universit|institut|department|dept\.|laborator|school of|college|faculty|inc\.|corporation|research center)|@/i;

const NUMBERED = /^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+(\S.*)$/;
const ROMAN = /^([IVX]{1,5})\.\s+(\S.*)$/;
const MARKDOWN = /^#{1,6}\s+(.+)$/;
const APPENDIX = /^(?:[A-Z](?:\.\d+)*\.?\s+)?(?:appendix|appendices|supplementary materials?|supplemental materials?)\b/i;

/**
 * "Abstract", "Abstract:", "Abstract—We ...", "ABSTRACT We ...": the text after the heading on
 * the same line ("" if none), or null when the line is no abstract heading. Capitalised only,
 * so a wrapped line ending a sentence ("... more abstract.") does not count.
 */
function abstractHeading(text: string): string | null {
  const m = /^(?:#{1,6}\s*)?(?:Abstract|ABSTRACT)\s*(?:[:.\u2013\u2014-]\s*|$)(.*)$/.exec(text) ?? /^ABSTRACT\s+(.*)$/.exec(text);
  return m ? m[1].trim() : null;
}

/** The heading text in a comparable form: no markdown marks, numbering or final colon. */
function headingKey(s: string): string {
  return s
    .replace(/^#{1,6}\s+/, "")
    .replace(/^(?:\d{1,2}(?:\.\d{1,2})*|[IVX]{1,5})\.?\s+/, "")
    .replace(/[:.]$/, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

function romanValue(s: string): number {
  const v: Record<string, number> = { I: 1, V: 5, X: 10 };
  let total = 0;
  for (let i = 0; i < s.length; i++) {
    const cur = v[s[i]];
    const next = v[s[i + 1]] ?? 0;
    total += cur < next ? -cur : cur;
  }
  return total;
}

/** Short, capitalised, no sentence punctuation at the end: could be a heading's text. */
function headingLike(rest: string): boolean {
  return /^\p{Lu}/u.test(rest) && rest.length <= 90 && wordCount(rest) <= 12 && letterCount(rest) >= 3 && !/[.,;]$/.test(rest) && !AFFILIATION.test(rest);
}

/** The section number of a numbered heading candidate ([2, 1] for "2.1 Data"), else null. */
function headingNumber(text: string): number[] | null {
  const t = text.replace(MARKDOWN, "$1");
  const num = NUMBERED.exec(t);
  if (num && headingLike(num[2])) return num[1].split(".").map(Number);
  const roman = ROMAN.exec(t);
  if (roman && headingLike(roman[2])) return [romanValue(roman[1])];
  return null;
}

/** A capitalised name without a full stop: "results." ending a wrapped line is no heading. */
function namedAs(text: string, names: Set<string>): boolean {
  return text.length <= 60 && /^(?:#{1,6}\s+)?[\p{Lu}\p{N}]/u.test(text) && !/[.,;]$/.test(text) && names.has(headingKey(text));
}

function isNamedHeading(text: string): boolean {
  return namedAs(text, SECTION_NAMES);
}

function isReferencesHeading(text: string): boolean {
  return namedAs(text, REFERENCE_NAMES);
}

/**
 * Indexes of the section headings among `lines`, from `from` on. Numbered headings must follow
 * each other (1, 2, 2.1, 3 ...), which keeps numbered list items and sentences starting with a
 * number out; named headings ("Introduction") need only stand alone on their line.
 */
function findHeadings(lines: readonly DocLine[], from: number, bodySize: number | undefined): number[] {
  const heads: number[] = [];
  const headSizes: number[] = [];
  const tooSmall = (l: DocLine) => bodySize !== undefined && l.size !== undefined && l.size < bodySize * 0.95;
  let top = 0;
  for (let i = from; i < lines.length; i++) {
    const line = lines[i];
    const text = line.text;
    // A heading starts a paragraph: a line that continues a sentence ("3 methods were ...") is
    // no heading however it begins. breakBefore is undefined only when nothing is known.
    if (tooSmall(line) || text.length > 100 || line.breakBefore === false) continue;
    const num = headingNumber(text);
    let ok = false;
    if (isReferencesHeading(text)) {
      // Accepted whatever its number: the body must stop here even if numbering was misread.
      ok = true;
    } else if (num) {
      const [first] = num;
      if (num.length === 1 ? first > top && first <= top + 2 : first === top || (top === 0 && first === 1)) {
        ok = true;
        top = first;
      }
    } else if (MARKDOWN.test(text) || isNamedHeading(text)) {
      ok = true;
    }
    if (ok) {
      heads.push(i);
      if (line.size !== undefined && bodySize !== undefined && line.size > bodySize * 1.05) headSizes.push(line.size);
    }
  }
  if (headSizes.length === 0 || heads.length === 0) return heads;
  // Unnumbered headings in the same (larger) font as recognised ones, after the first of them.
  const extra: number[] = [];
  for (let i = heads[0] + 1; i < lines.length; i++) {
    const { size, text } = lines[i];
    if (size === undefined || heads.includes(i)) continue;
    if (headSizes.some((s) => Math.abs(s - size) <= 0.3) && headingLike(text)) extra.push(i);
  }
  return [...heads, ...extra].sort((a, b) => a - b);
}

/** Whether a line opens the abstract or a section, so it cannot be a paper's title. */
export function isStructuralHeading(text: string): boolean {
  return abstractHeading(text) !== null || headingNumber(text) !== null || isNamedHeading(text) || isReferencesHeading(text);
}

/** Author and affiliation blocks: short, no sentence end, or an address. */
function isFrontMatter(par: string): boolean {
  return (wordCount(par) < 30 && !/[.!?]$/.test(par)) || (AFFILIATION.test(par) && wordCount(par) < 60);
}

function sectionText(lines: readonly DocLine[]): string {
  return paragraphs(lines).join("\n\n");
}

/** Abstract, sections and references of the lines that follow a paper's title. */
export function analyseStructure(lines: readonly DocLine[], options: StructureOptions = {}): PaperStructure {
  const n = lines.length;
  // The abstract heading sits near the start; deeper matches are body sentences ("Abstract ideas ...").
  const searchEnd = Math.max(80, Math.ceil(n * 0.3));
  let abstractAt = -1;
  for (let i = 0; i < Math.min(n, searchEnd); i++) {
    if (lines[i].breakBefore !== false && abstractHeading(lines[i].text) !== null) {
      abstractAt = i;
      break;
    }
  }

  const headings = findHeadings(lines, abstractAt + 1, options.bodySize);
  // The last references heading: a table of contents or a sentence may name it earlier.
  let refsAt = -1;
  for (const h of headings) if (isReferencesHeading(lines[h].text)) refsAt = h;
  const sectionHeads = headings.filter((h) => (refsAt < 0 || h < refsAt) && !isReferencesHeading(lines[h].text));
  const mainEnd = refsAt >= 0 ? refsAt : n;
  const firstHead = sectionHeads.length > 0 ? sectionHeads[0] : mainEnd;

  // Abstract: after its heading, else the front text minus author and affiliation blocks.
  let abstractParas: string[];
  if (abstractAt >= 0) {
    const inline = abstractHeading(lines[abstractAt].text) ?? "";
    const first: DocLine[] = inline ? [{ text: inline }] : [];
    abstractParas = paragraphs([...first, ...lines.slice(abstractAt + 1, firstHead)]);
  } else {
    abstractParas = paragraphs(lines.slice(0, firstHead)).filter((p) => !isFrontMatter(p));
  }

  const sections: PaperSection[] = [];
  // No section heading: a long text is a whole paper without headings, not one huge abstract.
  if (sectionHeads.length === 0 && abstractParas.join("\n\n").length > ABSTRACT_MAX_CHARS && abstractParas.length > 1) {
    sections.push({ heading: "", text: abstractParas.slice(1).join("\n\n") });
    abstractParas = abstractParas.slice(0, 1);
  }
  for (const [k, h] of sectionHeads.entries()) {
    const end = k + 1 < sectionHeads.length ? sectionHeads[k + 1] : mainEnd;
    const heading = lines[h].text.replace(MARKDOWN, "$1").replace(/:$/, "").trim();
    sections.push({ heading, text: sectionText(lines.slice(h + 1, end)) });
  }

  let references: string[] = [];
  if (refsAt >= 0) {
    let refsEnd = n;
    const { bodySize } = options;
    for (let i = refsAt + 1; i < n; i++) {
      const { text, size } = lines[i];
      // An appendix follows: named so, or a short line in a heading font ("A Dataset Details").
      const headingFont = bodySize !== undefined && size !== undefined && size > bodySize * 1.05 && wordCount(text) <= 12;
      if (headingFont || (APPENDIX.test(text) && wordCount(text) <= 8 && !/[.,]$/.test(text))) {
        refsEnd = i;
        break;
      }
    }
    references = splitReferenceEntries(lines.slice(refsAt + 1, refsEnd))
      .map(referenceTitle)
      .filter((t) => t);
  }

  const body = sections
    .map((s) => (s.heading ? (s.text ? `${s.heading}\n\n${s.text}` : s.heading) : s.text))
    .filter((s) => s)
    .join("\n\n");
  return { abstract: abstractParas.join("\n\n"), body, sections, references };
}
