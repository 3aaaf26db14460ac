import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ascending, quantileAtIndex, quantileLinear, quantileNearestRank } from "./quantile";

describe("quantiles", () => {
  const four = [1, 2, 3, 4];

  it("ascending sorts a copy numerically, not as strings", () => {
    const values = [10, 9, 100, 1];
    assert.deepEqual(ascending(values), [1, 9, 10, 100]);
    assert.deepEqual(values, [10, 9, 100, 1]);
  });

  it("linear interpolates between the closest ranks (numpy)", () => {
    assert.equal(quantileLinear(four, 0.5), 2.5);
    assert.equal(quantileLinear(four, 0), 1);
    assert.equal(quantileLinear(four, 1), 4);
    assert.equal(quantileLinear(four, 0.9), 3.7);
    assert.equal(quantileLinear(Float64Array.of(5), 0.9), 5);
  });

  it("at index ⌊q·n⌋ takes the upper middle; nearest rank the lower", () => {
    assert.equal(quantileAtIndex(four, 0.5), 3);
    assert.equal(quantileNearestRank(four, 0.5), 2);
    assert.equal(quantileAtIndex(four, 1), 4);
    assert.equal(quantileNearestRank(four, 1), 4);
    assert.equal(quantileAtIndex(four, 0), 1);
    assert.equal(quantileNearestRank(four, 0), 1);
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    assert.equal(quantileAtIndex(hundred, 0.95), 96);
    assert.equal(quantileNearestRank(hundred, 0.95), 95);
  });

  it("give NaN for no values", () => {
    for (const f of [quantileLinear, quantileAtIndex, quantileNearestRank]) assert.ok(Number.isNaN(f([], 0.5)));
  });
});
