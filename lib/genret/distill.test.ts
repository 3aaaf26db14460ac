import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { graphOfEdges as graphOf, type ListEdge as Edge } from "@/lib/graph/csr-testing";
import { FOUR_PAPER_EDGES as EDGES } from "./distill-testing";
import {
  DISTILL_VARIANTS,
  ORIGIN_EDGE,
  ORIGIN_FALLBACK,
  ORIGIN_FLOOR,
  decodeDistillationExamples,
  distill,
  distillationStatistics,
  edgeLossWeight,
  encodeDistillationExamples,
  mulberry32,
  readDistillationExamples,
  replicationCount,
  trainMask,
  trainingSources,
  writeDistillationExamples,
  type DistillInput,
  type DistillationExamples,
} from "./distill";

/**
 * The four-paper methods graph of distill-testing.ts; 0 and 1 are train, 2 and 3 test.
 * Identifiers: paper 0 items [0, 1], paper 1 [2], paper 2 [3, 4], paper 3 [5].
 */
const ITEMS = [[0, 1], [2], [3, 4], [5]];
const MASK = trainMask(["train", "train", "test", "test"]);
const small = (edges: Edge[] = EDGES, items: number[][] = ITEMS): DistillInput => ({
  graph: graphOf(items.length, { methods: edges }),
  items: { methods: { itemIdentifiers: items } },
  sourceMask: MASK,
});

/** Rows as tuples, for exact comparisons. */
const rowsOf = (ex: DistillationExamples): number[][] =>
  Array.from({ length: ex.length }, (_, r) => [
    ex.facet[r],
    ex.origin[r],
    ex.sourcePaper[r],
    ex.sourceItem[r],
    ex.targetPaper[r],
    ex.targetIdentifier[r],
    ex.weight[r],
    ex.negative[r],
  ]);

const exposuresOf = (ex: DistillationExamples, ids: number): number[] => {
  const c = new Array<number>(ids).fill(0);
  for (const t of ex.targetIdentifier) c[t] += 1;
  return c;
};

/** Pair (source, target) -> number of rows. */
const pairCounts = (ex: DistillationExamples): Map<string, number> => {
  const m = new Map<string, number>();
  for (let r = 0; r < ex.length; r++) {
    const key = `${ex.sourcePaper[r]}->${ex.targetPaper[r]}`;
    m.set(key, (m.get(key) ?? 0) + 1);
  }
  return m;
};

/** A random graph for determinism checks. */
function randomInput(seed: number, n = 60, k = 5): DistillInput {
  const rand = mulberry32(seed);
  const edges: Edge[] = [];
  for (let p = 0; p < n; p++) {
    const seen = new Set<number>();
    while (seen.size < k) {
      const t = Math.floor(rand() * n);
      if (t !== p) seen.add(t);
    }
    for (const t of seen) edges.push([p, t, 0.1 + 0.9 * rand()]);
  }
  let id = 0;
  const items = Array.from({ length: n }, () => Array.from({ length: 1 + Math.floor(rand() * 4) }, () => id++));
  return {
    graph: graphOf(n, { methods: edges, results: edges.map(([a, b, w]) => [b, a, w] as Edge) }),
    items: { methods: { itemIdentifiers: items }, results: { itemIdentifiers: items } },
    sourceMask: Uint8Array.from({ length: n }, (_, p) => (p % 3 === 0 ? 0 : 1)),
  };
}

describe("replication rule (1..C, linear in w / w_max of the facet)", () => {
  test("strongest edge gets C, weak edges 1, linear in between", () => {
    assert.equal(replicationCount(0.9, 0.9), 5);
    assert.equal(replicationCount(0.8, 0.9), 5); // 1 + round(4 * 0.889) = 1 + 4
    assert.equal(replicationCount(0.45, 0.9), 3); // 1 + round(2)
    assert.equal(replicationCount(0.4, 0.9), 3); // 1 + round(1.78)
    assert.equal(replicationCount(0.2, 0.9), 2); // 1 + round(0.89)
    assert.equal(replicationCount(0.05, 0.9), 1); // 1 + round(0.22)
    assert.equal(replicationCount(0, 0.9), 1);
    assert.equal(replicationCount(0.5, 0), 1);
    assert.equal(replicationCount(1, 1, 3), 3);
  });

  test("loss weight is the unrounded factor", () => {
    assert.equal(edgeLossWeight(0.9, 0.9), 5);
    assert.ok(Math.abs(edgeLossWeight(0.45, 0.9) - 3) < 1e-12);
    assert.equal(edgeLossWeight(0, 0.9), 1);
  });
});

