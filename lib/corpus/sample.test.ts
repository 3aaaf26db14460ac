import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { citationPreservingSample, corpusStatistics, kCore, largestRemainderQuotas, type SampleResult } from "./sample";
import type { CitationRecord, PaperRecord } from "./types";
import { sharedDataDir } from "./paths";
import { mulberry32 } from "@/lib/random";

type PaperYear = Pick<PaperRecord, "externalId" | "year">;

const dataDir = sharedDataDir();

/** Edges from "a-b c-d" shorthand (a cites b). */
function edges(spec: string): CitationRecord[] {
  return spec
    .split(/\s+/)
    .filter(Boolean)
    .map((pair) => {
      const [citing, cited] = pair.split("-");
      return { citing, cited };
    });
}

function sorted(ids: Iterable<string>): string[] {
  return [...ids].sort();
}

const rng = mulberry32;

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Obviously-correct quadratic k-core, the reference for the linear one. */
function naiveKCore(nodes: string[], es: CitationRecord[], k: number): Set<string> {
  const alive = new Set(nodes);
  const adj = new Map<string, Set<string>>(nodes.map((n) => [n, new Set<string>()]));
  for (const { citing, cited } of es) {
    if (citing === cited || !alive.has(citing) || !alive.has(cited)) continue;
    adj.get(citing)!.add(cited);
    adj.get(cited)!.add(citing);
  }
  for (let changed = true; changed;) {
    changed = false;
    for (const n of [...alive]) {
      if ([...adj.get(n)!].filter((m) => alive.has(m)).length < k) {
        alive.delete(n);
        changed = true;
      }
    }
  }
  return alive;
}

function perYear(result: SampleResult, papers: readonly PaperYear[], recentFrom = Infinity): Record<string, number> {
  const yearOf = new Map(papers.map((p) => [p.externalId, p.year]));
  const counts: Record<string, number> = {};
  for (const id of result.selected) {
    const year = yearOf.get(id);
    if (year !== null && year !== undefined && year >= recentFrom) continue;
    const key = year === null || year === undefined ? "unknown" : String(year);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function nonZero(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v > 0));
}

// ---------------------------------------------------------------- kCore

test("kCore: a triangle with a pendant keeps the triangle as its 2-core", () => {
  const es = edges("a-b b-c c-a c-d");
  assert.deepEqual(sorted(kCore(["a", "b", "c", "d"], es, 2)), ["a", "b", "c"]);
  assert.deepEqual(sorted(kCore(["a", "b", "c", "d"], es, 1)), ["a", "b", "c", "d"]);
  assert.equal(kCore(["a", "b", "c", "d"], es, 3).size, 0);
});

test("kCore: a chain peels away completely; an isolated node is not in the 1-core", () => {
  const es = edges("a-b b-c c-d d-e");
  assert.equal(kCore(["a", "b", "c", "d", "e"], es, 2).size, 0);
  assert.deepEqual(sorted(kCore(["a", "b", "c", "d", "e", "z"], es, 1)), ["a", "b", "c", "d", "e"]);
});

test("kCore: peeling cascades, and a K4 with a tail keeps exactly the K4 as 3-core", () => {
  // e and f have degree 3 at first, but lose it once g/h (degree 1) go.
  const es = edges("a-b a-c a-d b-c b-d c-d d-e e-f e-g f-h f-a");
  assert.deepEqual(sorted(kCore("abcdefgh".split(""), es, 3)), ["a", "b", "c", "d"]);
});

test("kCore: reciprocal and duplicate citations, self-loops and unknown endpoints add no degree", () => {
  // Every node of the triangle would reach degree 3 if any of these counted.
  const es = edges("a-b b-a a-b b-c c-b c-a a-c a-a b-b c-c a-x b-x c-x");
  assert.equal(kCore(["a", "b", "c"], es, 3).size, 0);
  assert.deepEqual(sorted(kCore(["a", "b", "c"], es, 2)), ["a", "b", "c"]);
  // Duplicate node ids count once.
  assert.deepEqual(sorted(kCore(["a", "b", "c", "a"], es, 2)), ["a", "b", "c"]);
});

