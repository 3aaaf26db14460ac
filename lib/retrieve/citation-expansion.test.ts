import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { citationExpansion, referenceIndex } from "./citation-expansion";
import { citersIndex } from "./rerank";

describe("citation expansion of lexical seeds", () => {
  // 0 and 1 cite 4; 2 cites 3 and 4; 5 cites 3 (5 is the query's own node in the last test).
  const refs = referenceIndex(6, [
    [0, 4],
    [1, 4],
    [1, 4],
    [2, 3],
    [2, 4],
    [5, 3],
    [3, 3],
  ]);

  test("references: per node, deduplicated, sorted, no self-citations", () => {
    assert.deepEqual([...refs.offsets], [0, 1, 2, 4, 4, 4, 5]);
    assert.deepEqual([...refs.refs], [4, 4, 3, 4, 3]);
  });

  test("each seed votes (score/top)^power for what it cites; a paper's lexical share is added", () => {
    const hits = [
      { doc: 0, score: 4 },
      { doc: 2, score: 2 },
    ];
    const out = citationExpansion(hits, refs, 10, new Set(), { seeds: 50, power: 2, lexicalWeight: 0.5 });
    const score = new Map(out.map((c) => [c.paper, c.score]));
    // votes: 4 ← 1 + 0.25, 3 ← 0.25; max vote 1.25.
    assert.equal(score.get(4), 1);
    assert.equal(score.get(3), 0.2);
    assert.equal(score.get(0), 0.5);
    assert.equal(score.get(2), 0.25);
    assert.deepEqual(
      out.map((c) => c.paper),
      [4, 0, 2, 3],
    );
  });

  test("only the top seeds vote, and the pool caps the list", () => {
    const hits = [
      { doc: 2, score: 3 },
      { doc: 0, score: 3 },
    ];
    const out = citationExpansion(hits, refs, 2, new Set(), { seeds: 1, power: 1, lexicalWeight: 0 });
    // Only seed 2 votes: 3 and 4 get 1 each; 0 and 2 have lexical weight 0.
    assert.deepEqual(
      out.map((c) => c.paper),
      [3, 4],
    );
  });

  test("a node in `never` neither votes nor is returned (an unseen query's own node)", () => {
    const hits = [
      { doc: 5, score: 9 },
      { doc: 1, score: 3 },
    ];
    const out = citationExpansion(hits, refs, 10, new Set([5]));
    assert.ok(!out.some((c) => c.paper === 5));
    assert.ok(!out.some((c) => c.paper === 3), "5's reference does not vote");
    assert.equal(out[0].paper, 4);
  });

  test("no usable hit, no candidates", () => {
    assert.deepEqual(citationExpansion([], refs, 10), []);
    assert.deepEqual(citationExpansion([{ doc: 1, score: 0 }], refs, 10), []);
  });

  test("with the later-work hop, the papers citing the seeds are reached too, weighted beside what the seeds cite", () => {
    // Seeds 0 and 1; 0 cites 2; 3 and 4 cite seed 0, 4 also cites seed 1; 5 is the query and cites seed 0.
    const refs = referenceIndex(6, [
      [0, 2],
      [3, 0],
      [4, 0],
      [4, 1],
      [5, 0],
    ]);
    const hits = [
      { doc: 0, score: 2 },
      { doc: 1, score: 2 },
    ];
    const earlier = citationExpansion(hits, refs, 10, new Set([5]));
    assert.deepEqual(
      earlier.map((c) => c.paper),
      [2, 0, 1],
    );
    const both = citationExpansion(hits, refs, 10, new Set([5]), undefined, { citers: citersIndex(refs), weight: 0.5 });
    const score = new Map(both.map((c) => [c.paper, c.score]));
    assert.equal(score.get(4), 0.5, "cites both seeds: the largest later vote, times 0.5");
    assert.equal(score.get(3), 0.25);
    assert.equal(score.get(2), 1);
    assert.ok(!score.has(5), "the query is never returned");
  });
});
