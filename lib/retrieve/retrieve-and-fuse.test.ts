import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FACETS, type Facet } from "@/lib/corpus/types";
import { graphOfEdges } from "@/lib/graph/csr-testing";
import { COSINE } from "@/lib/graph/similarity";
import { PackedTexts } from "./packed-texts";
import { precomputedRetriever } from "./precomputed";
import { retrieveAndFuse, type FusionRule } from "./retrieve-and-fuse";
import { memoMap, type RetrievalIndex } from "./retrieval-index";
import type { FacetCandidateLists, IndexRetrieveContext, Retriever } from "./retriever";

// The shared step on a bare index (no store, no served build): four papers, a graph in two
// facets (problems: 0→1 .9, 0→2 .3; methods: 0→3 .8), and a retriever with fixed lists.

const graph = graphOfEdges(
  4,
  {
    problems: [
      [0, 1, 0.9],
      [0, 2, 0.3],
    ],
    methods: [[0, 3, 0.8]],
  },
  2,
);
const none = (): Record<Facet, never[]> => Object.fromEntries(FACETS.map((f) => [f, []])) as unknown as Record<Facet, never[]>;
const index: RetrievalIndex = {
  graph,
  papers: [0, 1, 2, 3].map((p) => ({ externalId: `P${p}`, title: `Paper ${p}`, year: null })),
  items: Object.fromEntries(FACETS.map((f) => [f, { offsets: new Int32Array(5), texts: PackedTexts.from([]) }])) as RetrievalIndex["items"],
  vectors: Object.fromEntries(FACETS.map((f) => [f, { dim: 2, offsets: new Int32Array(5), data: new Float32Array(0) }])) as RetrievalIndex["vectors"],
  itemVectors: () => [],
  alpha: 0.75,
  similarity: COSINE,
  lexical: () => null,
  blocks: () => ({}),
  memo: memoMap(),
};

const LISTS: FacetCandidateLists = {
  problems: [
    { paper: 2, score: 1 },
    { paper: 1, score: 0.5 },
  ],
  methods: [{ paper: 3, score: 1 }],
  results: [{ paper: 1, score: 1 }],
};

function fixed(extra: Partial<Retriever<IndexRetrieveContext>> = {}): Retriever<IndexRetrieveContext> {
  return { name: "fixed", scoreKind: "score", retrieve: async () => structuredClone(LISTS), ...extra };
}

function context(query: { index: number | null; exclude?: number | null }, more: Partial<IndexRetrieveContext> = {}): IndexRetrieveContext {
  return {
    graph: index,
    query: { index: query.index, exclude: query.exclude ?? null, title: "", abstract: "", items: none(), vectors: none() },
    facets: ["problems", "methods"],
    pool: 10,
    queryEdges: {},
    ...more,
  };
}

const papers = (r: { fused: { paper: number }[] }) => r.fused.map((x) => x.paper);

describe("the shared retrieve-and-fuse step", () => {
  it("keeps the requested facets' lists only, and with candidates only the candidates", async () => {
    const r = await retrieveAndFuse(fixed(), context({ index: null }), "rrf");
    assert.deepEqual(Object.keys(r.lists), ["problems", "methods"]);
    assert.deepEqual(papers(r), [2, 3, 1]);
    const only = await retrieveAndFuse(fixed(), context({ index: null }, { candidates: new Set([1, 3]) }), "rrf");
    assert.deepEqual(
      only.lists.problems?.map((c) => c.paper),
      [1],
    );
    assert.deepEqual(papers(only), [1, 3]);
  });

  it("graph-RRF for a node reads its own rows (w_f), and never returns the node", async () => {
    const told: FusionRule[] = [];
    const r = await retrieveAndFuse(fixed(), context({ index: 0 }), "auto", (rule) => told.push(rule));
    assert.deepEqual(told, ["graph-rrf"]);
    assert.equal(r.applied, "graph-rrf");
    assert.equal(r.note, null);
    // w_f/(60 + rank): paper 1 .9/62 over 3's .8/61 and 2's .3/61, though 2 ranks first in problems.
    assert.deepEqual(papers(r), [1, 3, 2]);
    const withSelf = await retrieveAndFuse(
      fixed({ retrieve: async () => ({ problems: [{ paper: 0, score: 1 }, ...(LISTS.problems ?? [])] }) }),
      context({ index: 0 }),
      "rrf",
    );
    assert.ok(!papers(withSelf).includes(0));
  });

  it("an unseen paper: graph-RRF from the retriever's ephemeral edges, else corroboration RRF, each saying so", async () => {
    const edges = fixed({
      retrieve: async (ctx) => {
        ctx.queryEdges.problems = { targets: [1], weights: [0.9] };
        return structuredClone(LISTS);
      },
    });
    const viaEdges = await retrieveAndFuse(edges, context({ index: null }), "graph-rrf");
    assert.equal(viaEdges.applied, "graph-rrf");
    assert.match(viaEdges.note ?? "", /ephemeral edges/);
    assert.equal(papers(viaEdges)[0], 1);
    const corroborated = await retrieveAndFuse(fixed(), context({ index: null }), "graph-rrf");
    assert.equal(corroborated.applied, "corroboration-rrf");
    assert.match(corroborated.note ?? "", /corroboration RRF/);
    // "auto" follows the retriever's preference.
    assert.equal((await retrieveAndFuse(fixed({ preferredFusion: "rrf" }), context({ index: 0 }), "auto")).applied, "rrf");
  });

  it("fuses the whole-paper list beside the facet lists, then runs the second stage", async () => {
    const whole = fixed({
      retrieve: async (ctx) => {
        ctx.wholePaper = { list: [{ paper: 0, score: 1 }], weight: 1 };
        return structuredClone(LISTS);
      },
      rerank: async (_ctx, fused) => [...fused].reverse(),
    });
    const r = await retrieveAndFuse(whole, context({ index: null }), "rrf");
    assert.deepEqual(r.wholePaper?.list, [{ paper: 0, score: 1 }]);
    // RRF: 2, 3 and 0 (only in the whole-paper list, without facets) at 1/61, 1 at 1/62; reversed by the second stage.
    assert.equal(r.fused.length, 4);
    assert.equal(papers(r).at(0), 1);
    const zero = r.fused.find((x) => x.paper === 0);
    assert.deepEqual(zero?.wholePaper, { rank: 1, weight: 1 });
    assert.deepEqual(zero?.provenance, []);
  });
});