test("kCore: empty input and invalid k", () => {
  assert.equal(kCore([], [], 3).size, 0);
  assert.equal(kCore(["a"], [], 1).size, 0);
  assert.throws(() => kCore(["a"], [], 0), /integer >= 1/);
  assert.throws(() => kCore(["a"], [], 2.5), /integer >= 1/);
});

test("kCore: agrees with a naive reference on random graphs", () => {
  const random = rng(7);
  for (let round = 0; round < 40; round++) {
    const n = 5 + Math.floor(random() * 40);
    const nodes = Array.from({ length: n }, (_, i) => `n${i}`);
    const m = Math.floor(random() * n * 3);
    const es: CitationRecord[] = Array.from({ length: m }, () => ({
      citing: `n${Math.floor(random() * (n + 2))}`, // n, n+1: unknown endpoints
      cited: `n${Math.floor(random() * n)}`,
    }));
    for (const k of [1, 2, 3, 4]) {
      assert.deepEqual(sorted(kCore(nodes, es, k)), sorted(naiveKCore(nodes, es, k)), `round ${round}, k=${k}`);
    }
  }
});

test("kCore: 64k nodes and 320k edges peel to a proper core", () => {
  const random = rng(42);
  const n = 64_000;
  const nodes = Array.from({ length: n }, (_, i) => `p${i}`);
  // Skewed endpoints (squared uniform) give a heavy-tailed degree spread, so peeling has work to do.
  const es: CitationRecord[] = Array.from({ length: 320_000 }, () => ({
    citing: nodes[Math.floor(random() * n)],
    cited: nodes[Math.floor(random() ** 2 * n)],
  }));
  const core = kCore(nodes, es, 5);
  assert.ok(core.size > 0 && core.size < n, `core size ${core.size}`);
});

// ---------------------------------------------------------------- largestRemainderQuotas

test("largestRemainderQuotas: Hamilton apportionment with a known answer", () => {
  // Exact shares 3.5, 2.1, 1.4 -> floors 3, 2, 1; the one leftover seat goes to the .5.
  const q = largestRemainderQuotas(
    new Map([
      [2019, 5],
      [2020, 3],
      [2021, 2],
    ]),
    7,
  );
  assert.deepEqual(
    [...q],
    [
      [2019, 4],
      [2020, 2],
      [2021, 1],
    ],
  );
});

test("largestRemainderQuotas: equal remainders go to the earlier year, whatever the map order", () => {
  const q = largestRemainderQuotas(
    new Map([
      [2021, 1],
      [2019, 1],
      [2020, 1],
    ]),
    2,
  );
  assert.deepEqual(
    [...q],
    [
      [2019, 1],
      [2020, 1],
      [2021, 0],
    ],
  );
  // Above the pool size too: shares 2.5, 2.5.
  assert.deepEqual(
    [
      ...largestRemainderQuotas(
        new Map([
          [2020, 1],
          [2019, 1],
        ]),
        5,
      ),
    ],
    [
      [2019, 3],
      [2020, 2],
    ],
  );
});

test("largestRemainderQuotas: always sums to the total and stays within one of the exact share", () => {
  const random = rng(3);
  for (let round = 0; round < 200; round++) {
    const counts = new Map<number, number>();
    const years = 1 + Math.floor(random() * 10);
    for (let y = 0; y < years; y++) counts.set(2000 + y, Math.floor(random() * 500));
    const sum = [...counts.values()].reduce((a, b) => a + b, 0);
    if (sum === 0) continue;
    const total = Math.floor(random() * sum * 1.2);
    const q = largestRemainderQuotas(counts, total);
    assert.equal(
      [...q.values()].reduce((a, b) => a + b, 0),
      total,
    );
    for (const [year, c] of counts) {
      const exact = (total * c) / sum;
      assert.ok(q.get(year)! >= Math.floor(exact) && q.get(year)! <= Math.ceil(exact), `year ${year}`);
    }
  }
});

