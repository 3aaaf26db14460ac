import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PaperGraph } from "@/lib/graph";
import { csrOf } from "@/lib/graph/csr-testing";
import { packFacetItems } from "@/lib/graph";
import { MaxSimEngine } from "@/lib/graph";
import { denseGraphEphemeral } from "@/lib/retrieve";
import { citationGold, denseGraphInCorpus, denseOnlyRetrieve, evaluateRetriever, neighbourGold, paperItems, papersOf, prepareFacetIndex } from "./dense-graph";
import { fivePaperGraph } from "./testing";

const graph = fivePaperGraph;

describe("gold construction", () => {
  it("takes the union over facets, with incoming edges for 'both'", () => {
    const out = neighbourGold(graph, "out");
    assert.deepEqual([...out[0]].sort(), [1, 4]);
    assert.deepEqual([...out[2]], []);
    const both = neighbourGold(graph);
    // 0: own rows 1, 4; 3's row holds 0.
    assert.deepEqual([...both[0]].sort(), [1, 3, 4]);
    assert.deepEqual([...both[2]], [1]);
    assert.ok(
      both.every((g, p) => !g.has(p)),
      "a paper is never its own gold",
    );
  });

  it("citation gold is symmetric and drops self-citations", () => {
    const g = citationGold([[1, 0], [], [1]]);
    assert.deepEqual([...g[0]], [1]);
    assert.deepEqual([...g[1]].sort(), [0, 2]);
    assert.deepEqual([...g[2]], [1]);
  });
});

describe("evaluation driver", () => {
  it("gives the known micro recall on the hand-made graph", async () => {
    const gold = neighbourGold(graph);
    // Query 0 (2 hops): problems 1 (.9), 2 (.72); methods 4 (.7), 3 (.42). RRF: 1 and 4 tie on
    // 1/61 and 1 is ranked first by paper index, then 2, 3 at 1/62.
    assert.deepEqual(Array.from(denseGraphInCorpus(graph, 0)), [1, 4, 2, 3]);
    const report = await evaluateRetriever(
      [0, 2],
      (q) => denseGraphInCorpus(graph, q),
      (q) => gold[q],
      { ks: [1, 2, 5], resamples: 50 },
    );
    // Gold: 0 → {1, 3, 4}, 2 → {1}; query 2 has no out-edges, so it retrieves nothing.
    // Pooled gold 4; hits@1 = 1, @2 = 2, @5 = 3.
    assert.equal(report.queries, 2);
    assert.equal(report.meanGold, 2);
    assert.equal(report.recall[1].estimate, 1 / 4);
    assert.equal(report.recall[2].estimate, 2 / 4);
    assert.equal(report.recall[5].estimate, 3 / 4);
    assert.ok(report.recall[5].lower <= 0.75 && report.recall[5].upper >= 0.75);
  });

  it("walk depth changes what is reachable", async () => {
    const gold = neighbourGold(graph);
    const r1 = await evaluateRetriever(
      [0],
      (q) => denseGraphInCorpus(graph, q, { hops: 1 }),
      (q) => gold[q],
      { ks: [5], resamples: 10 },
    );
    // One hop reaches only 1 and 4; 3 (an in-neighbour) needs the second hop via 4.
    assert.equal(r1.recall[5].estimate, 2 / 3);
  });
});

/** Unit vectors along axis i (plus a small tilt) in 8 dimensions. */
function axis(i: number, tilt = 0): Float32Array {
  const v = new Float32Array(8);
  v[i % 8] = 1;
  v[(i + 1) % 8] = tilt;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

describe("out-of-corpus ephemeral insertion", () => {
  let engine: MaxSimEngine;
  before(async () => {
    engine = await MaxSimEngine.create({ threads: 1 });
  });
  after(async () => {
    await engine.release();
  });

  // Six corpus papers, one facet; paper p's single item points along axis p.
  const items = { problems: packFacetItems([0, 1, 2, 3, 4, 5].map((p) => [axis(p)])) };
  const corpusGraph: PaperGraph = {
    numPapers: 6,
    k: 2,
    facets: { problems: csrOf([[[1, 0.8]], [[2, 0.7]], [[3, 0.6]], [[4, 0.5]], [[5, 0.4]], [[0, 0.3]]]) },
  };

  it("returns only corpus papers, never the excluded query paper", async () => {
    const index = prepareFacetIndex(items);
    // The query duplicates corpus paper 2; as if it were that paper, 2 must never come back.
    const query = { problems: [axis(2, 0.1)] };
    const got = papersOf((await denseGraphEphemeral(engine, index, corpusGraph, query, { edgesPerFacet: 2, exclude: 2 })).results);
    assert.ok(got.length > 0);
    assert.ok(!got.includes(2), `returned the query itself: ${Array.from(got)}`);
    assert.ok(got.every((p) => Number.isInteger(p) && p >= 0 && p < 6));
    assert.equal(new Set(got).size, got.length, "no duplicates");
    // First hop: 3 (the tilt) then another paper; second hop follows their corpus edges.
    assert.equal(got[0], 3);
    assert.ok(got.includes(4), "the walk continues from the ephemeral edges");
  });

  it("dense-only excludes the query and ranks by facet similarity", async () => {
    const index = prepareFacetIndex(items);
    const got = papersOf(await denseOnlyRetrieve(engine, index, paperItems(items, 2), { exclude: 2, cap: 3 }));
    assert.equal(got.length, 3);
    assert.ok(!got.includes(2));
    assert.ok(got.every((p) => p >= 0 && p < 6));
  });

  it("a query with no items retrieves nothing", async () => {
    const index = prepareFacetIndex(items);
    assert.deepEqual((await denseGraphEphemeral(engine, index, corpusGraph, { problems: [] })).results, []);
  });
});
