import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { testProvider } from "@/lib/db/testing";
import type { Facet } from "@/lib/corpus";
import { fakeVector } from "@/lib/embed/fixtures/fake-embedder";
import { dot } from "@/lib/embed";
import { STATUS_OF_CODE } from "@/lib/http";
import { QueryError } from "./errors";
import { relatedOptions } from "./options";
import { relatedPapers, type RelatedInput } from "./related";
import { registerRetriever, RetrievalError, unregisterRetriever, type FacetCandidateLists, type Retriever } from "@/lib/retrieve";
import { HAND_CORPUS, handItem, useHandGraphStore } from "@/lib/retrieve/testing";
import type { RelatedResult } from "./types";

// relatedPapers over the hand-made graph of ./testing.ts with fixed candidate lists, plugged in
// as the "graft" retriever through the public registry: every score below is computed by hand.
//
// Lists (node i = Hi): problems [1, 2, 3], methods [3, 1], results [2]; log-prob scores.
// Graph (query H0): w_problems(0,1) = .75, w_problems(0,3) = .5, w_methods(0,3) = .625, no other edge.

const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≉ ${b}`);
const L = Math.log;

const BASE: FacetCandidateLists = {
  problems: [
    { paper: 1, score: L(0.5), queryItem: 0, docId: "docid-p1", paperItem: 0 },
    { paper: 2, score: L(0.25), queryItem: 0, docId: "docid-p2", paperItem: 0 },
    { paper: 3, score: L(0.125), queryItem: 0, docId: "docid-p3", paperItem: 0 },
  ],
  methods: [
    { paper: 3, score: L(0.5), queryItem: 0 },
    { paper: 1, score: L(0.25), queryItem: 0 },
  ],
  results: [{ paper: 2, score: L(0.5) }],
};
let lists: FacetCandidateLists = BASE;
const fixed: Retriever = {
  name: "graft",
  scoreKind: "log-prob",
  retrieve: async (ctx) => Object.fromEntries(ctx.facets.filter((f) => lists[f]).map((f) => [f, lists[f]])),
};

const opts = (o: Record<string, unknown> = {}) => relatedOptions.parse({ retriever: "graft", ...o });
const ids = (r: RelatedResult) => r.results.map((x) => x.externalId);
const facetOf = (r: RelatedResult, id: string, f: Facet) => r.results.find((x) => x.externalId === id)?.facets.find((c) => c.facet === f);
/** An unseen paper with H0's items (they are in the build's vector cache, so nothing is embedded). */
const h0Record = (extra: Record<string, unknown> = {}): RelatedInput => ({
  corpus: HAND_CORPUS,
  paper: {
    title: "An unseen paper",
    facets: { problems: [handItem("problems", 0)], methods: [handItem("methods", 0)], results: [handItem("results", 0)] },
    ...extra,
  },
});

describe(`relatedPapers with hand-computed fusion (${testProvider})`, { concurrency: false }, () => {
  const t = useHandGraphStore("graft-query-hand-");
  const corpus = { corpus: HAND_CORPUS, paperId: "H0" };
  after(() => unregisterRetriever("graft"));

  test("retriever graft without a trained model is 409 not_ready naming the build", async () => {
    // Whatever the process registered as "graft", an unregistered one must answer this way.
    unregisterRetriever("graft");
    await assert.rejects(relatedPapers(t.db, corpus, opts()), (err: unknown) => {
      assert.ok(err instanceof RetrievalError);
      assert.equal(err.code, "not_ready");
      assert.equal(STATUS_OF_CODE[err.code], 409);
      assert.match(err.message, /build --stage/);
      return true;
    });
  });

  test("graph-RRF: Σ w_f / (60 + rank_f); candidates without an edge drop out", async () => {
    registerRetriever(fixed);
    lists = BASE;
    const r = await relatedPapers(t.db, corpus, opts({ fusion: "graph-rrf" }));
    assert.equal(r.fusion, "graph-rrf");
    assert.equal(r.fusionNote, null);
    assert.equal(r.query.inGraph, true);
    // H3: .5/63 (problems r3) + .625/61 (methods r1); H1: .75/61 (problems r1; methods has no edge).
    // H2 has no edge in any facet: filtered out.
    assert.deepEqual(ids(r), ["H3", "H1"]);
    close(r.results[0].score, 0.5 / 63 + 0.625 / 61);
    close(r.results[1].score, 0.75 / 61);
    assert.deepEqual(
      r.results[0].facets.map((f) => [f.facet, f.rank, f.weight]),
      [
        ["problems", 3, 0.5],
        ["methods", 1, 0.625],
      ],
    );
    assert.deepEqual(
      r.results[1].facets.map((f) => f.facet),
      ["problems"],
      "methods is not credited without an edge",
    );
  });

  test("provenance: the query item and DocID that produced each result, and why-related evidence", async () => {
    lists = BASE;
    const r = await relatedPapers(t.db, corpus, opts());
    const p = facetOf(r, "H3", "problems")!;
    assert.equal(p.queryItem, handItem("problems", 0));
    assert.equal(p.docId, "docid-p3");
    assert.deepEqual(p.evidence && { q: p.evidence.queryItem, d: p.evidence.paperItem }, { q: handItem("problems", 0), d: handItem("problems", 3) });
    close(p.evidence!.similarity, dot(fakeVector(handItem("problems", 0), 8), fakeVector(handItem("problems", 3), 8)));
    const m = facetOf(r, "H3", "methods")!;
    assert.equal(m.docId, null, "no DocID given, none invented");
    assert.equal(m.evidence?.paperItem, handItem("methods", 3));
    // Per-facet lists are the retriever's own, before fusion (H2 is still there).
    assert.deepEqual(
      r.perFacet.problems.map((x) => [x.externalId, x.rank]),
      [
        ["H1", 1],
        ["H2", 2],
        ["H3", 3],
      ],
    );
    close(r.perFacet.problems[1].score, L(0.25));
    assert.deepEqual(r.perFacet.contributions, []);
  });

  test("plain RRF keeps every candidate with weight 1", async () => {
    const r = await relatedPapers(t.db, corpus, opts({ fusion: "rrf" }));
    // H1: 1/61 + 1/62, H2: 1/62 + 1/61 (tie: same facet count and best rank, lower index first), H3: 1/63 + 1/61.
    assert.deepEqual(ids(r), ["H1", "H2", "H3"]);
    close(r.results[1].score, 1 / 62 + 1 / 61);
    close(r.results[2].score, 1 / 63 + 1 / 61);
    assert.ok(r.results.every((x) => x.facets.every((f) => f.weight === 1)));
  });

  test("lm-score sums each facet's identifier probability", async () => {
    const r = await relatedPapers(t.db, corpus, opts({ fusion: "lm-score" }));
    // H1 = .5 + .25, H2 = .25 + .5 (tie → lower index), H3 = .125 + .5.
    assert.deepEqual(ids(r), ["H1", "H2", "H3"]);
    close(r.results[0].score, 0.75);
    close(r.results[2].score, 0.625);
    await assert.rejects(relatedPapers(t.db, corpus, opts({ retriever: "dense-graph", fusion: "lm-score" })), /no.*probabilit|has none/);
  });

  test("an unseen paper: graph-RRF runs as corroboration RRF, corr_f replacing w_f", async () => {
    const r = await relatedPapers(t.db, h0Record(), opts({ fusion: "graph-rrf" }));
    assert.equal(r.query.source, "record");
    assert.equal(r.query.inGraph, false);
    assert.equal(r.requestedFusion, "graph-rrf");
    assert.equal(r.fusion, "corroboration-rrf");
    assert.match(r.fusionNote ?? "", /corroboration/);
    // C = {1, 2, 3}. problems: corr(1) = max(.375,.625) + max(.25,0) = .875, corr(2) = .625, corr(3) = .25;
    // methods: corr(3) = max(s(3,2), s(2,3)) = .5, corr(1) = max(s(1,2), s(2,1)) = .25; results has no edges → 0.
    // H1 = .875/61 + .25/62, H3 = .25/63 + .5/61, H2 = .625/62.
    assert.deepEqual(ids(r), ["H1", "H3", "H2"]);
    close(r.results[0].score, 0.875 / 61 + 0.25 / 62);
    close(r.results[1].score, 0.25 / 63 + 0.5 / 61);
    close(r.results[2].score, 0.625 / 62);
    assert.deepEqual(facetOf(r, "H2", "problems") && facetOf(r, "H2", "problems")!.weight, 0.625);
    assert.equal(facetOf(r, "H2", "results"), undefined, "an uncorroborated facet is not credited");
    const explicit = await relatedPapers(t.db, h0Record(), opts({ fusion: "corroboration-rrf" }));
    assert.deepEqual(ids(explicit), ids(r));
    assert.equal(explicit.fusionNote, null);
  });

  test("an uploaded record of a corpus paper never returns that paper", async () => {
    lists = {
      ...BASE,
      results: [
        { paper: 2, score: L(0.5) },
        { paper: 0, score: L(0.5) },
      ],
    };
    try {
      const r = await relatedPapers(t.db, h0Record({ id: "H0" }), opts({ fusion: "rrf" }));
      assert.equal(r.query.externalId, "H0");
      assert.ok(!ids(r).includes("H0"));
      assert.ok(!r.perFacet.results.some((x) => x.externalId === "H0"));
    } finally {
      lists = BASE;
    }
  });

  test("facet subsets, year and venue filters apply after fusion", async () => {
    const methods = await relatedPapers(t.db, corpus, opts({ facets: "methods" }));
    assert.deepEqual(ids(methods), ["H3"]);
    close(methods.results[0].score, 0.625 / 61);
    assert.deepEqual(methods.perFacet.problems, []);
    // H3 is from 2017 and EMNLP.
    assert.deepEqual(ids(await relatedPapers(t.db, corpus, opts({ yearFrom: 2018 }))), ["H1"]);
    assert.deepEqual(ids(await relatedPapers(t.db, corpus, opts({ venue: "EMNLP" }))), ["H3"]);
    assert.deepEqual(ids(await relatedPapers(t.db, corpus, opts({ k: 1 }))), ["H3"]);
  });

  test("a query with no items in the requested facets is a 422", async () => {
    const input: RelatedInput = { corpus: HAND_CORPUS, paper: { title: "Results only", facets: { results: [handItem("results", 1)] } } };
    await assert.rejects(relatedPapers(t.db, input, opts({ facets: "problems,methods" })), (err: unknown) => {
      assert.ok(err instanceof QueryError);
      assert.equal(STATUS_OF_CODE[err.code], 422);
      assert.equal(err.code, "no_facets");
      return true;
    });
  });
});
