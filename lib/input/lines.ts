/**
 * Line-level text helpers shared by the text and PDF readers: one normalisation for every
 * source, and the rules that glue wrapped lines back into paragraphs.
 */

/** One line of a document on its way to being structured. */
export interface DocLine {
  text: string;
  /** Font size in points (PDFs only); lets headings be told from body text. */
  size?: number;
  /** A paragraph break comes before this line (a blank line in text, a gap or indent in a PDF). */
  breakBefore?: boolean;
  /** How far the line starts right of its column's left edge; reveals hanging-indent references. */
  indent?: number;
}

/**
 * Normalise one line: odd spaces become plain spaces, invisible characters go, runs of white
 * space collapse. A trailing soft hyphen is a typesetter's line-end hyphenation, so it becomes
 * a real hyphen that joinWrapped() can then remove.
 */
export function cleanLine(s: string): string {
  return s
    .replace(/\u00ad\s*$/, "-")
    .replace(/[\u00ad\u200b-\u200d\u2060\ufeff]/g, "")
    .replace(/[\s\u00a0\u2000-\u200a\u202f\u205f\u3000]+/g, " ")
    .trim();
}

/**
 * Join a wrapped line to the next. A hyphen between lower-case letters at a line end is taken
 * as a syllable break and removed ("meth- od" -> "method"), unless the word already holds a
 * hyphen or starts with a capital, which marks a compound ("state-of-the-art", "Pre-training").
 */
export function joinWrapped(a: string, b: string): string {
  if (!a) return b;
  if (!b) return a;
  if (/[\p{L}\p{N}]-$/u.test(a)) {
    const word = a.slice(a.lastIndexOf(" ") + 1, -1);
    const syllable = /^\p{Ll}/u.test(b) && /^\p{Ll}+$/u.test(word.slice(-2)) && !word.includes("-") && !/^\p{Lu}/u.test(word);
    return syllable ? a.slice(0, -1) + b : a + b;
  }
  return `${a} ${b}`;
}

/** A bulleted list item ("• ...", "- ...", "* ..."): always starts a new paragraph. */
export function isListItem(s: string): boolean {
  return /^(?:[•◦▪‣∙·]|[-*](?=\s))/.test(s);
}

/** Paragraphs of consecutive lines, split where a line starts a new paragraph. */
export function paragraphs(lines: readonly DocLine[]): string[] {
  const out: string[] = [];
  let cur = "";
  for (const [i, line] of lines.entries()) {
    if (i > 0 && line.breakBefore && cur) {
      out.push(cur);
      cur = "";
    }
    cur = joinWrapped(cur, line.text);
  }
  if (cur) out.push(cur);
  return out;
}

export function wordCount(s: string): number {
  const t = s.trim();
  return t ? t.split(/\s+/).length : 0;
}

export function letterCount(s: string): number {
  return s.match(/\p{L}/gu)?.length ?? 0;
}
