/**
 * Distant supervision: which units of an abstract an LLM facet item was drawn from, by content
 * token overlap (a cheap ROUGE-1-like score, no embedding). Used to make training labels and,
 * in tests, as a lexical proxy of item agreement.
 */
import { contentTokens } from "@/lib/text";

/** Share of the item's content tokens found in the unit, and of the unit's found in the item. */
export function overlap(item: string, unit: string): { recall: number; precision: number; f1: number } {
  const a = new Set(contentTokens(item));
  const b = new Set(contentTokens(unit));
  if (a.size === 0 || b.size === 0) return { recall: 0, precision: 0, f1: 0 };
  let common = 0;
  for (const t of a) if (b.has(t)) common++;
  const recall = common / a.size;
  const precision = common / b.size;
  return { recall, precision, f1: common === 0 ? 0 : (2 * recall * precision) / (recall + precision) };
}

/** An item counts as drawn from a unit when it shares at least this F1 with it... */
export const LABEL_MIN_F1 = 0.25;
/** ...and is that item's best unit, or within this ratio of the best one (items span clauses). */
export const LABEL_NEAR_BEST = 0.75;

/**
 * Labels units for one facet: unit j is positive when some item of the facet was drawn from it.
 * Returns one boolean per unit.
 */
export function labelUnits(items: readonly string[], units: readonly string[]): boolean[] {
  const pos = units.map(() => false);
  for (const item of items) {
    const scores = units.map((u) => overlap(item, u).f1);
    const best = Math.max(0, ...scores);
    if (best < LABEL_MIN_F1) continue;
    scores.forEach((s, j) => {
      if (s >= LABEL_MIN_F1 && s >= LABEL_NEAR_BEST * best) pos[j] = true;
    });
  }
  return pos;
}
