import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fitRerankMlp } from "./rerank-mlp";
import { fitRerankModel, hiddenScore, RERANK_FEATURES, rerankScore, type RerankModel, type RerankTrainingQuery } from "./rerank";

const col = (name: (typeof RERANK_FEATURES)[number]) => RERANK_FEATURES.indexOf(name);

/**
 * Gold depends on a regime, as citations do: where a query's candidates have citations (citedBy)
 * the gold one has the largest seedVote, where none has any it has the largest encoder cosine; the
 * other feature is noise there. No one linear weighting ranks both regimes' gold first.
 */
function regimeQueries(n: number, seed: number): RerankTrainingQuery[] {
  let state = seed;
  const rnd = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  return Array.from({ length: n }, (_, q) => {
    const cited = q % 2 === 0;
    const gold = Math.floor(rnd() * 10);
    const rows = Array.from({ length: 10 }, (_, i) =>
      RERANK_FEATURES.map((f) => {
        if (f === "citedBy") return cited ? 1 + rnd() : 0;
        if (f === "seedVote") return cited ? (i === gold ? 1 : 0.5 * rnd()) : 2 * rnd();
        if (f === "encoder") return cited ? 2 * rnd() : i === gold ? 1 : 0.5 * rnd();
        return 0;
      }),
    );
    return { rows, labels: rows.map((_, i) => (i === gold ? 1 : 0)) };
  });
}

const firstIsGold = (model: RerankModel, qs: readonly RerankTrainingQuery[]) =>
  qs.filter((q) => {
    const z = q.rows.map((r) => rerankScore(model, r));
    return q.labels[z.indexOf(Math.max(...z))] === 1;
  }).length / qs.length;

describe("fitRerankMlp", () => {
  const train = regimeQueries(200, 3);
  const test = regimeQueries(200, 5);
  const mlp = fitRerankMlp(train, { depth: 10, hidden: 4, epochs: 60, seeds: [7, 11] });

  it("ranks gold first in both regimes where the linear model cannot", () => {
    const linear = fitRerankModel(train, { depth: 10 });
    const [a, b] = [firstIsGold(mlp, test), firstIsGold(linear, test)];
    assert.ok(a > 0.95, `neural ranker puts gold first on ${a} of held-out queries`);
    assert.ok(a > b + 0.3, `neural ${a} against linear ${b}`);
    // Each regime's feature carries weight through the hidden layer.
    assert.ok(mlp.hidden!.weights.some((w) => Math.abs(w[col("seedVote")]) > 0.1 && Math.abs(w[col("citedBy")]) > 0.1));
  });

  it("stores its members as one wider layer, and scores as the sum of linear and hidden terms", () => {
    assert.equal(mlp.hidden!.weights.length, 8);
    const row = test[0].rows[0];
    const x = row.map((v, j) => (v - mlp.mean[j]) / mlp.scale[j]);
    const linear = mlp.weights.reduce((s, w, j) => s + (w * (row[j] - mlp.mean[j])) / mlp.scale[j], mlp.bias);
    assert.equal(rerankScore(mlp, row), linear + hiddenScore(mlp.hidden!, x));
  });

  it("is deterministic: the same queries and seeds give the same model", () => {
    assert.deepEqual(fitRerankMlp(train, { depth: 10, hidden: 4, epochs: 60, seeds: [7, 11] }), mlp);
  });
});
