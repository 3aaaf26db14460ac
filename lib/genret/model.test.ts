import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { FACETS } from "@/lib/corpus";
import { DECODER_FILES, loadDecoderFiles, loadGenretModel, MODEL_FILES, missingModelFiles } from "./model";
import { buildIdentifiers, identifierFiles } from "./prepare";

const facets = [
  { problems: ["Parsing noisy text"], methods: ["A neural parser"], results: ["Better accuracy"], contributions: ["A treebank"] },
  { problems: ["Tagging"], methods: ["A tagger"], results: [], contributions: [] },
];
const ids = buildIdentifiers({ ids: ["a", "b"], facets });

/** A model directory whose decoder.onnx is not a graph: the loaders must fail before reading it. */
function modelDir(decoderVocab: number, extraConfig: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-model-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  for (const f of identifierFiles(ids)) writeFileSync(path.join(dir, f.name), f.data);
  writeFileSync(path.join(dir, "config.json"), JSON.stringify({ config: { vocab: decoderVocab, dim_in: 4, d: 2, layers: 1, heads: 1, ...extraConfig } }));
  writeFileSync(path.join(dir, "papers.json"), JSON.stringify({ externalIds: ["a", "b"] }));
  writeFileSync(path.join(dir, "genret.json"), JSON.stringify({ embedder: "toy", variant: "toy" }));
  writeFileSync(path.join(dir, "decoder.onnx"), "not an onnx graph");
  writeFileSync(path.join(dir, "output.f32"), new Uint8Array(0));
  return dir;
}

describe("model directory files", () => {
  it("a facet model is the decoder's files and the four facet tries", () => {
    assert.deepEqual(MODEL_FILES, [...DECODER_FILES, ...FACETS.map((f) => `trie-${f}.bin`)]);
    const dir = modelDir(ids.vocab.size);
    assert.deepEqual(missingModelFiles(dir), []);
    rmSync(path.join(dir, "trie-results.bin"));
    rmSync(path.join(dir, "papers.json"));
    assert.deepEqual(missingModelFiles(dir), ["papers.json", "trie-results.bin"]);
  });

  it("loadGenretModel names the missing files", async () => {
    const dir = modelDir(ids.vocab.size);
    rmSync(path.join(dir, "genret.json"));
    await assert.rejects(loadGenretModel(dir), { message: `${dir} is not a complete generative-retriever model (missing genret.json)` });
  });

  it("rejects a decoder whose output size is not vocab.json's", async () => {
    const dir = modelDir(ids.vocab.size + 1);
    const message = `${dir}: the decoder has ${ids.vocab.size + 1} output tokens, vocab.json ${ids.vocab.size}`;
    await assert.rejects(loadGenretModel(dir), { message });
    await assert.rejects(loadDecoderFiles(dir), { message });
  });

  it("runs the caller's config check before loading the graph", async () => {
    const dir = modelDir(ids.vocab.size, { facets: 3 });
    const seen: unknown[] = [];
    await assert.rejects(
      loadDecoderFiles(dir, {
        checkConfig: (config) => {
          seen.push(config.facets);
          throw new Error("wrong slots");
        },
      }),
      { message: "wrong slots" },
    );
    assert.deepEqual(seen, [3]);
    // Without a check the loader goes on to the graph, and fails there (output.f32 is empty).
    await assert.rejects(loadDecoderFiles(dir), /output\.f32 has 0 bytes/);
  });
});
