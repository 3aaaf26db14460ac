/**
 * Text utilities of the offline facet extractor: sentence splitting and the rewriting of a chosen
 * sentence into a concise facet item (opener stripping, list splitting). Its words
 * (extractorTokens, contentTokens) come from the text analyzer (lib/text/analyzer.ts).
 * Pure string code, no model: everything here runs in microseconds per abstract.
 */

/**
 * Words after which a period does not end a sentence. Lower-cased, without the final period.
 * Single capital letters (initials, "J. Smith") are handled separately.
 */
const ABBREVIATIONS = new Set([
  "e.g",
  "i.e",
  "etc",
  "et al",
  "al",
  "cf",
  "vs",
  "viz",
  "fig",
  "figs",
  "eq",
  "eqs",
  "sec",
  "secs",
  "tab",
  "no",
  "nos",
  "vol",
  "pp",
  "approx",
  "resp",
  "dr",
  "mr",
  "mrs",
  "ms",
  "prof",
  "st",
  "jr",
  "sr",
  "inc",
  "ltd",
  "co",
  "corp",
  "dept",
  "univ",
  "ch",
  "ref",
  "refs",
  "def",
  "thm",
  "esp",
  "incl",
  "w.r.t",
  "a.k.a",
  "u.s",
  "u.k",
]);

/**
 * Words that open sentences and do not follow an initial ("J. Smith"): after a lone capital they
 * mark a boundary, as in "for subtask B. We then…".
 */