describe("distill: uniform base", () => {
  const ex = distill(small(), { seed: 1 });

  test("one example per source item per train edge; test papers never sources", () => {
    // 0 -> 1 and 0 -> 2 with 2 items each, 1 -> 0 with one item.
    assert.equal(ex.length, 5);
    assert.deepEqual(Object.fromEntries(pairCounts(ex)), { "0->1": 2, "0->2": 2, "1->0": 1 });
    for (const q of ex.sourcePaper) assert.equal(MASK[q], 1);
    assert.deepEqual(
      [...ex.origin],
      [0, 0, 0, 0, 0].map(() => ORIGIN_EDGE),
    );
    assert.deepEqual([...ex.weight], [1, 1, 1, 1, 1]);
    assert.deepEqual([...ex.negative], [-1, -1, -1, -1, -1]);
  });

  test("every source item appears and the target identifier belongs to the target paper", () => {
    for (let r = 0; r < ex.length; r++) {
      assert.ok(ITEMS[ex.targetPaper[r]].includes(ex.targetIdentifier[r]));
      assert.ok(ex.sourceItem[r] < ITEMS[ex.sourcePaper[r]].length);
    }
    const items0 = new Set<string>();
    for (let r = 0; r < ex.length; r++) if (ex.sourcePaper[r] === 0) items0.add(`${ex.targetPaper[r]}:${ex.sourceItem[r]}`);
    assert.deepEqual([...items0].sort(), ["1:0", "1:1", "2:0", "2:1"]);
  });

  test("paper 3 (in-edge only from a test paper) is never a target: coverage 3/4", () => {
    const s = distillationStatistics(ex, 4);
    assert.equal(s.targetCoverage, 0.75);
    assert.equal(s.targetPapers, 3);
    assert.equal(s.examples, 5);
    assert.equal(s.identifiers, 6);
    assert.equal(s.meanExposuresPerIdentifier, 5 / 6);
    assert.equal(s.facets.find((f) => f.facet === "methods")?.examples, 5);
    assert.equal(s.facets.find((f) => f.facet === "problems")?.examples, 0);
  });

  test("an all-train mask makes test-side edges sources too", () => {
    const all = distill({ ...small(), sourceMask: new Uint8Array(4).fill(1) }, { seed: 1 });
    // + 2 -> 3 (2 items) + 3 -> {1,2,0} (1 item each).
    assert.equal(all.length, 5 + 2 + 3);
  });

  test("items without a DocID (-1) are neither sources nor targets", () => {
    const ex2 = distill(small(EDGES, [[0, -1], [2], [-1, 4], [5]]), { seed: 3 });
    // 0 -> 1: one valid source item; 0 -> 2: one; 1 -> 0: one.
    assert.equal(ex2.length, 3);
    for (let r = 0; r < ex2.length; r++) {
      if (ex2.sourcePaper[r] === 0) assert.equal(ex2.sourceItem[r], 0);
      if (ex2.targetPaper[r] === 2) assert.equal(ex2.targetIdentifier[r], 4);
      if (ex2.targetPaper[r] === 0) assert.equal(ex2.targetIdentifier[r], 0);
    }
  });
});

describe("training papers (trainingSources)", () => {
  test("a corpus without splits (an imported BibTeX, OpenAlex, … file) trains from every paper", () => {
    const s = trainingSources([null, null, null, null]);
    assert.deepEqual([...s.mask], [1, 1, 1, 1]);
    assert.equal(s.rule, "all 4 papers (the corpus has no train/dev/test splits)");
    // Where the paper's train mask had no source at all, and so no training example.
    assert.equal(distill({ ...small(), sourceMask: trainMask([null, null, null, null]) }, { seed: 1 }).length, 0);
    assert.equal(distill({ ...small(), sourceMask: s.mask }, { seed: 1 }).length, 10);
  });

  test("with splits, the train split trains and dev/test are held out, as in the paper", () => {
    const s = trainingSources(["train", "train", "test", "dev"]);
    assert.deepEqual([...s.mask], [...trainMask(["train", "train", "test", "dev"])]);
    assert.deepEqual(
      { papers: s.papers, train: s.train, withoutSplit: s.withoutSplit, heldOut: s.heldOut },
      { papers: 2, train: 2, withoutSplit: 0, heldOut: 2 },
    );
    assert.equal(s.rule, "the 2 papers of the train split; 2 dev/test papers held out");
  });

  test("papers added without a split to a corpus with splits train too", () => {
    const s = trainingSources(["train", null, "test", undefined]);
    assert.deepEqual([...s.mask], [1, 1, 0, 1]);
    assert.equal(s.rule, "3 papers: 1 of the train split and 2 without a split; 1 dev/test paper held out");
  });
});

