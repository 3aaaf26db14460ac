/**
 * The facet audit's checks (paper, Appendix "Facet Extraction and Validation"), as pure
 * functions over one paper: structural checks on the strings, grounding and redundancy on
 * unit vectors (cosine = dot product), and the lexical specificity score.
 */
import { FACETS, type Facet } from "@/lib/corpus/types";
import { dot } from "@/lib/embed/types";
import { sentenceSpans, type TextSpan } from "../offline/text";
import { boilerplateMatches, isMetaDescription, specificTokens } from "./patterns";

// ── flags ──────────────────────────────────────────────────────────────────────────────────

/** Flags stored on an item (ItemAudit.flags). Facet- and paper-level ones are copied onto each item they concern. */
export const ITEM_FLAGS = [
  "empty",
  "too-short",
  "too-long",
  "too-many-sentences",
  "duplicate",
  "meta",
  "facet-too-many-items",
  "facet-meta",
  "paper-meta",
  "near-duplicate",
  "cross-facet-overlap",
  "ungrounded",
  "generic",
] as const;
export type ItemFlag = (typeof ITEM_FLAGS)[number];

/** The structural subset: what the paper counts as "issues" when it says 99% of papers have none. */
export const STRUCTURAL_FLAGS: readonly ItemFlag[] = [
  "empty",
  "too-short",
  "too-long",
  "too-many-sentences",
  "duplicate",
  "facet-too-many-items",
  "facet-meta",
  "paper-meta",
];

export const FACET_FLAGS = ["empty-facet", "too-many-items", "meta-facet"] as const;
export type FacetFlag = (typeof FACET_FLAGS)[number];

/** Human wording of each flag, for reports and the paper page. */
export const FLAG_LABELS: Record<ItemFlag | FacetFlag, string> = {
  empty: "empty item",
  "too-short": "under 10 characters",
  "too-long": "over 500 characters",
  "too-many-sentences": "more than 3 sentences",
  duplicate: "exact duplicate in its facet",
  meta: "meta-description (describes the paper, not its content)",
  "facet-too-many-items": "its facet has more than 5 items",
  "facet-meta": "its whole facet is meta-descriptive",
  "paper-meta": "more than half of the paper's items are meta-descriptive",
  "near-duplicate": "near-duplicate of another item of its facet",
  "cross-facet-overlap": "overlaps an item of another facet",
  ungrounded: "no passage of the paper is closer to it than a typical unrelated paper",
  generic: "generic phrasing",
  "empty-facet": "no items",
  "too-many-items": "more than 5 items",
  "meta-facet": "every item is meta-descriptive",
};

// ── structural ─────────────────────────────────────────────────────────────────────────────

/** The paper's lenient audit bounds (the prompt asks for 1-5 items of 1-2 sentences). */
export const STRUCTURAL_LIMITS = { maxItems: 5, minChars: 10, maxChars: 500, maxSentences: 3 } as const;

export type PaperFacets = Record<Facet, readonly string[]>;

export interface StructuralResult {
  /** Per facet, per item (in order), its structural flags. */
  items: Record<Facet, ItemFlag[][]>;
  facets: Record<Facet, FacetFlag[]>;
  /** More than half of the paper's items are meta-descriptive. */
  metaPaper: boolean;
  /** No structural flag on any item or facet. */
  ok: boolean;
}

/** Characters as a reader counts them (code points, not UTF-16 units), after trimming. */
export function charLength(s: string): number {
  let n = 0;
  for (const _ of s.trim()) n++;
  return n;
}

export function sentenceCount(s: string): number {
  return sentenceSpans(s).length;
}

