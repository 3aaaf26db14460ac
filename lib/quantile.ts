/**
 * Quantiles of sorted values, one function per definition (they differ on purpose, and each
 * caller keeps its own): linear interpolation for reported statistics (numpy's default, the
 * bootstrap interval and the facet audit), the value at index ⌊q·n⌋ for robust cut-offs in the
 * input parsers, and nearest rank for latency percentiles (as load-testing tools report them).
 * All take values sorted ascending (`ascending`) and give NaN for none.
 */

/** A sorted copy (ascending, numerically). */
export function ascending(values: Iterable<number>): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Linear interpolation between the two closest ranks (numpy's default "linear" method). */
export function quantileLinear(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** The value at index ⌊q·n⌋ (the largest for q = 1), no interpolation: the upper middle value for q = 0.5. */
export function quantileAtIndex(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Nearest rank: the ⌈q·n⌉-th smallest value (the smallest for q = 0): the lower middle value for q = 0.5. */
export function quantileNearestRank(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
