/**
 * The lexical patterns of the audit (paper, Appendix "Facet Extraction and Validation"): five
 * meta-description patterns ("The paper addresses…", "The authors…"), fifteen boilerplate
 * patterns ("state-of-the-art", "extensive experiments"), and the specific-token classes
 * (numbers, proper nouns, acronyms, hyphenated technical terms). The paper names the pattern
 * counts and two examples of each, not the lists: these are ours, written to those examples.
 */

/** An item is meta-descriptive when it opens by describing the paper instead of its content. */
export const META_PATTERNS: readonly RegExp[] = [
  // "The paper addresses…", "This work proposes…", "Our study shows…"
  /^(?:the|this|our|that|the present) (?:paper|article|work|study|thesis|research|manuscript|submission|report|chapter|abstract)s?\b/i,
  // "The authors propose…", "Authors evaluate…" (not "Author profiling…" or "Authors are sensitive to…")
  /^the authors?\b|^authors (?:propose|present|introduce|describe|show|find|argue|investigate|study|develop|evaluate|report|demonstrate|explore|examine|address)\b/i,
  // "In this paper, …", "Throughout the work …"
  /^(?:in|within|throughout) (?:this|the|our|the present) (?:paper|article|work|study|thesis|research|abstract)\b/i,
  // "We propose…": the first person narrates the paper rather than stating the content.
  /^we (?:propose|present|introduce|describe|address|investigate|study|explore|examine|discuss|report|show|demonstrate|focus|aim|develop|provide|argue|consider|tackle|evaluate|analy[sz]e)\b/i,
  // "Here, we…", "It is shown that…"
  /^(?:here|herein),? (?:we|the authors?|it is)\b|^it (?:is|was) (?:shown|argued|proposed|demonstrated|found|observed) that\b/i,
];

export function isMetaDescription(item: string): boolean {
  const s = item.trim();
  return META_PATTERNS.some((re) => re.test(s));
}

/** Phrases that fit any paper. Each counts once per item however often it occurs. */
export const BOILERPLATE_PATTERNS: readonly RegExp[] = [
  /\bstate[- ]of[- ]the[- ]art\b/i,
  /\bextensive (?:experiment|evaluation|analys[ie]s|stud(?:y|ies))/i,
  /\b(?:significant(?:ly)?|substantial(?:ly)?) (?:improv|outperform|better|gain|boost)/i,
  /\boutperform\w* (?:the )?(?:existing|previous|prior|baseline|strong|competitive|several|other|current|conventional|traditional)\b/i,
  /\bpromising (?:results?|performance|direction)/i,
  /\bnovel (?:approach|method|framework|model|technique|architecture|algorithm|system)/i,
  /\b(?:effective|efficient)(?:ness|ly)? and (?:efficien|effective|robust|scalab)/i,
  /\bcomprehensive (?:experiment|evaluation|analys[ie]s|stud(?:y|ies))/i,
  /\bcompetitive (?:performance|results?|accuracy)/i,
  /\bsuperior (?:performance|results?|accuracy)/i,
  /\b(?:several|multiple|various|many) (?:benchmark|public|standard|real-world)? ?(?:datasets?|benchmarks|tasks)\b/i,
  /\breal[- ]world (?:applications?|scenarios?|settings?|problems?)/i,
  /\b(?:a )?wide (?:range|variety) of\b/i,
  /\b(?:experimental|empirical) results (?:show|demonstrate|indicate|suggest|confirm)/i,
  /\b(?:future|further) (?:research|work|directions?)\b/i,
];

export function boilerplateMatches(item: string): number {
  return BOILERPLATE_PATTERNS.reduce((n, re) => n + (re.test(item) ? 1 : 0), 0);
}

/** Hyphenated phrases that are boilerplate, not technical terms. */
const GENERIC_HYPHENATED = new Set(["state-of-the-art", "real-world", "well-known", "so-called", "large-scale", "high-quality", "fine-grained", "end-to-end"]);

/**
 * Tokens that make an item specific: numbers ("3.2", "90%"), acronyms (two or more capitals:
 * "BERT", "GPT-3"), proper nouns (a capitalised word that does not open a sentence), and
 * hyphenated technical terms ("sequence-to-sequence"). Each token counts once.
 */
export function specificTokens(item: string): string[] {
  const out: string[] = [];
  const re = /[A-Za-z0-9]+(?:[-'.][A-Za-z0-9]+)*%?/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(item)) !== null) {
    const tok = m[0];
    const before = item.slice(0, m.index).trimEnd();
    const opensSentence = before === "" || /[.!?:;]["')\]]*$/.test(before);
    const isNumber = /\d/.test(tok);
    const isAcronym = (tok.match(/[A-Z]/g)?.length ?? 0) >= 2;
    const isProper = /^[A-Z][a-z]/.test(tok) && !opensSentence;
    const isHyphenated = tok.includes("-") && !GENERIC_HYPHENATED.has(tok.toLowerCase());
    if (isNumber || isAcronym || isProper || isHyphenated) out.push(tok);
  }
  return out;
}