describe("corroboration depth and precomputed lists", () => {
  // Paper 0 is the hub of the problems graph (s .9 to 1, .3 to 2): corroboration credits a candidate by its links to the others.
  const hub = fixed({ retrieve: async () => ({ problems: [1, 2, 0].map((paper) => ({ paper, score: 1 })) }) });
  const problemsOnly = () => context({ index: null }, { facets: ["problems"] });

  it("corroboration RRF reads each list's top CORROBORATION_DEPTH papers, or as many as the settings say", async () => {
    const whole = await retrieveAndFuse(hub, problemsOnly(), "corroboration-rrf", undefined, { corroborationDepth: Number.POSITIVE_INFINITY });
    // corr(0) = .9 + .3 over rank 3, corr(1) = .9 over rank 1, corr(2) = .3 over rank 2.
    assert.deepEqual(papers(whole), [0, 1, 2]);
    assert.deepEqual(papers(await retrieveAndFuse(hub, problemsOnly(), "corroboration-rrf")), [0, 1, 2]);
    // Cut to its top paper, the list has nothing to corroborate it: nothing is credited.
    assert.deepEqual(papers(await retrieveAndFuse(hub, problemsOnly(), "corroboration-rrf", undefined, { corroborationDepth: 1 })), []);
  });

  it("a query's precomputed lists rank as a retriever's: LM-score by their score kind, graph-RRF over the edges they bring", async () => {
    const lists = {
      problems: [
        { paper: 2, score: Math.log(0.2) },
        { paper: 1, score: Math.log(0.5) },
      ],
      methods: [{ paper: 1, score: Math.log(0.4) }],
    };
    const lm = await retrieveAndFuse(precomputedRetriever({ name: "decoded", scoreKind: "log-prob", lists }), context({ index: null }), "lm-score");
    assert.deepEqual(papers(lm), [1, 2]);
    assert.ok(Math.abs(lm.fused[0].score - 0.9) < 1e-12);

    const ctx = context({ index: null });
    const queryEdges = { problems: { targets: [2], weights: [0.5] } };
    const viaEdges = await retrieveAndFuse(precomputedRetriever({ name: "decoded", scoreKind: "log-prob", lists, queryEdges }), ctx, "graph-rrf");
    assert.equal(viaEdges.applied, "graph-rrf");
    assert.deepEqual(ctx.queryEdges, queryEdges);
    // Only paper 2 has an edge from the query.
    assert.deepEqual(papers(viaEdges), [2]);
  });

  it("a candidate without a model score ranks under rank-based rules; LM-score refuses it", async () => {
    const unscored = precomputedRetriever({ name: "decoded", scoreKind: "log-prob", lists: { problems: [{ paper: 3 }, { paper: 1 }] } });
    assert.deepEqual(papers(await retrieveAndFuse(unscored, context({ index: null }), "rrf")), [3, 1]);
    await assert.rejects(retrieveAndFuse(unscored, context({ index: null }), "lm-score"), /no model score/);
  });
});
