import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { DEFAULT_CORPUS } from "@/lib/corpus";
import { parseEmbedderSpec } from "@/lib/embed";
import { DEMO_CORPUS_ENCODER, defaultGraphEmbedder } from "./build";

// A graph build that names no embedder: the demo corpus embeds with the text encoder shipped for
// it, every other corpus with GRAFT_EMBEDDER's default; a set GRAFT_EMBEDDER wins for all.

test("the demo corpus defaults to its shipped text encoder, a valid lsa spec of a folder that exists", () => {
  const spec = defaultGraphEmbedder(DEFAULT_CORPUS, {});
  assert.equal(spec, `lsa:${DEMO_CORPUS_ENCODER}`);
  assert.deepEqual(parseEmbedderSpec(spec), { name: "lsa", folder: DEMO_CORPUS_ENCODER });
  assert.ok(existsSync(DEMO_CORPUS_ENCODER));
});

test("another corpus keeps GRAFT_EMBEDDER's default (USE-lite)", () => {
  assert.equal(defaultGraphEmbedder("my-library", {}), "use-lite");
  assert.equal(defaultGraphEmbedder("acl-citegraph-nocite", {}), "use-lite");
});

test("GRAFT_EMBEDDER, when set, is every corpus's default, the demo corpus's included", () => {
  assert.equal(defaultGraphEmbedder(DEFAULT_CORPUS, { GRAFT_EMBEDDER: "use-lite" }), "use-lite");
  assert.equal(defaultGraphEmbedder("my-library", { GRAFT_EMBEDDER: "minilm" }), "minilm");
  assert.equal(defaultGraphEmbedder(DEFAULT_CORPUS, { GRAFT_EMBEDDER: " " }), `lsa:${DEMO_CORPUS_ENCODER}`, "blank is unset");
});
