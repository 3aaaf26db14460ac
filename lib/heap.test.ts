import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mulberry32 } from "./random";
import { Heap } from "./heap";

describe("Heap", () => {
  it("pops in comparator order whatever the push order, ties broken by the comparator", () => {
    const rnd = mulberry32(7);
    const values = Array.from({ length: 500 }, () => Math.floor(rnd() * 50));
    const heap = new Heap<number>((a, b) => a < b);
    for (const v of values) heap.push(v);
    assert.equal(heap.size, 500);
    const out: number[] = [];
    while (heap.size > 0) out.push(heap.pop() as number);
    assert.deepEqual(
      out,
      [...values].sort((a, b) => a - b),
    );
    assert.equal(heap.pop(), undefined);
    assert.equal(heap.peek(), undefined);
  });

  it("orders objects by a total order (score descending, then name)", () => {
    const heap = new Heap<{ name: string; score: number }>((a, b) => (a.score !== b.score ? a.score > b.score : a.name < b.name));
    for (const [name, score] of [
      ["c", 1],
      ["a", 2],
      ["b", 1],
      ["d", 2],
    ] as const)
      heap.push({ name, score });
    assert.equal(heap.peek()?.name, "a");
    assert.deepEqual(
      Array.from({ length: 4 }, () => heap.pop()?.name),
      ["a", "d", "b", "c"],
    );
  });

  it("replaceTop swaps the top for a new entry: a bounded top-k keeps the k largest", () => {
    const rnd = mulberry32(3);
    const values = Array.from({ length: 300 }, () => rnd());
    const k = 10;
    const worstFirst = new Heap<number>((a, b) => a < b);
    for (const v of values) {
      if (worstFirst.size < k) worstFirst.push(v);
      else if (v > (worstFirst.peek() as number)) assert.equal(worstFirst.replaceTop(v) !== undefined, true);
    }
    assert.deepEqual(
      worstFirst.toArray().sort((a, b) => b - a),
      [...values].sort((a, b) => b - a).slice(0, k),
    );
    const empty = new Heap<number>((a, b) => a < b);
    assert.equal(empty.replaceTop(5), undefined);
    assert.equal(empty.pop(), 5);
  });
});