describe("distill: +oversample", () => {
  test("replication counts for known weights (facet max 0.9 from a test edge)", () => {
    const ex = distill(small(), { seed: 2, oversample: true });
    // 0->1: 2 items x 5, 0->2: 2 items x 3, 1->0: 1 item x 2.
    assert.deepEqual(Object.fromEntries(pairCounts(ex)), { "0->1": 10, "0->2": 6, "1->0": 2 });
    assert.equal(ex.length, 18);
  });

  test("each replica samples its own target item", () => {
    const ex = distill(small(), { seed: 2, oversample: true });
    const toTwo = new Set<number>();
    for (let r = 0; r < ex.length; r++) if (ex.targetPaper[r] === 2) toTwo.add(ex.targetIdentifier[r]);
    assert.deepEqual([...toTwo].sort(), [3, 4]);
  });
});

describe("distill: +floor (K_min)", () => {
  test("every DocID with a train in-neighbour reaches K_min; exact top-up count", () => {
    const ex = distill(small(), { seed: 5, floor: true });
    const exp = exposuresOf(ex, 6);
    // Base: id2 x2, ids 3/4 share 2, ids 0/1 share 1 -> each topped to exactly 3.
    assert.deepEqual(exp, [3, 3, 3, 3, 3, 0]);
    assert.equal(ex.length, 15);
    assert.equal(distillationStatistics(ex, 4).identifiersUnderKMin, 1);
  });

  test("top-ups come from gold in-neighbours that are train papers, target fixed to the DocID", () => {
    const ex = distill(small(), { seed: 5, floor: true });
    const goldIn: Record<number, number[]> = { 0: [1], 1: [0], 2: [0] };
    let floors = 0;
    for (let r = 0; r < ex.length; r++) {
      if (ex.origin[r] !== ORIGIN_FLOOR) continue;
      floors += 1;
      assert.ok(goldIn[ex.targetPaper[r]].includes(ex.sourcePaper[r]));
      assert.ok(ITEMS[ex.targetPaper[r]].includes(ex.targetIdentifier[r]));
      assert.equal(ex.weight[r], 1);
    }
    assert.equal(floors, 10);
  });

  test("K_min = 1 only tops up unseen DocIDs; DocIDs already at K_min are untouched", () => {
    const ex = distill(small(), { seed: 5, floor: true, kMin: 1 });
    const exp = exposuresOf(ex, 6);
    assert.ok(exp.slice(0, 5).every((c) => c >= 1));
    assert.equal(exp[5], 0);
    // The edge pass is unchanged by the floor (same seed), so the top-ups are exactly the unseen ids.
    const base = distill(small(), { seed: 5 });
    const unseen = exposuresOf(base, 6)
      .slice(0, 5)
      .filter((c) => c === 0).length;
    assert.ok(unseen >= 1); // paper 0 has two ids and a single in-edge example
    assert.equal(ex.length, base.length + unseen);
  });

  test("with oversampling, floor adds nothing for DocIDs already seen K_min times", () => {
    const over = distill(small(), { seed: 9, oversample: true });
    const both = distill(small(), { seed: 9, oversample: true, floor: true });
    const under = exposuresOf(over, 6)
      .slice(0, 5)
      .reduce((s, c) => s + Math.max(0, 3 - c), 0);
    assert.equal(both.length, over.length + under);
    // The floor runs after the edge pass, so the edge rows are the same.
    assert.deepEqual(rowsOf(both).slice(0, over.length), rowsOf(over));
  });
});

