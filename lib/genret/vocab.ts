/**
 * The decoder's output vocabulary: the compact set of Llama-3 token ids that occur in the
 * corpus's DocIDs (issue: "The output vocabulary is the compact set of tokenizer ids that
 * occur in the corpus's DocIDs"). A softmax over ~10k ids instead of 128,256 is what makes
 * training from scratch on 2 CPU cores feasible; constrained decoding can never emit any
 * other token anyway, since the tries only hold DocID tokens.
 *
 * Compact id 0 is PAD (also the "no token yet" input), 1 is EOS, then the Llama-3 ids in
 * ascending order.
 */
import { readFileSync } from "node:fs";
import { FACETS } from "@/lib/corpus";
import type { DocIdIndex } from "./docid";

export const PAD = 0;
export const EOS = 1;
const FIRST_TOKEN = 2;

export interface CompactVocab {
  /** compact id -> Llama-3 id (entries 0 and 1 are -1: PAD and EOS are the model's own). */
  readonly llamaIds: Int32Array;
  readonly size: number;
}

export function buildCompactVocab(index: DocIdIndex): CompactVocab {
  const seen = new Set<number>();
  for (const f of FACETS) for (const ids of index.facets[f].identifiers) for (const t of ids) seen.add(t);
  return buildCompactVocabFromTokens(seen);
}

/** The compact vocabulary over any Llama-3 ids (duplicates allowed): PAD, EOS, then the distinct ids ascending. */
export function buildCompactVocabFromTokens(tokens: Iterable<number>): CompactVocab {
  const sorted = [...new Set(tokens)].sort((a, b) => a - b);
  const llamaIds = new Int32Array(sorted.length + FIRST_TOKEN);
  llamaIds[PAD] = -1;
  llamaIds[EOS] = -1;
  llamaIds.set(sorted, FIRST_TOKEN);
  return { llamaIds, size: llamaIds.length };
}

/** Llama-3 id -> compact id, for encoding identifiers. */
export function compactIndex(vocab: CompactVocab): Map<number, number> {
  const map = new Map<number, number>();
  for (let c = FIRST_TOKEN; c < vocab.size; c++) map.set(vocab.llamaIds[c], c);
  return map;
}

export function vocabFromJson(llamaIds: readonly number[]): CompactVocab {
  if (llamaIds[PAD] !== -1 || llamaIds[EOS] !== -1) throw new Error("vocab: entries 0 and 1 must be PAD and EOS (-1)");
  return { llamaIds: Int32Array.from(llamaIds), size: llamaIds.length };
}

/** vocab.json of a model directory: the compact vocabulary and the longest identifier in tokens. */
export function vocabFileJson(vocab: CompactVocab, maxTokens: number): string {
  return JSON.stringify({ llamaIds: Array.from(vocab.llamaIds), maxTokens });
}

export function readVocabFile(file: string): { vocab: CompactVocab; maxTokens: number } {
  const v = JSON.parse(readFileSync(file, "utf8")) as { llamaIds: number[]; maxTokens: number };
  return { vocab: vocabFromJson(v.llamaIds), maxTokens: v.maxTokens };
}
