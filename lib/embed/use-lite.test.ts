import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { dot } from "./types";
import { USE_LITE_DIM, USE_LITE_ID, createUseLiteEmbedder, loadUseLiteModel } from "./use-lite";

describe("USE-lite embedder (bundled weights, offline)", () => {
  test("512-d unit vectors, one per text, in order", async () => {
    const e = await createUseLiteEmbedder();
    assert.equal(e.dim, USE_LITE_DIM);
    assert.match(e.id, /^use-lite@\d+\.\d+\.\d+$/);
    assert.equal(e.id, USE_LITE_ID);
    const texts = ["a parser for dependency trees", "word alignment", "BLEU improves by 2 points"];
    const v = await e.embed(texts);
    assert.equal(v.length, 3);
    for (const row of v) {
      assert.ok(row instanceof Float32Array);
      assert.equal(row.length, 512);
      assert.ok(Math.abs(Math.sqrt(dot(row, row)) - 1) < 1e-5);
    }
    // Order: each row equals the text's own vector.
    const [second] = await e.embed([texts[1]]);
    assert.ok(dot(second, v[1]) > 0.99999);
    assert.deepEqual(await e.embed([]), []);
  });

  test("related sentences score higher than unrelated ones", async () => {
    const e = await createUseLiteEmbedder();
    const [nmt, paraphrase, protein] = await e.embed(["neural machine translation", "translating text with neural networks", "protein folding"]);
    const related = dot(nmt, paraphrase);
    const unrelated = dot(nmt, protein);
    assert.ok(related > unrelated + 0.2, `related ${related.toFixed(3)} vs unrelated ${unrelated.toFixed(3)}`);
  });

  test("texts without tokens still get one unit vector each, wherever they are", async () => {
    const e = await createUseLiteEmbedder();
    for (const batch of [[""], ["a parser", ""], ["", "a parser", ""]]) {
      const v = await e.embed(batch);
      assert.equal(v.length, batch.length);
      for (const row of v) assert.ok(Math.abs(Math.sqrt(dot(row, row)) - 1) < 1e-5);
    }
    const [empty, space] = await e.embed(["", " "]);
    assert.deepEqual(empty, space);
  });

  test("deterministic: the same input gives the same vectors; the model is loaded once", async () => {
    assert.equal(loadUseLiteModel(), loadUseLiteModel());
    const e = await createUseLiteEmbedder();
    const texts = Array.from({ length: 40 }, (_, i) => `statement ${i} about sequence labelling`);
    const a = await e.embed(texts);
    const b = await e.embed(texts);
    assert.deepEqual(a, b);
  });
});
