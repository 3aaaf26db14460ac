import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Facet } from "@/lib/corpus";
import type { MultiSeedResult, RelatedPaper, RelatedResult } from "@/lib/query";
import {
  addResults,
  burstPositions,
  CENTER_ID,
  citationSize,
  edgeLength,
  edgeWidth,
  facetPie,
  fromResult,
  fromSeedResult,
  layoutSprings,
  nodeFacets,
  relativeWeights,
  ringOf,
  shortTitle,
  visibleNodes,
  yearColour,
  yearRange,
} from "./graph-model";

const paper = (id: string, facets: [Facet, number, number][]): RelatedPaper => ({
  externalId: id,
  title: `Paper ${id}`,
  year: 2020,
  venue: null,
  authors: [],
  score: 1,
  facets: facets.map(([facet, rank, weight]) => ({ facet, rank, weight, queryItem: null, docId: null, evidence: null })),
});

function result(query: { externalId: string | null; source: "corpus" | "text" }, results: RelatedPaper[]): RelatedResult {
  const empty = { problems: [], methods: [], results: [], contributions: [] };
  return {
    corpus: "c",
    build: 1,
    retriever: "dense-graph",
    fusion: "graph-rrf",
    requestedFusion: "graph-rrf",
    fusionNote: null,
    query: { ...query, title: "Q", inGraph: query.source === "corpus", facets: empty },
    results,
    perFacet: empty,
    timings: { embedMs: 0, retrieveMs: 0, fuseMs: 0, totalMs: 0 },
  };
}

describe("graph model", () => {
  const base = result({ externalId: "Q", source: "corpus" }, [
    paper("A", [
      ["methods", 1, 0.9],
      ["results", 2, 0.5],
    ]),
    paper("B", [["problems", 1, 0.7]]),
  ]);

  test("the query in the centre, one edge per credited facet", () => {
    const m = fromResult(base);
    assert.equal(m.centerId, "Q");
    assert.deepEqual(
      m.nodes.map((n) => [n.id, n.depth, n.rank, n.linkable]),
      [
        ["Q", 0, 0, true],
        ["A", 1, 1, true],
        ["B", 1, 2, true],
      ],
    );
    assert.deepEqual(
      m.edges.map((e) => e.id),
      ["Q→A:methods", "Q→A:results", "Q→B:problems"],
    );
    // Pasted text has no id and no page.
    const text = fromResult(result({ externalId: null, source: "text" }, [paper("A", [["methods", 1, 1]])]));
    assert.equal(text.centerId, CENTER_ID);
    assert.equal(text.nodes[0].linkable, false);
  });

  test("expanding adds new nodes one level out, and never duplicates an edge in either direction", () => {
    const m = addResults(
      fromResult(base),
      "A",
      result({ externalId: "A", source: "corpus" }, [
        paper("Q", [["methods", 1, 0.9]]), // the centre itself: the edge already exists the other way
        paper("B", [["contributions", 3, 0.4]]), // known node, new facet edge
        paper("C", [["results", 1, 0.6]]),
      ]),
    );
    assert.deepEqual(
      m.nodes.map((n) => [n.id, n.depth]),
      [
        ["Q", 0],
        ["A", 1],
        ["B", 1],
        ["C", 2],
      ],
    );
    assert.deepEqual(
      m.edges.map((e) => e.id),
      ["Q→A:methods", "Q→A:results", "Q→B:problems", "A→B:contributions", "A→C:results"],
    );
    assert.deepEqual(m.expanded, ["Q", "A"]);
    assert.throws(() => addResults(m, "nope", base), /no node nope/);
  });

  test("hiding a facet hides the papers only it connected", () => {
    const m = fromResult(base);
    assert.deepEqual([...visibleNodes(m, new Set<Facet>(["methods", "results", "problems", "contributions"]))].sort(), ["A", "B", "Q"]);
    assert.deepEqual([...visibleNodes(m, new Set<Facet>(["methods"]))].sort(), ["A", "Q"]);
    assert.deepEqual([...visibleNodes(m, new Set<Facet>())], ["Q"]);
  });

  test("weights scale widths and lengths; pies split by facet", () => {
    const m = fromResult(base);
    const rel = relativeWeights(m.edges);
    assert.equal(rel.get("Q→A:methods"), 1);
    assert.equal(rel.get("Q→A:results"), 0);
    assert.ok(Math.abs(rel.get("Q→B:problems")! - 0.5) < 1e-9);
    assert.equal(edgeWidth(0), 1.5);
    assert.equal(edgeWidth(1), 7);
    assert.ok(edgeLength(1) < edgeLength(0), "strong edges are short");
    assert.deepEqual(facetPie(m, "A"), { problems: 0, methods: 50, results: 50, contributions: 0 });
    // One spring per pair: A's two facet edges share one, shorter than its strongest edge alone.
    const springs = layoutSprings(m.edges, rel);
    assert.deepEqual([...springs.keys()], ["Q→A:methods", "Q→B:problems"]);
    assert.ok(Math.abs(springs.get("Q→A:methods")! - edgeLength(1) * 0.88) < 1e-9);
    assert.ok(Math.abs(springs.get("Q→B:problems")! - edgeLength(0.5)) < 1e-9);
    assert.deepEqual(
      nodeFacets(m, "A").map((f) => [f.facet, f.rank, f.other]),
      [
        ["methods", 1, "Q"],
        ["results", 2, "Q"],
      ],
    );
  });

  test("rings by rank, short labels, burst positions", () => {
    const ring = (depth: number, rank: number) => ringOf({ id: "x", title: "", year: null, venue: null, authors: [], depth, rank, linkable: true });
    assert.deepEqual([ring(0, 0), ring(1, 1), ring(1, 5), ring(1, 6), ring(1, 20), ring(1, 90), ring(2, 1)], [10, 9, 9, 8, 7, 6, 2]);
    assert.equal(shortTitle("Europarl: A Parallel Corpus"), "Europarl");
    assert.equal(shortTitle("A very long title without any colon that goes on and on"), "A very long title without any…");
    const pts = burstPositions({ x: 100, y: 0 }, { x: 0, y: 0 }, 3, 50);
    assert.equal(pts.length, 3);
    // The arc faces away from the centre: the middle point lies straight outwards.
    assert.ok(Math.abs(pts[1].x - 150) < 1e-9 && Math.abs(pts[1].y) < 1e-9);
    for (const p of pts) assert.ok(p.x > 100 - 1e-9, "all points on the outer side");
    const around = burstPositions({ x: 0, y: 0 }, { x: 0, y: 0 }, 4, 10);
    assert.ok(Math.abs(around[2].x + 10) < 1e-9, "a burst from the centre uses the whole circle");
    assert.deepEqual(burstPositions({ x: 0, y: 0 }, { x: 1, y: 1 }, 0), []);
  });
});

