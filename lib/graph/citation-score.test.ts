import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  buildCitationIndex,
  citationCounts,
  citationMaxima,
  citationRows,
  citationScore,
  citationScoreOf,
  citationScores,
  CitationRowScanner,
} from "./citation-score";

// Five corpus papers; ids 100 and 101 are external works.
//   0 → 2, 3, 100      1 → 2, 3, 4, 100      2 → 3      3 → (none)      4 → 3, 101
// Citers: 2 ← {0, 1}; 3 ← {0, 1, 2, 4}; 4 ← {1}.
const refs = [[2, 3, 100], [2, 3, 4, 100], [3], [], [3, 101]];
const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-6, `${a} ≉ ${b}`);

describe("citation score", () => {
  const index = buildCitationIndex(refs);
  const all = citationScores(index);

  it("counts coupling and co-citation per pair", () => {
    assert.deepEqual(citationCounts(index, 0, 1), { bc: 3, cc: 0 }); // 2, 3 and external 100
    assert.deepEqual(citationCounts(index, 2, 3), { bc: 0, cc: 2 }); // both cited by 0 and 1
    assert.deepEqual(citationCounts(index, 2, 4), { bc: 1, cc: 1 }); // share ref 3; both cited by 1
    assert.deepEqual(citationCounts(index, 0, 3), { bc: 0, cc: 0 });
  });

  it("normalises by the corpus maxima", () => {
    assert.equal(all.maxBc, 3);
    assert.equal(all.maxCc, 2);
    close(citationScoreOf(all, 0, 1), 0.5 * (Math.log(4) / Math.log(4)));
    close(citationScoreOf(all, 2, 3), 0.5 * (Math.log(3) / Math.log(3)));
    close(citationScoreOf(all, 2, 4), 0.5 * (Math.log(2) / Math.log(4) + Math.log(2) / Math.log(3)));
    close(citationScoreOf(all, 1, 2), 0.5 * (Math.log(2) / Math.log(4)));
    assert.equal(citationScoreOf(all, 0, 3), 0);
  });

  it("stores every linked pair in both directions, sorted, without self-pairs, matching the pairwise counts", () => {
    for (let a = 0; a < 5; a++) {
      const row = Array.from(all.targets.subarray(all.offsets[a], all.offsets[a + 1]));
      assert.deepEqual(
        row,
        [...row].sort((x, y) => x - y),
      );
      assert.ok(!row.includes(a));
      for (let b = 0; b < 5; b++) {
        if (a === b) continue;
        const c = citationCounts(index, a, b);
        const e = row.indexOf(b);
        assert.equal(e >= 0, c.bc + c.cc > 0, `pair ${a},${b}`);
        if (e >= 0) {
          assert.equal(all.bc[all.offsets[a] + e], c.bc);
          assert.equal(all.cc[all.offsets[a] + e], c.cc);
          close(all.scores[all.offsets[a] + e], citationScore(c, all));
        }
        close(citationScoreOf(all, a, b), citationScoreOf(all, b, a));
      }
    }
  });

  it("streams the same rows as it stores", () => {
    assert.deepEqual(citationMaxima(index), { maxBc: 3, maxCc: 2, linkedPairs: all.targets.length });
    const scanner = new CitationRowScanner(index);
    const stored = citationRows(index);
    const streamed = citationRows(index, { maxStoredPairs: 0 });
    assert.equal(stored.stored, true);
    assert.equal(streamed.stored, false);
    for (let a = 0; a < 5; a++) {
      const want = Array.from(all.targets.subarray(all.offsets[a], all.offsets[a + 1]));
      for (const rows of [scanner, stored, streamed]) {
        const r = rows.row(a);
        assert.deepEqual(Array.from(r.targets), want);
        assert.deepEqual(Array.from(r.scores), Array.from(all.scores.subarray(all.offsets[a], all.offsets[a + 1])));
      }
    }
  });

  it("ignores duplicate references and self-citations", () => {
    const s = citationScores([[1, 1, 0, 2], [2], []]);
    assert.deepEqual(citationCounts(buildCitationIndex([[1, 1, 0, 2], [2], []]), 0, 1), { bc: 1, cc: 0 });
    assert.equal(s.maxBc, 1);
  });

  it("gives 0 for a corpus without citations", () => {
    const s = citationScores([[], [], []]);
    assert.equal(s.targets.length, 0);
    assert.equal(citationScore({ bc: 0, cc: 0 }, s), 0);
  });
});