describe("distill: +fallback (reverse neighbours)", () => {
  test("an orphan's N strongest edges to train papers are flipped", () => {
    const ex = distill(small(), { seed: 4, fallback: true });
    const fb = rowsOf(ex).filter((r) => r[1] === ORIGIN_FALLBACK);
    // 3 -> 2 (0.7) is strongest but 2 is a test paper; 3 -> 1 (0.6) and 3 -> 0 (0.3) flip.
    assert.deepEqual(
      fb.map((r) => [r[2], r[3], r[4], r[5]]),
      [
        [1, 0, 3, 5],
        [0, 0, 3, 5],
        [0, 1, 3, 5],
      ],
    );
    assert.equal(distillationStatistics(ex, 4).targetCoverage, 1);
  });

  test("breadth N limits the flipped edges", () => {
    const ex = distill(small(), { seed: 4, fallback: true, fallbackBreadth: 1 });
    const fb = rowsOf(ex).filter((r) => r[1] === ORIGIN_FALLBACK);
    assert.deepEqual(
      fb.map((r) => r[2]),
      [1],
    );
  });

  test("flipped edges are oversampled with their own weight and floored", () => {
    const ex = distill(small(), { seed: 4, fallback: true, oversample: true, floor: true });
    const counts = pairCounts(ex);
    // 1 -> 3 keeps w = 0.6: 1 + round(4 * 0.667) = 4; 0 -> 3 keeps 0.3: 1 + round(1.33) = 2 per item.
    const fb = rowsOf(ex).filter((r) => r[1] === ORIGIN_FALLBACK);
    assert.equal(fb.filter((r) => r[2] === 1).length, 4);
    assert.equal(fb.filter((r) => r[2] === 0).length, 4);
    assert.ok((counts.get("1->3") ?? 0) >= 4);
    const exp = exposuresOf(ex, 6);
    assert.ok(
      exp.every((c) => c >= 3),
      `exposures ${exp}`,
    );
  });

  test("papers with a train in-edge are not flipped; an orphan without train out-neighbours stays uncovered", () => {
    // Paper 3 now points only at test paper 2.
    const edges = EDGES.filter(([a, b]) => a !== 3 || b === 2);
    const ex = distill(small(edges), { seed: 4, fallback: true });
    assert.equal(rowsOf(ex).filter((r) => r[1] === ORIGIN_FALLBACK).length, 0);
    assert.equal(distillationStatistics(ex, 4).targetCoverage, 0.75);
  });

  test("paper scope skips papers that have an in-edge in another facet", () => {
    const input: DistillInput = {
      graph: graphOf(4, { methods: EDGES, results: [[0, 3, 0.5]] }),
      items: { methods: { itemIdentifiers: ITEMS }, results: { itemIdentifiers: [[0], [1], [2], [3]] } },
      sourceMask: MASK,
    };
    const byFacet = distill(input, { seed: 1, fallback: true, fallbackScope: "facet" });
    const byPaper = distill(input, { seed: 1, fallback: true, fallbackScope: "paper" });
    const fallbackRows = (ex: DistillationExamples): number => rowsOf(ex).filter((r) => r[1] === ORIGIN_FALLBACK).length;
    // In methods, paper 3 is orphaned per facet, but it has a results in-edge from paper 0.
    assert.ok(fallbackRows(byFacet) > 0);
    assert.equal(rowsOf(byPaper).filter((r) => r[1] === ORIGIN_FALLBACK && r[0] === 1 /* methods */).length, 0);
  });
});