test("largestRemainderQuotas: zero total, empty counts and invalid input", () => {
  assert.deepEqual([...largestRemainderQuotas(new Map([[2019, 4]]), 0)], [[2019, 0]]);
  assert.equal(largestRemainderQuotas(new Map(), 0).size, 0);
  assert.throws(() => largestRemainderQuotas(new Map(), 3), /sum to 0/);
  assert.throws(() => largestRemainderQuotas(new Map([[2019, 0]]), 1), /sum to 0/);
  assert.throws(() => largestRemainderQuotas(new Map([[2019, 4]]), -1), /non-negative integer/);
  assert.throws(() => largestRemainderQuotas(new Map([[2019, 1.5]]), 1), /non-negative integer/);
});

// ---------------------------------------------------------------- citationPreservingSample

/**
 * 2019: K4 a1..a4 (the core). 2020: c1 is tied to a1, a2, a3 (core); c2 has two edges into
 * the selection-to-be (a1, c1), c4 one (a1), c3 only hangs off c2, c5 is isolated.
 */
const fringePapers: PaperYear[] = [
  ...["a1", "a2", "a3", "a4"].map((externalId) => ({ externalId, year: 2019 })),
  ...["c1", "c2", "c3", "c4", "c5"].map((externalId) => ({ externalId, year: 2020 })),
];
const fringeEdges = edges("a1-a2 a1-a3 a1-a4 a2-a3 a2-a4 a3-a4 c1-a1 c1-a2 c1-a3 c2-a1 c2-c1 c3-c2 c4-a1");

test("sample: a short year is completed from the fringe, best attached first", () => {
  // Pool 4 + 5 papers, target 4: shares 1.78 / 2.22 -> 2019 gets the larger remainder.
  const r = citationPreservingSample(fringePapers, fringeEdges, { target: 4 });
  assert.deepEqual(r.quotas, { "2019": 2, "2020": 2 });
  // 2019: core degree a1 = a2 = a3 = 4 > a4 = 3; the id breaks the tie. 2020: c1, then c2 (2 edges) over c4 (1).
  assert.deepEqual(r.selected, ["a1", "a2", "c1", "c2"]);
  assert.equal(r.fromCore, 3);
  assert.equal(r.fromFringe, 1);
  assert.equal(r.recentAdded, 0);
  assert.deepEqual(r.unfilled, {});
  assert.deepEqual(perYear(r, fringePapers), r.quotas);
});

test("sample: fringe growth is greedy (two hops via a fresh pick) and stops at isolated papers", () => {
  const papers: PaperYear[] = [
    ...["a1", "a2", "a3", "a4"].map((externalId) => ({ externalId, year: 2019 })),
    ...["d1", "d2", "d3", "d4", "d5", "d6"].map((externalId) => ({ externalId, year: 2020 })),
  ];
  // Shares 1.2 / 1.8 -> quotas 1 / 2; 2020 has no core paper at all.
  const k4 = "a1-a2 a1-a3 a1-a4 a2-a3 a2-a4 a3-a4";
  const grown = citationPreservingSample(papers, edges(`${k4} d1-a1 d2-d1`), { target: 3 });
  assert.deepEqual(grown.quotas, { "2019": 1, "2020": 2 });
  assert.deepEqual(grown.selected, ["a1", "d1", "d2"]);
  assert.equal(grown.fromFringe, 2);
  assert.deepEqual(grown.unfilled, {});

  // Without the d2-d1 edge nothing else in 2020 touches the selection: the year stays short.
  const short = citationPreservingSample(papers, edges(`${k4} d1-a1`), { target: 3 });
  assert.deepEqual(short.selected, ["a1", "d1"]);
  assert.deepEqual(short.unfilled, { "2020": 1 });
});

test("sample: target at or above the core size, or omitted, keeps the whole core", () => {
  for (const target of [5, 6, 100, undefined]) {
    const r = citationPreservingSample(fringePapers, fringeEdges, { target });
    assert.deepEqual(r.selected, ["a1", "a2", "a3", "a4", "c1"]);
    assert.equal(r.fromCore, 5);
    assert.equal(r.fromFringe, 0);
    assert.deepEqual(r.quotas, { "2019": 4, "2020": 1 });
  }
});

