/**
 * The reference list: split into entries, and a best-effort title for each entry. Reference
 * styles vary endlessly, so every rule here is a heuristic tried in order of reliability:
 * explicit numbering, then hanging indentation, then "a new author list after a full stop".
 */
import { joinWrapped, letterCount, wordCount, type DocLine } from "./lines";

const BRACKETED = /^\[(\d{1,4})\]\s*/;
const DOTTED = /^(\d{1,4})\.\s+(?=\S)/;

/** No title is longer; an entry whose title cannot be found is returned whole, cut to this. */
const MAX_FALLBACK_CHARS = 300;

/** Entries of a reference list, each as one line of text. */
export function splitReferenceEntries(lines: readonly DocLine[]): string[] {
  const ls = lines.filter((l) => l.text.trim());
  if (ls.length === 0) return [];
  const starts = numberedStarts(ls, BRACKETED, 3) ?? numberedStarts(ls, DOTTED, 1) ?? hangingStarts(ls) ?? heuristicStarts(ls);
  const entries: string[] = [];
  let cur = "";
  for (const [i, line] of ls.entries()) {
    if (starts.has(i) && cur) {
      entries.push(cur);
      cur = "";
    }
    cur = joinWrapped(cur, line.text.trim());
  }
  if (cur) entries.push(cur);
  return entries;
}

/**
 * Entry starts for "[1] ..." or "1. ..." lists. Numbers must rise by at most `maxStep`, so a
 * continuation line that happens to begin with a number (a volume, "12. In ...") is not taken
 * as a new entry. Null when the list is not numbered this way.
 */
function numberedStarts(ls: readonly DocLine[], re: RegExp, maxStep: number): Set<number> | null {
  const first = re.exec(ls[0].text);
  if (!first) return null;
  const starts = new Set([0]);
  let prev = Number(first[1]);
  for (let i = 1; i < ls.length; i++) {
    const m = re.exec(ls[i].text);
    if (!m) continue;
    const n = Number(m[1]);
    if (n > prev && n <= prev + maxStep) {
      starts.add(i);
      prev = n;
    }
  }
  return starts.size >= 2 || ls.length === 1 ? starts : null;
}

/** Most PDF author-year styles (ACL, APA) indent every line of an entry but the first. */
function hangingStarts(ls: readonly DocLine[]): Set<number> | null {
  if (ls.some((l) => l.indent === undefined)) return null;
  const FLUSH = 1.5;
  const flush = ls.filter((l) => (l.indent ?? 0) <= FLUSH).length;
  const indented = ls.filter((l) => (l.indent ?? 0) > FLUSH && (l.indent ?? 0) <= 60).length;
  if ((ls[0].indent ?? 0) > FLUSH || flush < 2 || indented < 1) return null;
  const starts = new Set<number>();
  ls.forEach((l, i) => {
    if ((l.indent ?? 0) <= FLUSH) starts.add(i);
  });
  return starts;
}

function heuristicStarts(ls: readonly DocLine[]): Set<number> {
  const starts = new Set([0]);
  for (let i = 1; i < ls.length; i++) {
    const prev = ls[i - 1].text.trim();
    const cur = ls[i].text.trim();
    if (ls[i].breakBefore || (/[.)\]]$/.test(prev) && startsWithAuthors(cur))) starts.add(i);
  }
  return starts;
}

/** Words that begin the venue or publisher part of an entry, never an author list. */
const CONTINUATION =
  /^(?:In|Proceedings|Proc\.|Advances|arXiv|Journal|Transactions|Association|Conference|Workshop|International|Annual|IEEE|ACM|Springer|Curran|Morgan|MIT|Oxford|Cambridge|Elsevier|Volume|Vol\.|pages|pp\.|URL|https?|doi|DOI|Available|Retrieved|Accessed|Technical|PhD|Online|Preprint|CoRR|OpenReview|PMLR|Computational|(?:The|A|An)\s)/;

