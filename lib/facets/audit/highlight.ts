/**
 * Cuts a text into segments at the boundaries of highlighted spans (grounding evidence), so a
 * component can render each segment once with every span that covers it. Pure; spans may
 * overlap, nest, or fall partly outside the text (they are clipped).
 */

export interface Mark<T = unknown> {
  start: number;
  end: number;
  data: T;
}

export interface Segment<T = unknown> {
  start: number;
  end: number;
  text: string;
  /** Marks covering this segment, in input order. */
  marks: Mark<T>[];
}

export function segmentText<T>(text: string, marks: readonly Mark<T>[]): Segment<T>[] {
  const valid = marks
    .map((m) => ({ ...m, start: Math.max(0, Math.min(text.length, m.start)), end: Math.max(0, Math.min(text.length, m.end)) }))
    .filter((m) => m.end > m.start);
  const cuts = new Set<number>([0, text.length]);
  for (const m of valid) {
    cuts.add(m.start);
    cuts.add(m.end);
  }
  const points = [...cuts].sort((a, b) => a - b);
  const out: Segment<T>[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const start = points[i];
    const end = points[i + 1];
    if (end <= start) continue;
    out.push({ start, end, text: text.slice(start, end), marks: valid.filter((m) => m.start <= start && m.end >= end) });
  }
  return out;
}