test("sample: year range drops out-of-range and undated papers, with their edges", () => {
  const papers: PaperYear[] = [...fringePapers, { externalId: "old", year: 2010 }, { externalId: "nul", year: null }];
  // c2, c4, old and nul form a K4; without the last two, c4 and then c2 peel away.
  const es = [...fringeEdges, ...edges("c2-c4 c2-old c2-nul c4-old c4-nul old-nul")];
  const all = citationPreservingSample(papers, es, { k: 3 });
  assert.ok(all.selected.includes("c2"));
  const ranged = citationPreservingSample(papers, es, { k: 3, yearFrom: 2019, yearTo: 2024 });
  assert.deepEqual(ranged.selected, ["a1", "a2", "a3", "a4", "c1"]);
  const open = citationPreservingSample(papers, es, { k: 3, yearFrom: 2015 });
  assert.deepEqual(open.selected, ["a1", "a2", "a3", "a4", "c1"]);
});

test("sample: without a year range, undated papers form an 'unknown' stratum", () => {
  const papers: PaperYear[] = [
    { externalId: "a", year: 2019 },
    { externalId: "b", year: 2019 },
    { externalId: "c", year: null },
    { externalId: "d", year: null },
  ];
  const es = edges("a-b a-c a-d b-c b-d c-d");
  const whole = citationPreservingSample(papers, es, {});
  assert.deepEqual(whole.quotas, { "2019": 2, unknown: 2 });
  // Shares 1.5 / 1.5: the tie goes to the real year.
  const r = citationPreservingSample(papers, es, { target: 3 });
  assert.deepEqual(r.quotas, { "2019": 2, unknown: 1 });
  assert.deepEqual(r.selected, ["a", "b", "c"]);
});

test("sample: recent years are added afterwards without double counting", () => {
  const papers: PaperYear[] = [
    ...fringePapers,
    { externalId: "r1", year: 2025 },
    { externalId: "r2", year: 2026 },
    { externalId: "r3", year: 2027 },
    { externalId: "rn", year: null },
  ];
  const r = citationPreservingSample(papers, fringeEdges, {
    target: 4,
    yearFrom: 2019,
    yearTo: 2024,
    recentFrom: 2025,
    recentTo: 2026,
  });
  assert.deepEqual(r.selected, ["a1", "a2", "c1", "c2", "r1", "r2"]);
  assert.equal(r.recentAdded, 2);
  assert.equal(r.fromCore + r.fromFringe, 4);
  // Open-ended recent range; an overlap with the selection adds only the missing papers.
  const overlap = citationPreservingSample(papers, fringeEdges, {
    target: 4,
    yearFrom: 2019,
    yearTo: 2024,
    recentFrom: 2020,
  });
  assert.deepEqual(overlap.selected, ["a1", "a2", "c1", "c2", "c3", "c4", "c5", "r1", "r2", "r3"]);
  assert.equal(overlap.recentAdded, 6);
});

test("sample: target 0, empty input and invalid options", () => {
  const zero = citationPreservingSample(fringePapers, fringeEdges, { target: 0 });
  assert.deepEqual(zero.selected, []);
  assert.deepEqual(zero.quotas, { "2019": 0, "2020": 0 });
  assert.equal(zero.fromCore + zero.fromFringe, 0);

  const empty = citationPreservingSample([], [], { target: 10 });
  assert.deepEqual(empty, { selected: [], fromCore: 0, fromFringe: 0, recentAdded: 0, quotas: {}, unfilled: {} });

  assert.throws(() => citationPreservingSample(fringePapers, fringeEdges, { k: 0 }), /integer >= 1/);
  assert.throws(() => citationPreservingSample(fringePapers, fringeEdges, { target: -1 }), /non-negative/);
  assert.throws(() => citationPreservingSample(fringePapers, fringeEdges, { yearFrom: 2021, yearTo: 2019 }), /after/);
  assert.throws(() => citationPreservingSample(fringePapers, fringeEdges, { recentTo: 2026 }), /recentFrom/);
  assert.throws(() => citationPreservingSample([...fringePapers, { externalId: "a1", year: 2021 }], fringeEdges), /duplicate/);
});

