/**
 * Sparse binary features of a unit for the sentence-role classifier. Named string features
 * (not hashed), so the committed model is a small dictionary and a weight can be read.
 *
 *   w:<tok>        unigram (lower-cased)
 *   b:<tok> <tok>  bigram
 *   s:<tok>, s2:<tok tok>  the first one / two words: openers ("we propose", "results show") are
 *                  the strongest role cues and mean more at the start than anywhere else
 *   pos:*          position of the sentence in its source (first, second, last, middle...)
 *   len:*, num, pct, cl:*  length bucket, has a number, has a percentage, clause position
 *   tt:0-3         how much of the title the unit restates (none, ≤ 1/4, ≤ 1/2, more)
 */
import type { Unit } from "./units";
import { extractorTokens } from "@/lib/text/analyzer";

export function unitFeatures(u: Unit): string[] {
  const toks = extractorTokens(u.text);
  const f = new Set<string>();
  f.add("bias");
  for (const t of toks) f.add(`w:${/^\d/.test(t) ? "<num>" : t}`);
  for (let i = 0; i + 1 < toks.length; i++) f.add(`b:${toks[i]} ${toks[i + 1]}`);
  if (toks.length > 0) f.add(`s:${toks[0]}`);
  if (toks.length > 1) f.add(`s2:${toks[0]} ${toks[1]}`);
  if (toks.length > 2) f.add(`s3:${toks[0]} ${toks[1]} ${toks[2]}`);

  const { sentence: i, sentences: n } = u;
  const src = u.source[0]; // "t" | "a" | "b"
  f.add(`src:${src}`);
  // A title's position and length say nothing about its role; its words and the source do.
  if (u.source === "title") {
    for (const t of toks) f.add(`tw:${t}`);
    return [...f];
  }
  if (i === 0) f.add(`pos:${src}:first`);
  if (i === 1) f.add(`pos:${src}:second`);
  if (i === n - 1) f.add(`pos:${src}:last`);
  if (i === n - 2 && n > 2) f.add(`pos:${src}:penult`);
  f.add(`pos:${src}:rel${Math.min(4, Math.floor((5 * i) / Math.max(1, n)))}`);
  f.add(`n:${Math.min(n, 10)}`);
  f.add(`len:${toks.length < 8 ? "s" : toks.length < 20 ? "m" : toks.length < 35 ? "l" : "xl"}`);
  if (/\d/.test(u.text)) f.add("num");
  if (/%|\bpercent|\bpoints?\b|\bBLEU\b|\bF1\b|\baccuracy\b/i.test(u.text)) f.add("pct");
  if (u.clauses > 1) f.add(u.clause === 0 ? "cl:first" : "cl:later");
  f.add(`tt:${u.titleShare === 0 ? 0 : u.titleShare <= 0.25 ? 1 : u.titleShare <= 0.5 ? 2 : 3}`);
  return [...f];
}
