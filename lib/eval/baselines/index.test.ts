import assert from "node:assert/strict";
import { test } from "node:test";
import { packFacetItems } from "@/lib/graph";
import { denseDocumentRetrieve, denseItemLists, packVectors, prepareItemLists, topKIndices } from "./index";
import { documentText } from "@/lib/graph/corpus-data";

const unit = (...xs: number[]): Float32Array => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs, (x) => x / n);
};

test("topKIndices: largest first, ties by lower index, exclusions and NaN skipped", () => {
  const s = [0.1, 0.9, 0.5, 0.9, Number.NaN, 0.7];
  assert.deepEqual([...topKIndices(s, 3)], [1, 3, 5]);
  assert.deepEqual([...topKIndices(s, 3, (i) => i === 1)], [3, 5, 2]);
  assert.deepEqual([...topKIndices(s, 10)], [1, 3, 5, 2, 0]);
  assert.deepEqual([...topKIndices(s, 0)], []);
});

test("document-level dense ranks by cosine and skips the query", () => {
  const docs = packVectors([unit(1, 0), unit(1, 1), unit(0, 1), unit(-1, 0)]);
  // Query along (1, 0.2): cos to doc 0 ≈ .98, doc 1 ≈ .83, doc 2 ≈ .20, doc 3 ≈ −.98.
  assert.deepEqual([...denseDocumentRetrieve(docs, unit(1, 0.2), 3)], [0, 1, 2]);
  assert.deepEqual([...denseDocumentRetrieve(docs, unit(1, 0.2), 2, 0)], [1, 2]);
  assert.throws(() => denseDocumentRetrieve(docs, unit(1, 0, 0), 2), /length 3, expected 2/);
});

test("dense item lists: per item nearest items, concatenated in bullet order, query paper excluded", () => {
  // methods items: paper 0 has items a=(1,0), b=(0,1); paper 1 has c=(1,1); paper 2 has d=(−1,0).
  const methods = packFacetItems([[unit(1, 0), unit(0, 1)], [unit(1, 1)], [unit(-1, 0)]], 2);
  const index = prepareItemLists({ methods });
  const lists = denseItemLists(index, { methods: [unit(1, 0), unit(0, 1)] }, { perItem: 2 });
  // item 0 (1,0): a (1.0, paper 0), c (.707, paper 1); item 1 (0,1): b (paper 0), c (paper 1).
  assert.deepEqual(
    lists.methods?.map((c) => [c.paper, c.queryItem, c.docId]),
    [
      [0, 0, 0],
      [1, 0, 2],
      [0, 1, 1],
      [1, 1, 2],
    ],
  );
  assert.ok(Math.abs((lists.methods?.[1].score ?? 0) - Math.SQRT1_2) < 1e-6);
  // Excluding paper 0 (the query itself): its items never appear.
  const ex = denseItemLists(index, { methods: [unit(1, 0)] }, { perItem: 2, exclude: 0 });
  assert.deepEqual(
    ex.methods?.map((c) => c.paper),
    [1, 2],
  );
  assert.equal(ex.problems, undefined);
});

test("documentText joins title and abstract", () => {
  assert.equal(documentText({ title: "A title", abstract: "Body." }), "A title. Body.");
  assert.equal(documentText({ title: "Why?", abstract: "Body." }), "Why? Body.");
  assert.equal(documentText({ title: "Only", abstract: " " }), "Only");
});