const AUTHOR_STARTS = [
  // "Vaswani, A." / "Vaswani, Ashish"
  /^\p{Lu}[\p{L}'’`-]+,\s*\p{Lu}/u,
  // "A. Vaswani" / "A.-B. Smith"
  /^\p{Lu}\.(?:\s?-?\p{Lu}\.)*\s*\p{Lu}[\p{L}'’-]+/u,
  // "Ashish Vaswani, ..." / "Ashish Vaswani and ..." / "Jane van Dyk. 2017."
  /^\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}\.)*(?:\s+(?:van|von|de|der|den|di|da|del|le|la|dos))*\s+\p{Lu}[\p{L}'’-]+(?:,|\s+and\s|\s+et al|\.\s)/u,
];

function startsWithAuthors(s: string): boolean {
  return !CONTINUATION.test(s) && AUTHOR_STARTS.some((re) => re.test(s));
}

/** The cited work's title, or the whole entry (shortened) when no title can be recognised. */
export function referenceTitle(entry: string): string {
  const s = entry.replace(BRACKETED, "").replace(DOTTED, "").trim();
  const title = findTitle(s);
  // Nothing that long is a title: the sentence splitting went wrong somewhere.
  return title && title.length <= MAX_FALLBACK_CHARS ? title : s.slice(0, MAX_FALLBACK_CHARS);
}

function findTitle(s: string): string {
  // IEEE: A. Vaswani et al., "Attention is all you need," in Proc. ...
  const quoted = /[“"]([^”"]{8,})[”"]/.exec(s);
  if (quoted) return cleanTitle(quoted[1]);
  // Author-year (ACL, APA, Harvard): the title is the sentence right after "2017." or "(2017).".
  const yearRe = /(?:^|[\s,(])(?:1[6-9]|20)\d{2}[a-z]?\)?\.\s+/g;
  for (let m = yearRe.exec(s); m; m = yearRe.exec(s)) {
    const t = cleanTitle(firstSentence(s.slice(m.index + m[0].length)));
    if (wordCount(t) >= 2) return t;
  }
  // Springer LNCS: Vaswani, A., Shazeer, N.: Attention is all you need. In: ...
  const lncs = /^.{2,400}?(?:\p{Lu}\.|et al\.):\s+(.+)$/u.exec(s);
  if (lncs) {
    const t = cleanTitle(firstSentence(lncs[1]));
    if (wordCount(t) >= 2) return t;
  }
  // Otherwise: authors, then the title, as sentences.
  const first = firstSentence(s);
  const rest = s.slice(first.length).replace(/^[.\s]+/, "");
  if (rest && looksLikeAuthors(first)) {
    const t = cleanTitle(firstSentence(rest));
    if (wordCount(t) >= 2) return t;
  }
  const t = cleanTitle(first);
  return looksLikeAuthors(first) ? "" : t;
}

/** Abbreviations whose full stop does not end a sentence. */
const ABBREVIATIONS = new Set(["al", "vs", "e.g", "i.e", "etc", "cf", "fig", "eq", "no", "vol", "pp", "proc", "conf", "jr", "sr", "st", "dr", "ed", "eds"]);

/** The text up to the first sentence end; initials ("A.") and abbreviations do not end one. */
export function firstSentence(s: string): string {
  const re = /[.?!](?=\s|$)/g;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (m[0] !== ".") return s.slice(0, m.index + 1);
    const word = /(\S+)$/.exec(s.slice(0, m.index))?.[1] ?? "";
    const bare = word.replace(/^[("'“]+/, "");
    if (/^\p{Lu}$/u.test(bare) || /^(?:\p{Lu}\.)+-?\p{Lu}$/u.test(bare) || ABBREVIATIONS.has(bare.toLowerCase())) continue;
    return s.slice(0, m.index);
  }
  return s;
}

function looksLikeAuthors(s: string): boolean {
  return /,|\band\b|&|\bet al\b/.test(s) || /(?:^|\s)\p{Lu}\.(?:\s|$)/u.test(s);
}

function cleanTitle(t: string): string {
  const out = t
    .replace(/\s+/g, " ")
    .replace(/^[\s"'“”‘’]+|[\s"'“”‘’,;:.]+$/g, "")
    .trim();
  return letterCount(out) >= 3 ? out : "";
}