describe("distill: ablations", () => {
  test("CE reweighting: no replication, per-example weight from the edge score", () => {
    const ex = distill(small(), { seed: 1, reweight: true });
    assert.equal(ex.length, 5);
    for (let r = 0; r < ex.length; r++) {
      const w = EDGES.find(([a, b]) => a === ex.sourcePaper[r] && b === ex.targetPaper[r])![2];
      assert.ok(Math.abs(ex.weight[r] - edgeLossWeight(Math.fround(w), Math.fround(0.9))) < 1e-6);
    }
  });

  test("exhaustive pairing: every source item x every target item, no sampling", () => {
    const ex = distill(small(), { seed: 1, exhaustive: true });
    // 0->1: 2x1, 0->2: 2x2, 1->0: 1x2.
    assert.equal(ex.length, 8);
    const to2 = rowsOf(ex)
      .filter((r) => r[4] === 2)
      .map((r) => `${r[3]}:${r[5]}`)
      .sort();
    assert.deepEqual(to2, ["0:3", "0:4", "1:3", "1:4"]);
  });

  test("hard negatives (two-hop pool): never the source or a kept neighbour", () => {
    const ex = distill(small(), { seed: 1, hardNegatives: { poolSize: 50 } });
    for (let r = 0; r < ex.length; r++) {
      // Source 0's neighbours are {1, 2}; two hops reach 3 (via 2). Source 1's neighbour is 0; two hops reach 2.
      if (ex.sourcePaper[r] === 0) assert.equal(ex.negative[r], 5);
      if (ex.sourcePaper[r] === 1) assert.ok([3, 4].includes(ex.negative[r]));
    }
    assert.equal(distillationStatistics(ex).examplesWithNegative, 5);
  });

  test("hard negatives leave the positives of the base variant unchanged", () => {
    const input = randomInput(21);
    const base = distill(input, { seed: 4 });
    const neg = distill(input, { seed: 4, hardNegatives: { poolSize: 100 } });
    assert.deepEqual(
      rowsOf(neg).map((r) => r.slice(0, 7)),
      rowsOf(base).map((r) => r.slice(0, 7)),
    );
    assert.ok(neg.negative.some((x) => x >= 0));
  });

  test("hard negatives from a wider candidate graph respect the pool rank", () => {
    // Candidates of source 0 ranked 1, 2 (kept), 3; of source 1: 0 (kept), 2, 3.
    const candidates = graphOf(4, {
      methods: [
        [0, 1, 0.8],
        [0, 2, 0.4],
        [0, 3, 0.1],
        [1, 0, 0.2],
        [1, 2, 0.15],
        [1, 3, 0.1],
      ],
    });
    const top3 = distill(small(), { seed: 1, hardNegatives: { poolSize: 3, candidates } });
    for (let r = 0; r < top3.length; r++) {
      if (top3.sourcePaper[r] === 0) assert.equal(top3.negative[r], 5);
      if (top3.sourcePaper[r] === 1) assert.ok([3, 4, 5].includes(top3.negative[r]));
    }
    const top2 = distill(small(), { seed: 1, hardNegatives: { poolSize: 2, candidates } });
    for (let r = 0; r < top2.length; r++) {
      if (top2.sourcePaper[r] === 0) assert.equal(top2.negative[r], -1); // ranks 1-2 are positives
      if (top2.sourcePaper[r] === 1) assert.ok([3, 4].includes(top2.negative[r]));
    }
  });

  test("variants table composes the ladder", () => {
    assert.deepEqual(DISTILL_VARIANTS["+fallback"], { oversample: true, floor: true, fallback: true });
    const sizes = (["uniform", "+oversample", "+floor", "+fallback"] as const).map((v) => distill(small(), { seed: 1, ...DISTILL_VARIANTS[v] }).length);
    assert.ok(sizes[0] < sizes[1] && sizes[1] <= sizes[2] && sizes[2] < sizes[3], `${sizes}`);
  });
});

