/**
 * A binary heap of JS values ordered by a comparator: the one heap for objects and plain numbers
 * (the sampler's fringe, the baselines' top-k indices). The hot top-K passes keep their heaps on
 * typed arrays instead (graph/topk-accumulator.ts: float32 scores with a payload, many heaps in
 * one array; graph/lexical.ts CandidatePool: float64 scores), where a comparator call and an
 * object per entry would cost more than the pass itself.
 */
export class Heap<T> {
  private readonly items: T[] = [];

  /** `first(a, b)`: a comes out before b. A total order makes the pop order independent of push order. */
  constructor(private readonly first: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  /** The entry pop() would return, left in place. */
  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    this.items.push(item);
    this.siftUp(this.items.length - 1);
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  /** pop() then push(item) in one sift (a bounded top-k keeps its worst entry on top and swaps it). */
  replaceTop(item: T): T | undefined {
    const top = this.items[0];
    if (this.items.length === 0) this.items.push(item);
    else {
      this.items[0] = item;
      this.siftDown(0);
    }
    return top;
  }

  /** The entries, in no particular order (a copy). */
  toArray(): T[] {
    return [...this.items];
  }

  private siftUp(i: number): void {
    const items = this.items;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.first(items[i], items[parent])) break;
      [items[i], items[parent]] = [items[parent], items[i]];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const items = this.items;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < items.length && this.first(items[l], items[best])) best = l;
      if (r < items.length && this.first(items[r], items[best])) best = r;
      if (best === i) return;
      [items[i], items[best]] = [items[best], items[i]];
      i = best;
    }
  }
}