test("sample: the result does not depend on input order", () => {
  const random = rng(11);
  const n = 600;
  const papers: PaperYear[] = Array.from({ length: n }, (_, i) => ({
    externalId: `p${i}`,
    year: 2015 + Math.floor((i / n) * 6),
  }));
  // Papers cite older ones, skewed towards the oldest, so recent years run short of core papers.
  const es: CitationRecord[] = Array.from({ length: 2400 }, () => {
    const i = Math.floor(random() * n);
    return { citing: `p${i}`, cited: `p${Math.floor(random() ** 2 * i)}` };
  });
  const options = { target: 150, yearFrom: 2016, recentFrom: 2020 };
  const first = citationPreservingSample(papers, es, options);
  assert.ok(first.fromFringe > 0, "the graph should exercise fringe completion");
  for (let round = 0; round < 3; round++) {
    assert.deepEqual(citationPreservingSample(shuffled(papers, random), shuffled(es, random), options), first);
  }
});

// ---------------------------------------------------------------- corpusStatistics

test("corpusStatistics: counts directed edges once and the undirected mean degree", () => {
  const papers: PaperYear[] = [
    { externalId: "a", year: 2019 },
    { externalId: "b", year: 2020 },
    { externalId: "c", year: null },
    { externalId: "x", year: 2020 },
  ];
  const s = corpusStatistics(["a", "b", "c", "a"], papers, edges("a-b b-a a-b a-a a-x b-c"));
  assert.deepEqual(s, {
    papers: 3,
    perYear: { "2019": 1, "2020": 1, unknown: 1 },
    citationEdges: 3, // a->b, b->a, b->c
    meanDegree: (2 * 2) / 3, // {a,b}, {b,c}
  });
  assert.deepEqual(corpusStatistics([], papers, []), { papers: 0, perYear: {}, citationEdges: 0, meanDegree: 0 });
  assert.throws(() => corpusStatistics(["zz"], papers, []), /not among/);
});

// ---------------------------------------------------------------- real data

function readPapers(file: string): PaperYear[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const { id, year } = JSON.parse(line) as { id: string; year: number | null };
      return { externalId: id, year };
    });
}

function readCitations(file: string): CitationRecord[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .slice(1) // header citing<TAB>cited
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [citing, cited] = line.split("\t");
      return { citing, cited };
    });
}

test("real data: the pool's 3-core is the shipped corpus, and a 1,000-paper sample meets its quotas", (t) => {
  const poolDir = path.join(dataDir, "acl-citegraph-pool");
  const corpusDir = path.join(dataDir, "acl-citegraph");
  if (!existsSync(poolDir) || !existsSync(corpusDir)) {
    t.skip(`data directory not found: ${dataDir}`);
    return;
  }
  const pool = readPapers(path.join(poolDir, "papers.jsonl"));
  const citations = readCitations(path.join(poolDir, "citations.tsv"));
  const corpusIds = readPapers(path.join(corpusDir, "papers.jsonl")).map((p) => p.externalId);
  assert.equal(pool.length, 5028);
  assert.equal(citations.length, 17172);
  assert.equal(corpusIds.length, 3081);

  const core = kCore(
    pool.map((p) => p.externalId),
    citations,
    3,
  );
  assert.deepEqual(sorted(core), sorted(corpusIds));

  const r = citationPreservingSample(pool, citations, { target: 1000 });
  assert.equal(r.selected.length, 1000);
  assert.equal(
    Object.values(r.quotas).reduce((a, b) => a + b, 0),
    1000,
  );
  assert.deepEqual(r.unfilled, {});
  assert.equal(r.fromCore + r.fromFringe, 1000);
  assert.deepEqual(perYear(r, pool), nonZero(r.quotas));

  // From 2016 on, a 2,500 target leaves recent years short of core papers: the fringe completes them.
  const grown = citationPreservingSample(pool, citations, { target: 2500, yearFrom: 2016 });
  assert.ok(grown.fromFringe > 0);
  assert.equal(grown.selected.length, 2500);
  assert.deepEqual(perYear(grown, pool), nonZero(grown.quotas));
});
