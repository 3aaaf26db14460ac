import assert from "node:assert/strict";
import { test } from "node:test";
import type { Facet } from "@/lib/corpus";
import { paperPassages } from "./checks";
import { auditPaper, DEFAULT_THRESHOLDS } from "./paper";
import { quantileLinear as quantile } from "@/lib/quantile";
import { AuditStats, distribution } from "./summary";

const v = (...xs: number[]) => {
  const a = Float32Array.from(xs);
  const n = Math.hypot(...xs);
  return a.map((x) => x / n);
};

/** A paper whose passages are the title and two sentences, along three axes. */
const paper = { title: "Hindi treebank", abstract: "Parsing Hindi is hard. A treebank helps." };
const passages = paperPassages(paper);
const passageVectors = [v(1, 0, 0), v(0, 1, 0), v(0, 0, 1)];

function input(items: Partial<Record<Facet, { text: string; vector: Float32Array }[]>>) {
  return {
    facets: { problems: [], methods: [], results: [], contributions: [], ...items },
    passages,
    passageVectors,
  };
}

test("auditPaper: grounding, evidence, structural, redundancy, specificity and thresholds together", () => {
  const r = auditPaper(
    input({
      problems: [{ text: "Parsing Hindi lacks data.", vector: v(0, 1, 0.1) }],
      methods: [
        { text: "The paper proposes a novel approach.", vector: v(0.2, 0.2, 1) },
        { text: "A transition-based parser.", vector: v(0.2, 0.2, 1) },
      ],
      results: [{ text: "LAS rises 2.1 points.", vector: v(1, 1, 1) }],
    }),
    { ...DEFAULT_THRESHOLDS, ungroundedBelow: 0.6 },
  );
  assert.deepEqual(
    r.items.map((i) => [i.facet, i.index]),
    [
      ["problems", 0],
      ["methods", 0],
      ["methods", 1],
      ["results", 0],
    ],
  );
  const [p, m0, m1, res] = r.items;
  assert.equal(p.grounding, 0.995);
  assert.deepEqual(
    p.evidence.map((e) => [e.source, e.text, e.start, e.end]),
    [
      ["abstract", "Parsing Hindi is hard.", 0, 22],
      ["abstract", "A treebank helps.", 23, 40],
      ["title", "Hindi treebank", 0, 14],
    ],
  );
  assert.deepEqual(m0.flags, ["meta", "near-duplicate", "generic"], "meta + novel approach = 0.5 generic; same vector as m1");
  assert.equal(m0.specificity, 0.5);
  assert.deepEqual(m1.flags, ["near-duplicate"]);
  assert.equal(res.grounding, 0.5774);
  assert.deepEqual(res.flags, ["ungrounded"], "0.577 < 0.6");
  assert.deepEqual(r.facets.contributions, ["empty-facet"]);
  assert.equal(r.structuralOk, false);
  assert.deepEqual(
    r.pairs.map((x) => x.kind),
    ["near-duplicate"],
  );
});

test("auditPaper without an ungrounded threshold never flags grounding; no passages gives null grounding", () => {
  const r = auditPaper(input({ results: [{ text: "LAS rises 2.1 points.", vector: v(1, 1, 1) }] }));
  assert.deepEqual(r.items[0].flags, []);
  const bare = auditPaper({
    facets: { problems: [{ text: "A problem of parsing.", vector: v(1, 0, 0) }], methods: [], results: [], contributions: [] },
    passages: [],
    passageVectors: [],
  });
  assert.equal(bare.items[0].grounding, null);
  assert.deepEqual(bare.items[0].evidence, []);
});

test("quantile and distribution", () => {
  assert.equal(quantile([1, 2, 3, 4], 0.5), 2.5);
  assert.equal(quantile([1, 2, 3, 4], 0), 1);
  assert.equal(quantile([5], 0.9), 5);
  assert.ok(Number.isNaN(quantile([], 0.5)));
  assert.deepEqual(distribution([4, 1, 3, 2]), { n: 4, mean: 2.5, p10: 1.3, median: 2.5, p90: 3.7 });
});

test("AuditStats: counts violations, per-facet grounding, redundancy by facet pair", () => {
  const stats = new AuditStats();
  const a = auditPaper(
    input({
      problems: [{ text: "The paper addresses parsing.", vector: v(0, 1, 0) }],
      methods: [{ text: "A parser with 3 stacks.", vector: v(1, 0, 0) }],
      results: [{ text: "Accuracy is 91%.", vector: v(0, 0, 1) }],
      contributions: [{ text: "Accuracy is 91 percent.", vector: v(0, 0.05, 1) }],
    }),
  );
  const b = auditPaper(input({ problems: [{ text: "short", vector: v(1, 0, 0) }] }));
  stats.add(a, { nullScores: [0.1, 0.2, 0.3, 0.4], abstractScores: [0.5, 0.5, 0.5, 0.5] });
  stats.add(b, { nullScores: [0.5] });
  const s = stats.finish({ corpus: "c", embedder: "fake", thresholds: { ...DEFAULT_THRESHOLDS, ungroundedBelow: 0.3 } });
  assert.equal(s.papers, 2);
  assert.equal(s.items, 5);
  assert.deepEqual(s.itemsPerFacet, { problems: 2, methods: 1, results: 1, contributions: 1 });
  assert.equal(s.structural.metaItems, 1);
  assert.equal(s.structural.metaFacets, 1, "a's problems facet is all meta");
  assert.equal(s.structural.underLength, 1);
  assert.equal(s.structural.emptyFacets, 3, "b has three empty facets");
  assert.equal(s.structural.papersWithIssues, 2);
  assert.equal(s.structural.shareClean, 0);
  assert.equal(s.grounding.perFacet.methods.mean, 1);
  assert.equal(s.grounding.all.n, 5);
  assert.equal(s.grounding.null.median, 0.3);
  assert.equal(s.grounding.abstractLevel?.all.n, 4);
  assert.equal(s.redundancy.overlapPairs, 1);
  assert.deepEqual(s.redundancy.overlapByFacets, { "results~contributions": 1 });
  assert.equal(s.redundancy.papersWithOverlap, 1);
  assert.equal(s.flags["cross-facet-overlap"], 2);
  assert.equal(s.flags.meta, 1);
});