describe("distill: determinism and train-only sources", () => {
  test("same seed -> identical examples; another seed -> different samples", () => {
    const input = randomInput(11);
    const opts = { ...DISTILL_VARIANTS["+fallback"], hardNegatives: { poolSize: 50 } };
    const a = distill(input, { ...opts, seed: 7 });
    const b = distill(input, { ...opts, seed: 7 });
    const c = distill(input, { ...opts, seed: 8 });
    assert.deepEqual(rowsOf(a), rowsOf(b));
    assert.notDeepEqual(rowsOf(a), rowsOf(c));
  });

  test("only train papers are sources, in every variant", () => {
    const input = randomInput(12);
    for (const v of Object.keys(DISTILL_VARIANTS) as (keyof typeof DISTILL_VARIANTS)[]) {
      const ex = distill(input, { seed: 1, ...DISTILL_VARIANTS[v] });
      assert.ok(ex.length > 0);
      for (const q of ex.sourcePaper) assert.equal(input.sourceMask[q], 1, `${v}: source ${q}`);
    }
  });

  test("coverage grows along the ladder on a random graph", () => {
    const input = randomInput(13, 80, 3);
    const cov = (["uniform", "+floor", "+fallback"] as const).map(
      (v) => distillationStatistics(distill(input, { seed: 1, ...DISTILL_VARIANTS[v] })).targetCoverage,
    );
    assert.ok(cov[0] <= cov[1] && cov[1] <= cov[2], `${cov}`);
  });

  test("the K_min sweep: each floor adds examples and lifts the identifiers under it", () => {
    const input = randomInput(15, 80, 3);
    const runs = (["+oversample", "kmin-1", "kmin-2", "+floor", "kmin-4"] as const).map((v) => distill(input, { seed: 1, ...DISTILL_VARIANTS[v] }));
    assert.deepEqual(
      runs.slice(1).map((r) => r.meta.kMin),
      [1, 2, 3, 4],
    );
    for (let i = 1; i < runs.length; i++) assert.ok(runs[i].length >= runs[i - 1].length, `variant ${i}: ${runs[i].length} < ${runs[i - 1].length}`);
    // Each floor, read against the unfloored run at the same K_min, lifts identifiers over it (those
    // no source links to stay under: the floor only replays existing in-neighbours).
    for (const r of runs.slice(1)) {
      const before = distillationStatistics({ ...runs[0], meta: { ...runs[0].meta, kMin: r.meta.kMin } }).identifiersUnderKMin;
      const after = distillationStatistics(r).identifiersUnderKMin;
      assert.ok(after < before, `K_min ${r.meta.kMin}: ${after} identifiers under the floor, ${before} without it`);
    }
  });

  test("statistics count distinct target papers as a Set per facet would, in every variant", () => {
    const input = randomInput(16, 80, 3);
    for (const v of Object.keys(DISTILL_VARIANTS) as (keyof typeof DISTILL_VARIANTS)[]) {
      const ex = distill(input, { seed: 2, ...DISTILL_VARIANTS[v] });
      const s = distillationStatistics(ex, 100);
      // The reference: Sets of target papers, overall and per facet; origins counted by name.
      const all = new Set(ex.targetPaper);
      const origins = { edge: 0, fallback: 0, floor: 0 };
      for (const o of ex.origin) origins[(["edge", "fallback", "floor"] as const)[o]] += 1;
      assert.equal(s.targetPapers, all.size, v);
      assert.equal(s.targetCoverage, all.size / 100, v);
      assert.deepEqual(s.byOrigin, origins, v);
      for (const [fi, f] of s.facets.entries()) {
        const perFacet = new Set(ex.targetPaper.filter((_, r) => ex.facet[r] === fi));
        assert.equal(f.targetPapers, perFacet.size, `${v} ${f.facet}`);
      }
    }
  });

  test("rejects a mask of the wrong length and bad parameters", () => {
    assert.throws(() => distill({ ...small(), sourceMask: new Uint8Array(3) }), /sourceMask/);
    assert.throws(() => distill(small(), { kMin: -1 }), RangeError);
    assert.throws(() => distill(small(), { replicationCeiling: 0 }), RangeError);
  });
});

describe("binary file", () => {
  test("round trip keeps every column and the metadata", () => {
    const ex = distill(randomInput(14), { seed: 3, ...DISTILL_VARIANTS["+fallback"], hardNegatives: { poolSize: 50 }, reweight: true });
    const back = decodeDistillationExamples(encodeDistillationExamples(ex));
    assert.deepEqual(rowsOf(back), rowsOf(ex));
    assert.deepEqual(back.meta, ex.meta);
    assert.equal(back.meta.options.hardNegatives?.poolSize, 50);
  });

  test("write is atomic (no temp file left) and read returns the same", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "distill-"));
    try {
      const file = path.join(dir, "sub", "train.distill");
      const ex = distill(small(), { seed: 1, floor: true });
      writeDistillationExamples(file, ex);
      assert.ok(existsSync(file));
      assert.deepEqual(readdirSync(path.dirname(file)), ["train.distill"]);
      assert.deepEqual(rowsOf(readDistillationExamples(file)), rowsOf(ex));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("rejects bad magic, truncation and version", () => {
    const bytes = encodeDistillationExamples(distill(small(), { seed: 1 }));
    assert.throws(() => decodeDistillationExamples(bytes.slice(0, bytes.length - 4)), /expected/);
    const bad = bytes.slice();
    bad[0] = 0x58;
    assert.throws(() => decodeDistillationExamples(bad), /magic/);
    const v2 = bytes.slice();
    new DataView(v2.buffer).setUint32(8, 2, true);
    assert.throws(() => decodeDistillationExamples(v2), /version/);
  });

  test("an empty set round-trips", () => {
    const ex = distill({ ...small(), sourceMask: new Uint8Array(4) });
    assert.equal(ex.length, 0);
    assert.equal(decodeDistillationExamples(encodeDistillationExamples(ex)).length, 0);
    assert.equal(distillationStatistics(ex, 4).targetCoverage, 0);
  });
});