describe("node size by citations, colour by year", () => {
  test("size grows with the square root of the count, from 14 px uncited to 44 px the most cited", () => {
    assert.equal(citationSize(0, 40), 14);
    assert.equal(citationSize(40, 40), 44);
    assert.equal(citationSize(10, 40), 29);
    assert.equal(citationSize(3, 0), 14, "nothing cited on screen: every node the same");
  });

  test("years run from pale (oldest) to dark (newest); no year is grey", () => {
    assert.equal(yearColour(2000, 2000, 2020), "#fde725");
    assert.equal(yearColour(2020, 2000, 2020), "#440154");
    assert.equal(yearColour(2010, 2000, 2020), "#21918c");
    assert.equal(yearColour(1990, 2000, 2020), "#fde725", "clamped");
    assert.equal(yearColour(null, 2000, 2020), "#d4d4d8");
    assert.equal(yearColour(2005, 2005, 2005), "#440154");
    const m = fromResult(
      result({ externalId: "Q", source: "corpus" }, [
        { ...paper("A", [["methods", 1, 1]]), year: 2011 },
        { ...paper("B", [["methods", 2, 1]]), year: 2019 },
      ]),
    );
    assert.deepEqual(yearRange(m.nodes), { min: 2011, max: 2019 });
    assert.equal(yearRange([]), null);
  });

  test("several seeds: each seed a centre, each result linked to the seeds that surfaced it through their facets", () => {
    const seeded: MultiSeedResult = {
      corpus: "c",
      build: 1,
      retriever: "dense-graph",
      seedFusion: ["graph-rrf", "graph-rrf"],
      fusion: "rrf",
      rrfK: 60,
      seeds: [
        { index: 0, externalId: "S1", title: "Seed one", source: "corpus", retrieved: 2 },
        { index: 1, externalId: null, title: "", source: "text", retrieved: 1 },
      ],
      results: [
        {
          externalId: "A",
          title: "A",
          year: 2020,
          venue: null,
          authors: [],
          score: 0.03,
          facets: ["problems", "methods"],
          seeds: [
            { seed: 0, seedId: "S1", rank: 1, facets: ["methods"] },
            { seed: 1, seedId: null, rank: 4, facets: ["problems"] },
          ],
        },
        {
          externalId: "B",
          title: "B",
          year: 2020,
          venue: null,
          authors: [],
          score: 0.01,
          facets: ["results"],
          seeds: [{ seed: 0, seedId: "S1", rank: 2, facets: ["results"] }],
        },
      ],
      timings: { perSeedMs: [0, 0], fuseMs: 0, totalMs: 0 },
    };
    const m = fromSeedResult(seeded);
    assert.deepEqual(
      m.nodes.map((n) => [n.id, n.depth, n.rank, n.linkable, n.seed ?? null, n.title]),
      [
        ["S1", 0, 0, true, 0, "Seed one"],
        [`${CENTER_ID}1`, 0, 0, false, 1, "Seed 2"],
        ["A", 1, 1, true, null, "A"],
        ["B", 1, 2, true, null, "B"],
      ],
    );
    assert.deepEqual(m.nodes[2].seeds, [
      { seed: 0, rank: 1 },
      { seed: 1, rank: 4 },
    ]);
    assert.deepEqual(
      m.edges.map((e) => [e.id, e.rank]),
      [
        ["S1→A:methods", 1],
        [`${CENTER_ID}1→A:problems`, 4],
        ["S1→B:results", 2],
      ],
    );
    assert.equal(m.edges[0].weight, 1 / 61);
    // Hiding the first seed's facets leaves the second seed and what it surfaced.
    assert.deepEqual([...visibleNodes(m, new Set<Facet>(["problems"]))].sort(), [`${CENTER_ID}1`, "A", "S1"].sort());
  });
});
