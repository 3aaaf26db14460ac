import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { fuseWholePaper, rrf } from "./rrf";
import { collapseList, listsFromPapers, type FacetLists } from "./types";

const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≉ ${b}`);

test("collapseList keeps the first occurrence; ranks count unique papers or raw positions", () => {
  const list = [{ paper: 2, queryItem: 0 }, { paper: 4 }, { paper: 2, queryItem: 1 }, { paper: 1 }];
  const collapsed = collapseList(list);
  assert.deepEqual(
    collapsed.map((c) => [c.paper, c.rank]),
    [
      [2, 1],
      [4, 2],
      [1, 3],
    ],
  );
  assert.equal(collapsed[0].first.queryItem, 0);
  assert.equal(collapsed[0].occurrences.length, 2);
  assert.deepEqual(
    collapseList(list, "position").map((c) => [c.paper, c.rank]),
    [
      [2, 1],
      [4, 2],
      [1, 4],
    ],
  );
});

test("rrf: Σ 1/(k + rank) with duplicates collapsed", () => {
  const lists: FacetLists = listsFromPapers({ problems: [1, 2, 3], methods: [2, 4, 2, 1] });
  // methods collapses to [2, 4, 1]:
  //   2: 1/61 (methods r1) + 1/62 (problems r2)   1: 1/61 (problems r1) + 1/63 (methods r3)
  //   4: 1/62 (methods r2)                        3: 1/63 (problems r3)
  const out = rrf(lists);
  assert.deepEqual(
    out.map((r) => r.paper),
    [2, 1, 4, 3],
  );
  close(out[0].score, 1 / 62 + 1 / 61);
  close(out[1].score, 1 / 61 + 1 / 63);
  close(out[2].score, 1 / 62);
  close(out[3].score, 1 / 63);
  assert.deepEqual(out[1].provenance, [
    { facet: "problems", rank: 1, weight: 1 },
    { facet: "methods", rank: 3, weight: 1 },
  ]);
  // Raw positions instead: paper 1 is 4th in methods → 1/61 + 1/64.
  close(rrf(lists, { rankMode: "position" }).find((r) => r.paper === 1)!.score, 1 / 61 + 1 / 64);
});

test("rrf ties: more facets, then best rank, then lower paper index", () => {
  // k = 0: 20 scores 1/4 + 1/4 = 1/2 over two facets; 11 and 21 score 1/2 at rank 2 of one facet;
  // 10 and 13 score 1/1; 12 and 14 score 1/3.
  const lists = listsFromPapers({ problems: [10, 11, 12, 20], methods: [13, 21, 14, 20] });
  const out = rrf(lists, { k: 0 });
  assert.deepEqual(
    out.map((r) => r.paper),
    [10, 13, 20, 11, 21, 12, 14],
  );
  assert.equal(out[2].score, 0.5);
  assert.deepEqual(
    rrf(lists, { k: 0, topN: 3 }).map((r) => r.paper),
    [10, 13, 20],
  );
  assert.ok(!rrf(lists, { k: 0, exclude: 20 }).some((r) => r.paper === 20));
});

test("rrf carries query item and DocID of the first occurrence", () => {
  const out = rrf({
    results: [
      { paper: 7, queryItem: 2, docId: 40 },
      { paper: 7, queryItem: 3, docId: 41 },
    ],
  });
  assert.deepEqual(out[0].provenance, [{ facet: "results", rank: 1, weight: 1, queryItem: 2, docId: 40 }]);
});

describe("fuseWholePaper", () => {
  test("adds weight/(k + rank) of the whole-paper list; papers only it found enter without facets", () => {
    const fused = [
      { paper: 1, score: 1 / 61, provenance: [{ facet: "methods" as const, rank: 1, weight: 1 }] },
      { paper: 2, score: 1 / 62, provenance: [{ facet: "methods" as const, rank: 2, weight: 1 }] },
    ];
    const out = fuseWholePaper(fused, { papers: [9, 2, 2, 7], weight: 2 }, { exclude: 9 });
    assert.deepEqual(
      out.map((r) => r.paper),
      [2, 7, 1],
    );
    const two = out[0];
    assert.equal(two.score, 1 / 62 + 2 / 61);
    assert.deepEqual(two.wholePaper, { rank: 1, weight: 2 });
    assert.deepEqual(out[1].provenance, []);
    assert.deepEqual(out[1].wholePaper, { rank: 2, weight: 2 });
    assert.equal(out[2].wholePaper, undefined);
    assert.equal(fused[1].score, 1 / 62, "the input is not changed");
  });
});
