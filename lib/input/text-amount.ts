/**
 * How much text a pasted or uploaded paper must have. Client-safe (no Node APIs): the explorer's
 * paste box enforces the same minimum, counted the same way, before anything is sent.
 */

/** Roughly one sentence: less cannot describe a problem, a method and a result. */
export const DEFAULT_MIN_CHARS = 100;

/** The characters that count towards the minimum: each run of white space counts as one. */
export function countedChars(text: string): number {
  return text.replace(/\s+/g, " ").trim().length;
}
