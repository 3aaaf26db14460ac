import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { itemsOfPaper, l2Normalise, maxSimFacetScore, maxSimOneToMany, maxSimPairs, packFacetItems, rescaleCosine } from "./maxsim";

const v = (x: number, y: number): Float32Array => Float32Array.of(x, y);
const r = Math.SQRT1_2;
const close = (a: number, b: number, eps = 1e-6): void => assert.ok(Math.abs(a - b) < eps, `${a} ≉ ${b}`);

describe("maxSimFacetScore", () => {
  it("matches hand-computed 2-D cases", () => {
    // A→B: 1; B→A: (1 + 0)/2; raw 0.75 → (0.75+1)/2.
    close(maxSimFacetScore([v(1, 0)], [v(1, 0), v(0, 1)]), 0.875);
    // Opposite vectors: raw -1 → 0.
    close(maxSimFacetScore([v(1, 0)], [v(-1, 0)]), 0);
    // Identical single items: raw 1 → 1.
    close(maxSimFacetScore([v(0, 1)], [v(0, 1)]), 1);
    // Diagonal against both axes: every max is √½.
    close(maxSimFacetScore([v(1, 0), v(0, 1)], [v(r, r)]), (1 + r) / 2);
    // A→B: (0 + 1)/2; B→A: (1 + 0)/2; raw 0.5.
    close(maxSimFacetScore([v(1, 0), v(0, 1)], [v(0, 1), v(-1, 0)]), 0.75);
  });

  it("normalises by item count on each side", () => {
    // A→B: 1; B→A: (1 + 1 + 1 + 0)/4 = 0.75; raw 0.875.
    close(maxSimFacetScore([v(1, 0)], [v(1, 0), v(1, 0), v(1, 0), v(0, 1)]), (0.875 + 1) / 2);
  });

  it("is symmetric", () => {
    const a = [v(0.6, 0.8), v(1, 0)];
    const b = [v(0, 1), v(-0.8, 0.6), v(r, -r)];
    close(maxSimFacetScore(a, b), maxSimFacetScore(b, a), 1e-12);
  });

  it("gives 0 when a side has no items and rejects mixed dimensions", () => {
    assert.equal(maxSimFacetScore([], [v(1, 0)]), 0);
    assert.throws(() => maxSimFacetScore([v(1, 0)], [Float32Array.of(1, 0, 0)]));
  });

  it("rescales the cosine range to [0, 1]", () => {
    assert.equal(rescaleCosine(-1), 0);
    assert.equal(rescaleCosine(1), 1);
    close(
      Array.from(l2Normalise(v(3, 4))).reduce((s, x) => s + x * x, 0),
      1,
    );
  });
});

describe("batched forms", () => {
  const papers = [[v(1, 0)], [v(1, 0), v(0, 1)], [v(0, 1), v(-1, 0), v(r, r)], [], [v(-r, r)]];
  const packed = packFacetItems(papers, 2);

  it("pack keeps each paper's items in order", () => {
    assert.deepEqual(Array.from(packed.offsets), [0, 1, 3, 6, 6, 7]);
    assert.deepEqual(
      itemsOfPaper(packed, 2).map((x) => Array.from(x)),
      papers[2].map((x) => Array.from(x)),
    );
  });

  it("maxSimOneToMany and maxSimPairs agree with the pairwise score", () => {
    for (let a = 0; a < papers.length; a++) {
      const row = maxSimOneToMany(papers[a], packed);
      const pairs = maxSimPairs(
        packed,
        papers.map(() => a),
        papers.map((_, b) => b),
      );
      for (let b = 0; b < papers.length; b++) {
        close(row[b], maxSimFacetScore(papers[a], papers[b]));
        close(pairs[b], maxSimFacetScore(papers[a], papers[b]));
      }
    }
  });
});
