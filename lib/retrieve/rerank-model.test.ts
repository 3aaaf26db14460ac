import { describe, it } from "node:test";
import assert from "node:assert/strict";
import saved from "@/models/rerank-default/model.json";
import { RetrievalError } from "./retriever";
import { RERANK_FEATURES, rerankScore } from "./rerank";
import { parseRerankModel, RERANK_MODEL } from "./rerank-model";

/** A valid saved model over `features` (every weight 1, no hidden layer). */
const savedModel = (features: string[]) => ({
  format: "graft-rerank",
  version: 1,
  features,
  mean: features.map(() => 0.5),
  scale: features.map(() => 2),
  weights: features.map(() => 1),
  bias: 0.25,
  depth: 10,
});

describe("the saved second stage (models/rerank-default/model.json)", () => {
  it("is read as the served model, its provenance left in the file", () => {
    assert.equal(RERANK_MODEL.features.length, saved.features.length);
    assert.deepEqual(RERANK_MODEL.weights, saved.weights);
    assert.match(saved.command, /^npm run train:rerank -- .*--write$/);
    assert.ok(!("command" in RERANK_MODEL) && !("training" in RERANK_MODEL));
  });

  it("scores today's rows by feature name, so an older model with fewer features still reads them", () => {
    const model = parseRerankModel(savedModel(["bm25", "fusedRank"]));
    const row = RERANK_FEATURES.map((_, j) => j / 10);
    const at = (f: string) => row[(RERANK_FEATURES as readonly string[]).indexOf(f)];
    assert.equal(rerankScore(model, row), 0.25 + (at("bm25") - 0.5) / 2 + (at("fusedRank") - 0.5) / 2);
  });

  it("refuses a malformed file with a coded error naming the file and what is wrong", () => {
    const cases: [unknown, RegExp][] = [
      [{ ...savedModel(["bm25"]), format: "other" }, /format/],
      [{ ...savedModel(["bm25", "tfidf"]), scale: [1] }, /one value per feature/],
      [{ ...savedModel(["bm25"]), scale: [0] }, /scale/],
      [{ ...savedModel(["bm25"]), hidden: { weights: [[1]], bias: [0, 1], out: [1] } }, /one entry per unit/],
      [{ ...savedModel(["bm25"]), weights: ["1"] }, /weights/],
      [null, /top level/],
    ];
    for (const [json, why] of cases) {
      assert.throws(
        () => parseRerankModel(json, "models/x/model.json"),
        (err: unknown) =>
          err instanceof RetrievalError &&
          err.code === "not_ready" &&
          /^models\/x\/model\.json is not a graft-rerank v1 model/.test(err.message) &&
          why.test(err.message),
      );
    }
  });
});
