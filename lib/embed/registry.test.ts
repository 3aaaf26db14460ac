import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { after } from "node:test";
import { fitLsa, saveLsaModel } from "./lsa";
import { createEmbedder, embedderSpecFromEnv, parseEmbedderSpec } from "./registry";

const TINY_BERT = fileURLToPath(new URL("./fixtures/tiny-bert", import.meta.url));

describe("parseEmbedderSpec", () => {
  test("valid specs", () => {
    assert.deepEqual(parseEmbedderSpec("use-lite"), { name: "use-lite" });
    assert.deepEqual(parseEmbedderSpec("  use-lite "), { name: "use-lite" });
    assert.deepEqual(parseEmbedderSpec(""), { name: "use-lite" });
    assert.deepEqual(parseEmbedderSpec("use-lite@0.2.0"), { name: "use-lite", version: "0.2.0" });
    assert.deepEqual(parseEmbedderSpec("minilm"), { name: "minilm" });
    assert.deepEqual(parseEmbedderSpec("minilm:sentence-transformers/all-MiniLM-L12-v2"), {
      name: "minilm",
      model: "sentence-transformers/all-MiniLM-L12-v2",
    });
    assert.deepEqual(parseEmbedderSpec("minilm:/models/x"), { name: "minilm", model: "/models/x" });
    // A path may contain colons after the first one.
    assert.deepEqual(parseEmbedderSpec("minilm:./a:b"), { name: "minilm", model: "./a:b" });
    assert.deepEqual(parseEmbedderSpec("minilm:./m;q8;max=256"), { name: "minilm", model: "./m", dtype: "q8", maxTokens: 256 });
    assert.deepEqual(parseEmbedderSpec("lsa:/models/acl"), { name: "lsa", folder: "/models/acl" });
    assert.deepEqual(parseEmbedderSpec(" lsa:./m ; fp=0a1b2c3d4e5f "), { name: "lsa", folder: "./m", fingerprint: "0a1b2c3d4e5f" });
  });

  test("invalid specs name the valid choices", () => {
    for (const bad of [
      "bert",
      "USE-lite",
      "use-lite:x",
      "use-lite@",
      "minilm:",
      "minilm@1:x",
      "minilm:x;fp16",
      "minilm:x;max=1",
      "lsa",
      "lsa:",
      "lsa@1:x",
      "lsa:x;fp=XYZ",
      "lsa:x;q8",
    ]) {
      assert.throws(() => parseEmbedderSpec(bad), /Valid embedders: "use-lite".*"minilm".*"lsa:<model folder>"/, bad);
    }
    assert.throws(() => parseEmbedderSpec("bert"), /Unknown embedder "bert"/);
  });

  test("GRAFT_EMBEDDER selects the spec, default use-lite", () => {
    assert.equal(embedderSpecFromEnv({}), "use-lite");
    assert.equal(embedderSpecFromEnv({ GRAFT_EMBEDDER: "  " }), "use-lite");
    assert.equal(embedderSpecFromEnv({ GRAFT_EMBEDDER: "minilm" }), "minilm");
  });
});

describe("createEmbedder", () => {
  test("use-lite by name and by its recorded id; a different version is refused", async () => {
    const e = await createEmbedder("use-lite");
    assert.equal(e.dim, 512);
    assert.equal((await createEmbedder(e.id)).id, e.id);
    await assert.rejects(createEmbedder("use-lite@9.9.9"), /not installed: this build has use-lite@/);
  });

  test("minilm from a local folder; its id re-creates it", async () => {
    const e = await createEmbedder(`minilm:${TINY_BERT}`);
    assert.equal(e.id, `minilm:${path.resolve(TINY_BERT)}`);
    assert.equal(e.dim, 32);
    const again = await createEmbedder(e.id);
    assert.deepEqual(await again.embed(["same text"]), await e.embed(["same text"]));
    await e.close?.();
    await again.close?.();
  });

  test("lsa from a model folder; its id re-creates it and pins the fit", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "graft-registry-lsa-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const texts = ["tree parser grammar", "parser treebank grammar", "speech audio pitch", "audio speech prosody", "tree grammar arcs"];
    saveLsaModel(dir, fitLsa(texts, { dims: 2, minDf: 1 }));
    const e = await createEmbedder(`lsa:${dir}`);
    assert.match(e.id, /^lsa:.*;fp=[0-9a-f]{12}$/);
    assert.equal(e.dim, 2);
    const again = await createEmbedder(e.id);
    assert.equal(again.id, e.id);
    assert.deepEqual(await again.embed(["grammar of trees"]), await e.embed(["grammar of trees"]));
    saveLsaModel(dir, fitLsa(texts, { dims: 3, minDf: 1 }));
    await assert.rejects(createEmbedder(e.id), /refitted/);
    await assert.rejects(createEmbedder(`lsa:${dir}-absent`), /fit-encoder/);
  });

  test("unknown names are rejected before anything loads", async () => {
    await assert.rejects(createEmbedder("word2vec"), /Unknown embedder "word2vec"/);
  });
});
