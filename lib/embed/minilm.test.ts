import assert from "node:assert/strict";
import { cpSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { MINILM_DEFAULT_MODEL, createMiniLmEmbedder, hfOfflineFromEnv, inspectModelFolder, isLocalModelPath, resolveMiniLmSource } from "./minilm";
import { dot } from "./types";

// A random one-layer BERT in the transformers.js folder layout (scripts/fixtures/tiny-bert.ts).
const TINY_BERT = fileURLToPath(new URL("./fixtures/tiny-bert", import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), "graft-minilm-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

function copyFixture(name: string): string {
  const dir = path.join(tmp, name);
  cpSync(TINY_BERT, dir, { recursive: true });
  return dir;
}

const norm = (v: Float32Array) => Math.sqrt(dot(v, v));
const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

describe("MiniLM embedder, local folder (tiny random BERT fixture)", () => {
  test("loads the folder without network and returns unit vectors of the model's dim", async () => {
    const e = await createMiniLmEmbedder({ model: TINY_BERT, offline: true });
    try {
      assert.equal(e.dim, 32);
      assert.equal(e.id, `minilm:${TINY_BERT}`);
      const texts = ["neural machine translation", "a much longer sentence about protein folding and its many words", "x"];
      const v = await e.embed(texts);
      assert.equal(v.length, 3);
      for (const row of v) {
        assert.equal(row.length, 32);
        assert.ok(Math.abs(norm(row) - 1) < 1e-5);
      }
      assert.deepEqual(await e.embed([]), []);
    } finally {
      await e.close();
    }
  });

  test("identical texts give identical vectors; order and padding do not matter", async () => {
    const e = await createMiniLmEmbedder({ model: TINY_BERT });
    try {
      const long = "graph based dependency parsing with structured attention over many tokens";
      const v = await e.embed(["same text", long, "same text", "short"]);
      assert.deepEqual(v[0], v[2]);
      const [alone] = await e.embed(["same text"]);
      // Alone it has no padding; in the batch it was padded to the long text: masking must
      // make the two agree up to float rounding.
      assert.ok(maxDiff(alone, v[0]) < 1e-5);
      const [longAlone] = await e.embed([long]);
      assert.ok(maxDiff(longAlone, v[1]) < 1e-5);
      assert.ok(dot(v[0], v[3]) < 0.9999, "different texts must differ");
      assert.deepEqual(await e.embed(["same text", long]), await e.embed(["same text", long]));
    } finally {
      await e.close();
    }
  });

  test("long inputs are truncated, not rejected", async () => {
    const e = await createMiniLmEmbedder({ model: TINY_BERT, maxTokens: 16 });
    try {
      assert.match(e.id, /;max=16$/);
      const [v] = await e.embed([Array.from({ length: 500 }, (_, i) => `word${i}`).join(" ")]);
      assert.ok(Math.abs(norm(v) - 1) < 1e-5);
    } finally {
      await e.close();
    }
  });

  test("a folder with only the quantised weights file is used as q8", async () => {
    const dir = copyFixture("only-q8");
    renameSync(path.join(dir, "onnx/model.onnx"), path.join(dir, "onnx/model_quantized.onnx"));
    assert.equal(inspectModelFolder(dir).dtype, "q8");
    const e = await createMiniLmEmbedder({ model: dir });
    try {
      assert.equal(e.id, `minilm:${dir};q8`);
      assert.equal((await e.embed(["ok"]))[0].length, 32);
    } finally {
      await e.close();
    }
    assert.throws(() => inspectModelFolder(dir, "fp32"), /expected onnx\/model\.onnx/);
  });
});

describe("MiniLM model resolution and errors", () => {
  test("paths vs hub ids", () => {
    assert.equal(isLocalModelPath("/abs/model"), true);
    assert.equal(isLocalModelPath("./rel/model"), true);
    assert.equal(isLocalModelPath("~/models/x"), true);
    assert.equal(isLocalModelPath("a/b/c"), true);
    assert.equal(isLocalModelPath("sentence-transformers/all-MiniLM-L12-v2"), false);
    assert.equal(isLocalModelPath("all-MiniLM-L12-v2"), false);
  });

  test("GRAFT_HF_OFFLINE parsing", () => {
    assert.equal(hfOfflineFromEnv({}), false);
    assert.equal(hfOfflineFromEnv({ GRAFT_HF_OFFLINE: "1" }), true);
    assert.equal(hfOfflineFromEnv({ GRAFT_HF_OFFLINE: "true" }), true);
    assert.equal(hfOfflineFromEnv({ GRAFT_HF_OFFLINE: "0" }), false);
    assert.equal(hfOfflineFromEnv({ GRAFT_HF_OFFLINE: "" }), false);
  });

  test("missing folder", async () => {
    const missing = path.join(tmp, "nope");
    await assert.rejects(createMiniLmEmbedder({ model: missing }), new RegExp(`folder not found: ${missing}.*onnx/model\\.onnx`));
  });

  test("folder without tokenizer files", async () => {
    const dir = copyFixture("no-tokenizer");
    rmSync(path.join(dir, "tokenizer.json"));
    await assert.rejects(createMiniLmEmbedder({ model: dir }), /lacks tokenizer\.json/);
  });

  test("folder without an onnx file says what to get", async () => {
    const dir = copyFixture("no-onnx");
    rmSync(path.join(dir, "onnx"), { recursive: true });
    await assert.rejects(
      createMiniLmEmbedder({ model: dir }),
      /No ONNX weights in .*no-onnx\/onnx: expected onnx\/model\.onnx or onnx\/model_quantized\.onnx.*huggingface\.co/,
    );
  });

  test("offline with no local copy: what to download and where to put it", () => {
    const modelsDir = path.join(tmp, "empty-models");
    assert.throws(
      () => resolveMiniLmSource({ modelsDir, offline: true }),
      (err: Error) => {
        assert.match(err.message, /GRAFT_HF_OFFLINE is set/);
        assert.ok(err.message.includes(`https://huggingface.co/${MINILM_DEFAULT_MODEL}`), err.message);
        assert.ok(err.message.includes(path.join(modelsDir, MINILM_DEFAULT_MODEL)), err.message);
        assert.match(err.message, /config\.json, tokenizer\.json, tokenizer_config\.json and onnx\/model\.onnx/);
        return true;
      },
    );
    // Online, the same request resolves to a hub download into the models dir.
    const online = resolveMiniLmSource({ modelsDir, offline: false });
    assert.deepEqual(online, { kind: "hub", hubId: MINILM_DEFAULT_MODEL, modelsDir, dtype: "fp32", id: MINILM_DEFAULT_MODEL });
  });

  test("online without internet: the hub download is really attempted and its failure explained", async () => {
    const modelsDir = path.join(tmp, "download-target");
    await assert.rejects(createMiniLmEmbedder({ model: "acme/not-downloadable", modelsDir, offline: false }), (err: Error) => {
      assert.match(err.message, /^Could not load acme\/not-downloadable from https:\/\/huggingface\.co\/acme\/not-downloadable: /);
      assert.ok(err.message.includes(`into ${path.join(modelsDir, "acme/not-downloadable")} and set GRAFT_HF_OFFLINE=1`), err.message);
      return true;
    });
  });

  test("a hub id with a copy in the models dir loads offline under the hub id", async () => {
    const modelsDir = path.join(tmp, "models");
    cpSync(TINY_BERT, path.join(modelsDir, "acme/tiny-bert"), { recursive: true });
    const e = await createMiniLmEmbedder({ model: "acme/tiny-bert", modelsDir, offline: true });
    try {
      // Same identity as a hub download, so caches built online stay valid offline.
      assert.equal(e.id, "minilm:acme/tiny-bert");
      assert.equal(e.dim, 32);
    } finally {
      await e.close();
    }
  });
});
