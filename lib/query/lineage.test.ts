import assert from "node:assert/strict";
import { test } from "node:test";
import { referenceIndex } from "@/lib/retrieve/citation-expansion";
import { priorAndDerivative } from "./lineage";

test("prior works: cited by two or more results; derivative: citing two or more; the set and the query left out", () => {
  // Results 1, 2, 3. 1, 2 and 3 cite 0; 1 and 2 cite 6; 3 cites 7 only; 4 cites 1 and 2; 5 cites 1, 2 and 3;
  // 8 (the query) cites 1 and 0; 2 cites 1 (inside the set).
  const refs = referenceIndex(9, [
    [1, 0], [2, 0], [3, 0], [1, 6], [2, 6], [3, 7],
    [4, 1], [4, 2], [5, 1], [5, 2], [5, 3],
    [8, 1], [8, 0], [2, 1],
  ]);
  const l = priorAndDerivative(refs, [1, 2, 3], new Set([8]));
  assert.deepEqual(l.prior, [{ node: 0, count: 3 }, { node: 6, count: 2 }]);
  assert.deepEqual(l.derivative, [{ node: 5, count: 3 }, { node: 4, count: 2 }]);
  assert.deepEqual(priorAndDerivative(refs, [1, 2, 3], new Set([8]), 1).prior, [{ node: 0, count: 3 }]);
  assert.deepEqual(priorAndDerivative(refs, []), { prior: [], derivative: [] });
});