export function structuralChecks(facets: PaperFacets): StructuralResult {
  const items = {} as Record<Facet, ItemFlag[][]>;
  const facetFlags = {} as Record<Facet, FacetFlag[]>;
  let total = 0;
  let meta = 0;
  for (const f of FACETS) {
    const list = facets[f] ?? [];
    const seen = new Set<string>();
    const flags = list.map((raw) => {
      const text = raw.trim();
      const out: ItemFlag[] = [];
      const n = charLength(text);
      if (n === 0) out.push("empty");
      else if (n < STRUCTURAL_LIMITS.minChars) out.push("too-short");
      if (n > STRUCTURAL_LIMITS.maxChars) out.push("too-long");
      if (sentenceCount(text) > STRUCTURAL_LIMITS.maxSentences) out.push("too-many-sentences");
      if (n > 0 && seen.has(text)) out.push("duplicate");
      seen.add(text);
      if (n > 0 && isMetaDescription(text)) out.push("meta");
      return out;
    });
    const ff: FacetFlag[] = [];
    if (list.length === 0) ff.push("empty-facet");
    if (list.length > STRUCTURAL_LIMITS.maxItems) ff.push("too-many-items");
    const metaHere = flags.filter((x) => x.includes("meta")).length;
    if (list.length > 0 && metaHere === list.length) ff.push("meta-facet");
    for (const x of flags) {
      if (ff.includes("too-many-items")) x.push("facet-too-many-items");
      if (ff.includes("meta-facet")) x.push("facet-meta");
    }
    total += list.length;
    meta += metaHere;
    items[f] = flags;
    facetFlags[f] = ff;
  }
  const metaPaper = total > 0 && meta * 2 > total;
  if (metaPaper) for (const f of FACETS) for (const x of items[f]) x.push("paper-meta");
  const ok = FACETS.every((f) => facetFlags[f].length === 0 && items[f].every((x) => !x.some((flag) => STRUCTURAL_FLAGS.includes(flag))));
  return { items, facets: facetFlags, metaPaper, ok };
}

// ── grounding ──────────────────────────────────────────────────────────────────────────────

/** Where a passage lies: offsets are into that field of the paper. */
export type PassageSource = "title" | "abstract" | "fullText";

/** A piece of the paper an item can be grounded in. */
export interface Passage extends TextSpan {
  source: PassageSource;
  /** The passage with its whitespace collapsed (what is embedded and shown); offsets locate the original. */
  text: string;
}

export interface Evidence extends TextSpan {
  text: string;
  /** Cosine of the item and the passage. */
  score: number;
  source: PassageSource;
}

export interface Grounding {
  /** Max cosine over the passages; null when the paper has no text. */
  grounding: number | null;
  /** The best passages, best first. */
  evidence: Evidence[];
}

/** Paragraphs of a text (blank-line separated), as trimmed spans. */
export function paragraphSpans(text: string): TextSpan[] {
  const out: TextSpan[] = [];
  const re = /\n\s*\n/g;
  let from = 0;
  const push = (start: number, end: number) => {
    while (start < end && /\s/.test(text[start])) start++;
    while (end > start && /\s/.test(text[end - 1])) end--;
    if (end > start) out.push({ start, end });
  };
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    push(from, m.index);
    from = m.index + m[0].length;
  }
  push(from, text.length);
  return out;
}

/** Most full-text paragraphs considered: bounds the embedding cost of a long paper. */
export const MAX_FULLTEXT_PARAGRAPHS = 400;

/**
 * The passages an item is grounded against. The paper takes paragraphs of the full text; an
 * abstract is a single paragraph, which would make the "best paragraph" the whole abstract and
 * say nothing about where an item comes from, so abstracts are split into sentences. The title
 * is a passage too: the extractor saw it, and contribution items often restate it.
 */
export function paperPassages(paper: { title: string; abstract: string; fullText?: string | null }): Passage[] {
  const out: Passage[] = [];
  const collapse = (t: string) => t.replace(/\s+/g, " ");
  const title = paper.title.trim();
  if (title) {
    const start = paper.title.indexOf(title);
    out.push({ source: "title", start, end: start + title.length, text: collapse(title) });
  }
  for (const s of sentenceSpans(paper.abstract)) out.push({ source: "abstract", ...s, text: collapse(paper.abstract.slice(s.start, s.end)) });
  if (paper.fullText) {
    for (const s of paragraphSpans(paper.fullText).slice(0, MAX_FULLTEXT_PARAGRAPHS)) {
      out.push({ source: "fullText", ...s, text: collapse(paper.fullText.slice(s.start, s.end)) });
    }
  }
  return out;
}

