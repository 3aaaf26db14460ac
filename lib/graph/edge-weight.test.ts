import assert from "node:assert/strict";
import { it } from "node:test";
import { DEFAULT_EDGE_WEIGHT, edgeWeight } from "./edge-weight";

it("combines facet and citation scores with α = 0.75, β = 0.25 by default", () => {
  assert.deepEqual({ ...DEFAULT_EDGE_WEIGHT }, { alpha: 0.75, beta: 0.25 });
  assert.equal(edgeWeight(0.8, 0.4), 0.75 * 0.8 + 0.25 * 0.4);
  assert.equal(edgeWeight(0, 1), 0.25); // the citation floor
  assert.equal(edgeWeight(0.5, 0.5, { alpha: 1, beta: 0 }), 0.5);
});
