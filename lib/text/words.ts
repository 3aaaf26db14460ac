/**
 * The word runs and stopwords that the lexical item similarity (lib/graph/lexical.ts) and the LSA
 * encoder (lib/embed/lsa.ts) both index by: one list, so the two read a text the same way.
 */

/** English function words plus a few words every scientific sentence uses; dropped before weighting. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below between both but by " +
    "can could did do does doing down during each either etc few for from further had has have having he her here hers him his how " +
    "i if in into is it its itself just may me might more most much must my no nor not now of off on once only or other our ours " +
    "out over own same she should so some such than that the their theirs them themselves then there these they this those through " +
    "thus to too under until up upon us very via was we well were what when where whether which while who whom whose why will with " +
    "within without would yet you your"
  ).split(" "),
);

/** Runs of letters and digits (any script); match against lowercased text. */
export const WORD = /[\p{L}\p{N}]+/gu;