const SENTENCE_OPENER =
  /^["'([]?(?:We|The|This|These|Our|In|It|To|For|However|Finally|Moreover|Furthermore|Additionally|Overall|As|Here|Then|Thus|Therefore|Experiments?|Results?)\b/;

/**
 * True when the text before a period ends with an abbreviation (so the period is not a
 * boundary). `after` is the text following the period's whitespace.
 */
function endsWithAbbreviation(before: string, after: string): boolean {
  const m = /(?:^|[\s(["'])((?:[A-Za-z]\.)*[A-Za-z]+)$/.exec(before);
  if (!m) return false;
  const word = m[1];
  if (/^[A-Z]$/.test(word)) return !SENTENCE_OPENER.test(after); // an initial: "J. Smith", "A. et al."
  return ABBREVIATIONS.has(word.toLowerCase()) || /^(?:[a-z]\.)+[a-z]$/i.test(word);
}

/** A half-open character range [start, end) of a text. */
export interface TextSpan {
  start: number;
  end: number;
}

/**
 * Sentence boundaries of text, as character offsets into it (so a sentence can be located and
 * highlighted in the original). A boundary is ".", "!" or "?" (optionally followed by closing
 * quotes or brackets) followed by whitespace and then an upper-case letter, digit, quote or
 * bracket — and not after an abbreviation. Decimals ("3.5") never match because a boundary
 * needs whitespace after the period. Blank lines between paragraphs always split. Spans are
 * trimmed of surrounding whitespace; empty ones are dropped.
 */
export function sentenceSpans(text: string): TextSpan[] {
  const out: TextSpan[] = [];
  const push = (start: number, end: number) => {
    while (start < end && /\s/.test(text[start])) start++;
    while (end > start && /\s/.test(text[end - 1])) end--;
    if (end > start) out.push({ start, end });
  };
  const paragraphs: [number, number][] = [];
  const paraRe = /\n\s*\n/g;
  let from = 0;
  let m: RegExpExecArray | null;
  while ((m = paraRe.exec(text)) !== null) {
    paragraphs.push([from, m.index]);
    from = m.index + m[0].length;
  }
  paragraphs.push([from, text.length]);
  for (const [ps, pe] of paragraphs) {
    const para = text.slice(ps, pe);
    let start = 0;
    const re = /[.!?]["')\]]*\s+(?=["'([]?[A-Z0-9])/g;
    while ((m = re.exec(para)) !== null) {
      if (para[m.index] === "." && endsWithAbbreviation(para.slice(start, m.index), para.slice(m.index + m[0].length))) continue;
      push(ps + start, ps + m.index + m[0].trimEnd().length);
      start = m.index + m[0].length;
    }
    push(ps + start, pe);
  }
  return out;
}

/** Splits text into sentences (see sentenceSpans), each with its whitespace collapsed. */
export function splitSentences(text: string): string[] {
  return sentenceSpans(text).map((s) => text.slice(s.start, s.end).replace(/\s+/g, " "));
}

// ---------------------------------------------------------------------------------------------
// Rewriting a sentence into an item

/**
 * Leading phrases that carry no content ("In this paper, we propose ..."). Applied repeatedly,
 * longest first, so "In this paper, we first propose" and "Here, we show that" both reduce to
 * the content. The audit of the paper flags meta-descriptions ("The paper addresses...",
 * "The authors..."); stripping these openers is what keeps offline items from being flagged.
 */
const OPENERS: RegExp[] = [
  /^(?:in|within|throughout) (?:this|the present|our|the) (?:paper|work|study|article|thesis|note|abstract|report|contribution|position paper|short paper|demo(?:nstration)?(?: paper)?)\s*,?\s*/i,
  /^(?:this|the present|our) (?:paper|work|study|article|thesis|note|report|demo(?:nstration)?(?: paper)?|short paper|position paper)\s+(?:also\s+)?(?:presents?|proposes?|introduces?|describes?|reports?(?: on)?|investigates?|explores?|examines?|addresses(?: the problem of)?|focuses on|discusses|studies|tackles|deals with|considers|shows?|demonstrates?|aims (?:at|to)|attempts to|provides?|analy[sz]es|evaluates?|compares?|outlines?|summari[sz]es)\s+(?:that\s+|how\s+)?/i,
  /^\((?:i{1,3}|iv|vi{0,3}|ix|x|[a-h]|[1-9])\)\s*/i,
  /^(?:yet|however|but|although|though|nevertheless|nonetheless|unfortunately|recently|traditionally|currently|typically|in practice|in contrast)\s*,\s*/i,
  /^(?:here|first|firstly|second|secondly|third|finally|additionally|moreover|furthermore|in addition|to this end|to that end|specifically|concretely|in particular|as a result|consequently|therefore|thus|hence|overall|importantly|in summary|in sum|to sum up|in short|then|next|also|besides|lastly|further|instead|to address (?:this|these)(?: (?:issue|problem|challenge|limitation)s?)?|to (?:tackle|solve|overcome|alleviate|mitigate) (?:this|these)(?: (?:issue|problem|challenge|limitation)s?)?)\s*,\s*/i,
  /^we\s+(?:first\s+|also\s+|then\s+|further\s+|additionally\s+|empirically\s+|experimentally\s+|systematically\s+|thoroughly\s+|finally\s+)?(?:propose|present|introduce|describe|develop|design|report(?: on)?|investigate|explore|examine|study|address|tackle|consider|discuss|focus on|outline|offer|provide|build|construct|create|release|collect|compile|adopt|apply|employ|extend|use|define|formulate|analy[sz]e|evaluate|compare|show|demonstrate|find|observe|argue|conduct|perform|achieve|obtain|train|test|experiment with|make|contribute|leverage|exploit|implement|annotate|present and evaluate)(?:e?d)?\s+(?:that\s+|how\s+|here\s+)?/i,
  /^(?:our|the|experimental|empirical|evaluation|experiment)?\s*(?:experimental |empirical |evaluation |experiment )?(?:results?|experiments?|evaluations?|analys[ie]s|findings|studies|observations)\s+(?:on [^,]{1,60}\s+)?(?:also\s+)?(?:show|shows|showed|demonstrate|demonstrates|demonstrated|indicate|indicates|indicated|suggest|suggests|suggested|reveal|reveals|revealed|confirm|confirms|confirmed|prove|proves|illustrate|illustrates)\s+(?:that\s+)?/i,
  /^(?:it is|it was)\s+(?:shown|found|demonstrated|observed|argued|proposed|suggested|claimed)\s+that\s+/i,
  /^here,?\s+(?=we\s)/i,
  /^(?:the authors|the paper|this paper)\s+/i,
];

/** Strips content-free openers (repeatedly) and capitalises what remains. */
export function stripOpener(sentence: string): string {
  let s = sentence.trim();
  for (let guard = 0; guard < 6; guard++) {
    const before = s;
    for (const re of OPENERS) {
      const m = re.exec(s);
      // Never strip a sentence down to a fragment too short to stand as an item.
      if (m && s.length - m[0].length >= 15) s = s.slice(m[0].length);
    }
    if (s === before) break;
  }
  return capitalise(s);
}

function capitalise(s: string): string {
  return s.length > 0 ? s[0].toUpperCase() + s.slice(1) : s;
}

/**
 * Splits a sentence that enumerates parallel clauses into separate items: at ";" and at
 * ", and we"/", while we"/", which allows" style clause boundaries. Short pieces are merged
 * back, so a list of noun phrases ("A, B and C") stays one item unless its parts are long
 * enough (>= minWords words each) to stand as items on their own.
 */
export function splitList(sentence: string, minWords = 6): string[] {
  const raw = sentence
    .split(/\s*;\s*|,\s+(?:and|while|whereas|but)\s+(?=we\b|it\b|our\b|they\b|this\b|these\b)|,\s+and\s+(?:then\s+)?(?=(?:we|it)\s)/i)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  if (raw.length <= 1) return [sentence.trim()];
  const words = (p: string) => p.split(/\s+/).length;
  const merged: string[] = [];
  for (const p of raw) {
    if (merged.length > 0 && (words(p) < minWords || words(merged[merged.length - 1]) < minWords)) {
      merged[merged.length - 1] = `${merged[merged.length - 1]}, ${p}`;
    } else merged.push(p);
  }
  return merged.map((p) => capitalise(p.replace(/^(?:and|but|while|whereas)\s+/i, "")));
}

/** Normalises an item: trims, removes a trailing colon, ensures final punctuation. */
export function finishItem(item: string): string {
  let s = item
    .trim()
    .replace(/\s+/g, " ")
    .replace(/[,:;]+$/, "");
  if (s && !/[.!?]["')\]]*$/.test(s)) s += ".";
  return capitalise(s);
}
