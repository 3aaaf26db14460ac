import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { PaperGraph } from "@/lib/graph";
import { csrOf } from "@/lib/graph/csr-testing";
import { packFacetItems } from "@/lib/graph";
import "@/lib/retrieve";
import { bm25Retriever, bm25WholePaper } from "@/lib/retrieve";
import { denseGraphEphemeral, denseGraphRetriever } from "@/lib/retrieve";
import { denseOnlyRetriever } from "@/lib/retrieve";
import { maxSimEngine } from "@/lib/retrieve";
import { mulberry32 } from "@/lib/random";
import { retrieveAndFuse } from "@/lib/retrieve";
import { itemsOf } from "@/lib/retrieve";
import { getRetriever } from "@/lib/retrieve";
import { corpusIndex, corpusRetrieveContext } from "./corpus-index";
import { denseGraphInCorpus, denseOnlyRetrieve, paperItems, papersOf, prepareFacetIndex } from "./dense-graph";
import { fivePaperGraph } from "./testing";

// Five papers with hand-made items and a hand-made graph (problems: 0→1, 1→2, 3→0; methods:
// 0→4, 4→3; no edges in the other two facets), as the harness's index over a corpus read from files.

const graph: PaperGraph = {
  ...fivePaperGraph,
  facets: {
    ...fivePaperGraph.facets,
    // Every facet with items has a graph, as in a build (dense-only ranks the facets of the graph).
    results: csrOf([[], [], [], [], []]),
    contributions: csrOf([[], [], [], [], []]),
  },
};

const titles = ["Neural machine translation", "Named entity recognition", "Sentiment of reviews", "Parsing with grammars", "Question answering"];
const facetsOf = (p: number): Record<Facet, string[]> => ({
  problems: [`${titles[p].toLowerCase()} problem`],
  methods: p === 2 ? ["lexicon features", "polarity classifier"] : [`method ${p}`],
  results: [],
  contributions: [`contribution ${p}`],
});
const rand = mulberry32(3);
/** A random unit vector in 8 dimensions (item vectors; the `i`th item). */
const unitVector = (): Float32Array => {
  const v = Float32Array.from({ length: 8 }, () => rand() - 0.5);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const texts = titles.map((title, p) => ({ title, abstract: "", facets: facetsOf(p) }));
const items = Object.fromEntries(
  FACETS.map((f) => [
    f,
    packFacetItems(
      texts.map((t) => t.facets[f].map(() => unitVector())),
      8,
    ),
  ]),
) as Record<Facet, ReturnType<typeof packFacetItems>>;
const data = { ids: titles.map((_, p) => `P${p}`), years: [2018, 2019, null, 2020, 2017], texts, items };
const index = corpusIndex(data, graph, prepareFacetIndex(items), 0.75);
const paperContext = (q: number) => corpusRetrieveContext(index, { index: q, exclude: null, text: texts[q], vectors: paperItems(items, q) });

describe("the evaluation corpus as a retrieval index", () => {
  it("holds every paper's id, title, year, facet item texts and vectors, aligned", () => {
    assert.deepEqual(index.papers[2], { externalId: "P2", title: "Sentiment of reviews", year: null });
    for (let p = 0; p < 5; p++) {
      for (const f of FACETS) {
        assert.deepEqual(itemsOf(index, f, p), texts[p].facets[f]);
        assert.deepEqual(index.itemVectors(f, p), paperItems(items, p)[f]);
      }
    }
    assert.equal(index.lexical(), null);
    assert.equal(
      index.memo("x", () => 1),
      index.memo("x", () => 2),
    );
  });

  it("runs the registered retrievers' objects", () => {
    assert.equal(getRetriever("dense-graph", "any"), denseGraphRetriever);
    assert.equal(getRetriever("bm25", "any"), bm25Retriever);
  });

  it("the served dense-graph walk fused with RRF ranks as the paper's teacher does, for every paper", async () => {
    for (let q = 0; q < 5; q++) {
      const served = await retrieveAndFuse(denseGraphRetriever, paperContext(q), "rrf");
      assert.equal(served.applied, "rrf");
      assert.deepEqual(Array.from(papersOf(served.fused)), Array.from(denseGraphInCorpus(graph, q)), `paper ${q}`);
    }
    // The walk-depth ablation through the context's walk settings.
    for (let q = 0; q < 5; q++) {
      const oneHop = await retrieveAndFuse(denseGraphRetriever, { ...paperContext(q), walk: { hops: 1 } }, "rrf");
      assert.deepEqual(Array.from(papersOf(oneHop.fused)), Array.from(denseGraphInCorpus(graph, q, { hops: 1 })), `paper ${q}, 1 hop`);
    }
    // Paper 0: problems 1 (.9), 2 (.72); methods 4 (.7), 3 (.42).
    assert.deepEqual(Array.from(papersOf((await retrieveAndFuse(denseGraphRetriever, paperContext(0), "rrf")).fused)).sort(), [1, 2, 3, 4]);
  });

  it("an unseen paper: the served ephemeral insertion and walk with the paper's best paths rank as the eval's", async () => {
    const engine = await maxSimEngine();
    for (let q = 0; q < 5; q++) {
      // A copy of paper q as an out-of-corpus query that is also a corpus paper: q is never returned.
      const unseen = corpusRetrieveContext(index, { index: null, exclude: q, text: texts[q], vectors: paperItems(items, q) });
      const served = papersOf((await retrieveAndFuse(denseGraphRetriever, { ...unseen, walk: { combine: "max" } }, "rrf")).fused);
      const direct = papersOf((await denseGraphEphemeral(engine, index.blocks(), graph, paperItems(items, q), { exclude: q })).results);
      assert.deepEqual(Array.from(served), Array.from(direct), `paper ${q}`);
      assert.ok(served.length > 0 && !served.includes(q));
    }
  });

  it("dense-only ranks each facet by s_f and fuses with RRF, never returning the query paper", async () => {
    for (let q = 0; q < 5; q++) {
      const served = papersOf((await retrieveAndFuse(denseOnlyRetriever, paperContext(q), "rrf")).fused);
      const direct = papersOf(await denseOnlyRetrieve(await maxSimEngine(), index.blocks(), paperItems(items, q), { exclude: q }));
      assert.deepEqual(Array.from(served), Array.from(direct), `paper ${q}`);
      assert.equal(served.length, 4);
      assert.ok(!served.includes(q));
    }
  });

  it("BM25 over title and facets finds the lexical match, never the query paper or the excluded one", () => {
    const own = Array.from(papersOf(bm25WholePaper(paperContext(2))));
    assert.ok(!own.includes(2));
    const unseen = {
      title: "Polarity of product reviews",
      abstract: "",
      facets: { problems: ["sentiment of reviews"], methods: ["a lexicon of polarity words"], results: [], contributions: [] },
    };
    const ctx = (exclude: number | null) => corpusRetrieveContext(index, { index: null, exclude, text: unseen, vectors: {} });
    assert.equal(papersOf(bm25WholePaper(ctx(null)))[0], 2);
    assert.ok(!Array.from(papersOf(bm25WholePaper(ctx(2)))).includes(2));
    // The context asks only for the facets the query has items in.
    assert.deepEqual(ctx(null).facets, ["problems", "methods"]);
  });
});
