/**
 * Candidate units: the pieces of a paper the classifier scores. A unit is a sentence of the
 * abstract, or a clause of it when the sentence splits into parallel clauses (splitList), so
 * one sentence like "We propose X; it improves Y by 3 points" can feed methods and results.
 * Body sentences (full text, when given) are used only when the abstract is missing or very
 * short: the model learnt from abstracts alone (the LLM facets were made from abstracts), so it
 * has no evidence on how body sentences rank against abstract ones; capped for speed.
 */
import { contentTokens } from "@/lib/text/analyzer";
import { splitList, splitSentences } from "./text";

export interface Unit {
  /** The text of the unit as it appears in the paper (before rewriting). */
  text: string;
  /** Index of its sentence within its source (abstract or body). */
  sentence: number;
  /** Number of sentences in that source. */
  sentences: number;
  /** Index of the clause within its sentence, and their count. */
  clause: number;
  clauses: number;
  source: "title" | "abstract" | "body";
  /**
   * Share of the title's content words the unit contains (0 for the title itself): the LLM's
   * contribution items name what the paper offers much as its title does, so a sentence that
   * restates the title is a likelier source of one.
   */
  titleShare: number;
}

/** Most body sentences considered: enough for intro and conclusion, bounded in cost. */
export const MAX_BODY_SENTENCES = 400;
/** Abstracts with fewer sentences than this are supplemented from the body. */
export const MIN_ABSTRACT_SENTENCES = 3;

function unitsOf(text: string, source: Unit["source"], limit: number, title: ReadonlySet<string>): Unit[] {
  const sents = splitSentences(text).slice(0, limit);
  const out: Unit[] = [];
  sents.forEach((s, i) => {
    const parts = splitList(s);
    parts.forEach((p, j) =>
      out.push({ text: p, sentence: i, sentences: sents.length, clause: j, clauses: parts.length, source, titleShare: titleShare(p, title) }),
    );
  });
  return out;
}

function titleShare(text: string, title: ReadonlySet<string>): number {
  if (title.size === 0) return 0;
  const words = new Set(contentTokens(text));
  let n = 0;
  for (const t of title) if (words.has(t)) n++;
  return n / title.size;
}

/**
 * Units of a paper: the title (a compact statement of the contribution more often than any
 * abstract sentence), the abstract's sentences/clauses, then the body's.
 */
export function paperUnits(paper: { title: string; abstract: string; body?: string | null }): Unit[] {
  const units: Unit[] = [];
  const title = paper.title.replace(/\s+/g, " ").trim();
  if (title) units.push({ text: title, sentence: 0, sentences: 1, clause: 0, clauses: 1, source: "title", titleShare: 0 });
  const titleWords = new Set(contentTokens(title));
  const abs = unitsOf(paper.abstract, "abstract", Number.POSITIVE_INFINITY, titleWords);
  units.push(...abs);
  const absSentences = abs.length ? abs[0].sentences : 0;
  if (absSentences < MIN_ABSTRACT_SENTENCES && paper.body && paper.body.trim()) {
    units.push(...unitsOf(paper.body, "body", MAX_BODY_SENTENCES, titleWords));
  }
  return units;
}
