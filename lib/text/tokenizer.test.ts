import assert from "node:assert/strict";
import { test } from "node:test";
import { LLAMA3_VOCAB_SIZE, decodeTokens, encodeDocIdTokens, getLlama3Tokenizer, llama3SpecialIds } from "./tokenizer";

test("tokenizer is a cached singleton", () => {
  assert.equal(getLlama3Tokenizer(), getLlama3Tokenizer());
});

test("encodes Llama-3 ids without BOS/EOS", () => {
  // Reference ids of the Llama-3 tokenizer (same as HF `add_special_tokens=False`).
  assert.deepEqual(encodeDocIdTokens("Hello, my dog is cute"), [9906, 11, 856, 5679, 374, 19369]);
  assert.deepEqual(encodeDocIdTokens(""), []);
});

test("special ids and vocabulary size", () => {
  assert.deepEqual(llama3SpecialIds(), { bos: 128000, eos: 128001, eot: 128009 });
  assert.equal(getLlama3Tokenizer().model.vocab.length, LLAMA3_VOCAB_SIZE);
});

test("special-token strings in text stay plain text", () => {
  const ids = encodeDocIdTokens("x <|end_of_text|> y");
  assert.ok(
    ids.every((id) => id < 128000),
    `got ${ids.join(",")}`,
  );
  assert.equal(decodeTokens(ids), "x <|end_of_text|> y");
});

test("decode is exact: no space clean-up, lossless round trip", () => {
  for (const s of ["a , b 's", "  two  spaces\ttab ", "café naïve — “quoted” 中文 🙂", "x\n\ny"]) {
    assert.equal(decodeTokens(encodeDocIdTokens(s)), s);
  }
  assert.equal(decodeTokens(new Int32Array([9906, 11])), "Hello,");
});
