import { z } from "zod";

/**
 * Grounding evidence of a facet item (ItemAudit.evidence, written by the audit stage): the
 * best-matching passages of its paper, `[{text, score, start, end}]`, where start/end are
 * character offsets into the abstract. The rating view highlights them in the abstract.
 */

export interface EvidenceSnippet {
  /** 1 = best match. */
  rank: number;
  text: string;
  score: number | null;
  start: number | null;
  end: number | null;
}

const snippet = z.object({
  text: z.string(),
  score: z.number().nullish(),
  start: z.number().int().nonnegative().nullish(),
  end: z.number().int().nonnegative().nullish(),
});

/** The stored JSON as snippets; malformed or missing evidence reads as none (it is advisory). */
export function parseEvidence(json: string | null | undefined): EvidenceSnippet[] {
  if (!json) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  const out: EvidenceSnippet[] = [];
  for (const entry of raw) {
    const r = snippet.safeParse(entry);
    if (r.success && r.data.text.trim() !== "")
      out.push({ rank: out.length + 1, text: r.data.text, score: r.data.score ?? null, start: r.data.start ?? null, end: r.data.end ?? null });
  }
  return out;
}

export interface EvidenceRange {
  rank: number;
  start: number;
  end: number;
}

/**
 * Where each snippet lies in `text`: its offsets when they are in range, otherwise the first
 * exact occurrence of its text (offsets computed against another version of the abstract would
 * highlight the wrong words). Snippets found nowhere are left out.
 */
export function locateEvidence(text: string, snippets: readonly EvidenceSnippet[]): EvidenceRange[] {
  const out: EvidenceRange[] = [];
  for (const s of snippets) {
    if (s.start !== null && s.end !== null && s.start < s.end && s.end <= text.length) {
      const slice = text.slice(s.start, s.end);
      // Offsets are trusted when they cover the snippet's words (whitespace may differ).
      if (norm(slice) === norm(s.text) || !text.includes(s.text.trim())) {
        out.push({ rank: s.rank, start: s.start, end: s.end });
        continue;
      }
    }
    const needle = s.text.trim();
    const at = needle ? text.indexOf(needle) : -1;
    if (at >= 0) out.push({ rank: s.rank, start: at, end: at + needle.length });
  }
  return out;
}

const norm = (s: string) => s.replace(/\s+/g, " ").trim();

export interface Segment {
  text: string;
  /** Ranks of the snippets covering this stretch (empty = plain text). */
  ranks: number[];
}

/** Splits `text` at every range boundary so overlapping highlights render as flat segments. */
export function highlightSegments(text: string, ranges: readonly EvidenceRange[]): Segment[] {
  const cuts = new Set([0, text.length]);
  for (const r of ranges) {
    cuts.add(Math.max(0, Math.min(text.length, r.start)));
    cuts.add(Math.max(0, Math.min(text.length, r.end)));
  }
  const points = [...cuts].sort((a, b) => a - b);
  const segments: Segment[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const [a, b] = [points[i], points[i + 1]];
    if (a === b) continue;
    const ranks = ranges
      .filter((r) => r.start <= a && r.end >= b)
      .map((r) => r.rank)
      .sort((x, y) => x - y);
    const prev = segments[segments.length - 1];
    if (prev && prev.ranks.join() === ranks.join()) prev.text += text.slice(a, b);
    else segments.push({ text: text.slice(a, b), ranks });
  }
  return segments;
}
