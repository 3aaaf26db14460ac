import assert from "node:assert/strict";
import { test } from "node:test";
import { PackedTexts, PackedTextsBuilder } from "./packed-texts";

test("packed texts: every text decodes to the original, whatever its characters", () => {
  const texts = [
    "",
    "plain ASCII",
    "Schütze, naïve α-smoothing — 28.4 BLEU",
    "日本語の係り受け解析",
    "emoji 🧪 and a pair \ud83d\ude00",
    "a lone high surrogate \ud800 here",
    "a lone low surrogate \udc00",
    "",
    "x".repeat(100_000),
    "\u0000 nul and \n newline",
  ];
  const packed = PackedTexts.from(texts);
  assert.equal(packed.length, texts.length);
  texts.forEach((t, i) => assert.equal(packed.at(i), t, `text ${i}`));
  assert.deepEqual(packed.slice(2, 5), texts.slice(2, 5));
  assert.deepEqual(packed.slice(0, texts.length), texts);
  assert.deepEqual(packed.slice(4, 4), []);
  assert.equal(packed.at(-1), "", "outside the texts reads as an empty text");
  assert.equal(packed.at(texts.length), "");
});

test("packed texts: the builder grows past its first buffers, and holds no slack after finish", () => {
  const b = new PackedTextsBuilder();
  const texts = Array.from({ length: 5000 }, (_, i) => `item ${i}: ${"é".repeat(i % 37)}`);
  for (const t of texts) b.push(t);
  const packed = b.finish();
  texts.forEach((t, i) => assert.equal(packed.at(i), t));
  const utf8 = texts.reduce((n, t) => n + Buffer.byteLength(t, "utf8"), 0);
  assert.equal(packed.byteLength, utf8 + texts.length * 8, "the UTF-8 bytes and one end offset per text");
});

test("packed texts: texts across many chunks, one larger than a chunk, read back exact", () => {
  const big = "ü".repeat(3 << 20); // 6 MiB of UTF-8: more than one chunk
  const texts = [
    ...Array.from({ length: 40_000 }, (_, i) => `abstract ${i} ${"word ".repeat(i % 50)}`),
    big,
    "",
    "after the big one",
    ...Array.from({ length: 1000 }, (_, i) => `tail ${i}`),
  ];
  const packed = PackedTexts.from(texts);
  texts.forEach((t, i) => assert.equal(packed.at(i), t, `text ${i}`));
});