/** Rounds a cosine for storage: 4 decimals is far below any threshold's resolution. */
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/**
 * Each item's grounding: its max cosine over the passages, and the `top` best passages as
 * evidence (ties broken by position, so results are stable).
 */
export function groundingScores(
  itemVectors: readonly Float32Array[],
  passages: readonly Passage[],
  passageVectors: readonly Float32Array[],
  top = 3,
): Grounding[] {
  if (passages.length !== passageVectors.length) throw new Error(`${passages.length} passages but ${passageVectors.length} vectors`);
  return itemVectors.map((v) => {
    if (passages.length === 0) return { grounding: null, evidence: [] };
    const scored = passages.map((p, i) => ({ i, score: dot(v, passageVectors[i]) }));
    scored.sort((a, b) => b.score - a.score || a.i - b.i);
    const evidence = scored.slice(0, top).map(({ i, score }) => {
      const p = passages[i];
      return { text: p.text, score: round4(score), start: p.start, end: p.end, source: p.source };
    });
    return { grounding: round4(scored[0].score), evidence };
  });
}

// ── redundancy ─────────────────────────────────────────────────────────────────────────────

export const REDUNDANCY_THRESHOLDS = { intraFacet: 0.92, crossFacet: 0.9 } as const;

export interface ItemRef {
  facet: Facet;
  /** Position within its facet. */
  index: number;
}

export interface RedundantPair {
  a: ItemRef;
  b: ItemRef;
  score: number;
  kind: "near-duplicate" | "cross-facet-overlap";
}

/**
 * Near-duplicates (same facet, cosine > intraFacet) and overlaps (different facets, cosine >
 * crossFacet) among a paper's items. Both items of a pair get the flag.
 */
export function redundancyFlags(
  items: readonly (ItemRef & { vector: Float32Array })[],
  thresholds: { intraFacet: number; crossFacet: number } = REDUNDANCY_THRESHOLDS,
): { pairs: RedundantPair[]; flags: ItemFlag[][] } {
  const pairs: RedundantPair[] = [];
  const flags: ItemFlag[][] = items.map(() => []);
  const add = (i: number, flag: ItemFlag) => {
    if (!flags[i].includes(flag)) flags[i].push(flag);
  };
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const a = items[i];
      const b = items[j];
      const score = dot(a.vector, b.vector);
      const same = a.facet === b.facet;
      if (same ? score > thresholds.intraFacet : score > thresholds.crossFacet) {
        const kind = same ? "near-duplicate" : "cross-facet-overlap";
        pairs.push({ a: { facet: a.facet, index: a.index }, b: { facet: b.facet, index: b.index }, score: round4(score), kind });
        add(i, kind);
        add(j, kind);
      }
    }
  }
  return { pairs, flags };
}

// ── specificity ────────────────────────────────────────────────────────────────────────────

export interface Specificity {
  /** 1 − genericness, clamped to [0, 1]. */
  specificity: number;
  genericness: number;
  meta: boolean;
  boilerplate: number;
  specificTokens: number;
}

/**
 * The paper's lexical heuristic: a meta-description prefix adds 0.3 to genericness, each
 * boilerplate pattern matched 0.2 (capped at 0.5), each specific token takes 0.06 off (capped
 * at 0.3); specificity is one minus that, clamped to [0, 1] (the paper's mean of 0.998 implies
 * the clamp: most items have specific tokens and nothing generic).
 */
export function specificityScore(item: string): Specificity {
  const meta = isMetaDescription(item);
  const boilerplate = boilerplateMatches(item);
  const tokens = specificTokens(item).length;
  const genericness = (meta ? 0.3 : 0) + Math.min(0.5, 0.2 * boilerplate) - Math.min(0.3, 0.06 * tokens);
  const specificity = 1 - Math.min(1, Math.max(0, genericness));
  return { specificity: round4(specificity), genericness: round4(genericness), meta, boilerplate, specificTokens: tokens };
}
