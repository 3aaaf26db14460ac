/**
 * The query item's own words as decoder input (issue 31, `tokens` conditioning): the item
 * normalised and tokenised exactly like a DocID (normalizeFacetItem, Llama-3, lib/genret/docid.ts)
 * and mapped to the same compact vocabulary, so an input token and an output token share one
 * id and one (tied) embedding and the decoder can copy a query's terms into the DocIDs it writes.
 *
 * Tokens outside the compact vocabulary are dropped, not mapped to an UNK id: the decoder can
 * never emit them (the tries hold DocID tokens only), an UNK id would add an output row that no
 * target uses and change the shipped vocabulary, and the compact vocabulary is built from the
 * first 12 tokens of every item, so the in-vocabulary share of item tokens is high (the pack
 * header counts what was dropped).
 */
import { leadingTokens, normalizeFacetItem } from "./docid";
import { PAD } from "./vocab";

/** Item tokens fed to the decoder at most (the first ones of the item's text; ~1.6 DocIDs' worth). */
export const ITEM_MAX_TOKENS = 32;

export interface ItemTokens {
  /** Compact ids, in text order, at most maxTokens of them. */
  ids: number[];
  /** Tokens of the first maxTokens that were outside the vocabulary. */
  dropped: number;
}

/**
 * An item's first `maxTokens` Llama-3 tokens (after DocID normalisation) as compact ids,
 * dropping those outside the vocabulary (`compact`: Llama-3 id → compact id, vocab.ts compactIndex).
 */
export function itemTokenIds(text: string, compact: ReadonlyMap<number, number>, maxTokens: number = ITEM_MAX_TOKENS): ItemTokens {
  const ids: number[] = [];
  let dropped = 0;
  for (const t of leadingTokens(normalizeFacetItem(text), maxTokens).tokens) {
    const c = compact.get(t);
    if (c === undefined) dropped += 1;
    else ids.push(c);
  }
  return { ids, dropped };
}

/** Writes `ids` into row `row` of a PAD-filled [rows, maxTokens] array. */
export function setItemRow(out: Int32Array, row: number, ids: readonly number[], maxTokens: number): void {
  const at = row * maxTokens;
  for (let k = 0; k < maxTokens; k++) out[at + k] = k < ids.length ? ids[k] : PAD;
}
