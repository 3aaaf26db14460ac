import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { NotFoundError, FACETS } from "@/lib/corpus";
import { testProvider } from "@/lib/db/testing";
import { buildGraphStage } from "@/lib/graph/build";
import { miniPapers, useMiniCorpusStore } from "@/lib/graph/testing";
import { loadGraph, NoGraphBuildError, HYBRID, hybridRetriever, registerRetriever, textEncoder } from "@/lib/retrieve";
import { dot } from "@/lib/embed";
import { embedQueryItems } from "./services";
import { relatedOptions, relatedPapers, type RelatedOptions } from "./related";

// relatedPapers over a real (small) graph build: provenance, evidence, graph-RRF filtering,
// facet subsets, filters and errors.

describe(`relatedPapers (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-related-");
  // These cases test the dense-graph teacher and graph-RRF; the default (hybrid) has its own tests.
  const opts = (o: Record<string, unknown> = {}) => relatedOptions.parse({ retriever: "dense-graph", fusion: "graph-rrf", ...o });

  test("a corpus without a graph build is a clear set-up error", async () => {
    await assert.rejects(relatedPapers(t.db, { corpus: "mini", paperId: "P0" }, opts()), (err: unknown) => {
      assert.ok(err instanceof NoGraphBuildError);
      assert.match((err as Error).message, /build --stage graph/);
      return true;
    });
  });

  test("results carry credited facets, edge weights and why-related evidence", async () => {
    await buildGraphStage(t.db, { corpus: "mini", k: 2, workers: 1 });
    const r = await relatedPapers(t.db, { corpus: "mini", paperId: "P0" }, opts({ k: 5 }));
    assert.equal(r.query.externalId, "P0");
    assert.ok(r.results.length > 0);
    assert.ok(!r.results.some((x) => x.externalId === "P0"), "the query is never its own result");
    assert.equal(r.results[0].externalId, "P1", "its topical twin comes first");
    for (const x of r.results) {
      assert.ok(x.facets.length > 0, `${x.externalId} has provenance`);
      for (const f of x.facets) {
        assert.ok(f.weight > 0, "graph-RRF credits only facets with an edge");
        assert.ok(f.rank >= 1);
        assert.ok(f.evidence, "evidence pairs the query's item with the paper's item");
        assert.ok(f.evidence.similarity > -1 && f.evidence.similarity <= 1.0001);
      }
    }
    const twin = r.results[0].facets.find((f) => f.facet === "problems");
    assert.equal(twin?.evidence?.queryItem, "neural machine translation quality");
    assert.equal(twin?.evidence?.paperItem, "low-resource machine translation");
    for (const f of FACETS) assert.ok(r.perFacet[f].length > 0, `per-facet list for ${f}`);
  });

  test("graph-RRF drops two-hop candidates that plain RRF keeps", async () => {
    const g = await relatedPapers(t.db, { corpus: "mini", paperId: "P0" }, opts({ k: 10, fusion: "graph-rrf" }));
    const plain = await relatedPapers(t.db, { corpus: "mini", paperId: "P0" }, opts({ k: 10, fusion: "rrf" }));
    assert.ok(plain.results.length > g.results.length, `${plain.results.length} > ${g.results.length}`);
    // With K = 2, each facet has two direct neighbours; anything else came from a second hop.
    const direct = new Set(g.results.map((x) => x.externalId));
    assert.ok(plain.results.some((x) => !direct.has(x.externalId)));
    assert.ok(
      plain.results.every((x) => x.facets.every((f) => f.weight === 1)),
      "plain RRF weighs every facet 1",
    );
  });

  test("facet subsets, year and venue filters", async () => {
    const only = await relatedPapers(t.db, { corpus: "mini", paperId: "P0" }, opts({ facets: "methods" }));
    assert.ok(only.results.every((x) => x.facets.every((f) => f.facet === "methods")));
    assert.equal(only.perFacet.problems.length, 0);
    const y = await relatedPapers(t.db, { corpus: "mini", paperId: "P0" }, opts({ yearFrom: 2019, yearTo: 2019, fusion: "rrf" }));
    assert.ok(y.results.length > 0);
    assert.ok(y.results.every((x) => x.year === 2019));
    const v = await relatedPapers(t.db, { corpus: "mini", paperId: "P0" }, opts({ venue: "EMNLP" }));
    assert.equal(v.results.length, 0);
  });

  test("pasted text: offline extraction, ephemeral insertion, graph-RRF over the ephemeral edges", async () => {
    const steps: string[] = [];
    const text =
      "Improving neural machine translation quality\n\nWe study neural machine translation quality for low-resource language pairs. " +
      "We propose an attention-based encoder-decoder for translation trained with back-translation. BLEU improves by two points over a strong baseline.";
    const r = await relatedPapers(t.db, { corpus: "mini", text }, opts({ k: 3 }), { onStep: (s) => steps.push(s) });
    assert.deepEqual(steps, ["parse", "extract", "embed", "retrieve", "fuse"]);
    assert.equal(r.query.source, "text");
    assert.equal(r.query.inGraph, false);
    assert.equal(r.query.externalId, null);
    assert.equal(r.query.extraction?.provider, "offline");
    assert.ok(r.query.facets.methods.length > 0, "the extractor found methods");
    assert.equal(r.fusion, "graph-rrf");
    assert.match(r.fusionNote ?? "", /ephemeral/);
    assert.ok(r.results.length > 0 && r.results.length <= 3);
    assert.ok(["P0", "P1"].includes(r.results[0].externalId), `a translation paper first, got ${r.results[0].externalId}`);
    for (const x of r.results)
      for (const f of x.facets) {
        // First-hop weights of an unseen paper are α·s with c = 0.
        assert.ok(f.weight > 0 && f.weight <= 0.75 + 1e-6, `${f.weight}`);
        assert.ok(f.evidence && r.query.facets[f.facet].includes(f.evidence.queryItem));
      }
    assert.ok(r.timings.embedMs > 0 && r.timings.extractMs !== undefined);
  });

  test("query items: stored vectors for corpus texts, recent ones remembered, new ones embedded once", async () => {
    const g = await loadGraph(t.db, "mini");
    const items = {
      problems: ["neural machine translation quality"],
      methods: ["a brand-new method sentence for the memory test"],
      results: [],
      contributions: [],
    };
    const first = await embedQueryItems(g, items);
    assert.equal(first.embedded, 1, "the corpus item comes from the build's cache");
    assert.deepEqual(first.vectors.problems[0], g.vectorOf("neural machine translation quality"));
    const again = await embedQueryItems(g, items);
    assert.equal(again.embedded, 0);
    assert.deepEqual(again.vectors.methods[0], first.vectors.methods[0]);
  });

  test("BM25 retriever over titles and facets, fused with graph-RRF for a corpus paper", async () => {
    const r = await relatedPapers(t.db, { corpus: "mini", paperId: "P2" }, opts({ retriever: "bm25", fusion: "rrf" }));
    assert.equal(r.retriever, "bm25");
    assert.equal(r.results[0].externalId, "P3", "the other entity-recognition paper shares the most words");
    assert.ok(!r.results.some((x) => x.externalId === "P2"));
    const g = await relatedPapers(t.db, { corpus: "mini", paperId: "P2" }, opts({ retriever: "bm25" }));
    assert.ok(g.results.every((x) => x.facets.every((f) => f.weight > 0)));
    assert.ok(g.results.length <= r.results.length);
  });

  // The default's first stage, before its learned second stage (trees fitted on the real corpus, whose
  // order on this six-paper corpus says nothing): what the order assertions below are about.
  registerRetriever(hybridRetriever({ ...HYBRID, rerank: null }, "hybrid-first-stage"));
  // The same with the seeds' votes going only to what they cite (no later-work hop).
  registerRetriever(hybridRetriever({ ...HYBRID, rerank: null, laterWeight: 0 }, "hybrid-earlier-only"));

  test("the default (hybrid + auto = RRF): lexical seeds, then what they cite, with the whole paper beside the facets", async () => {
    const text =
      "Back-translation for low-resource machine translation\n\nWe study low-resource machine translation. " +
      "We use back-translation of monolingual data with an attention-based encoder-decoder for translation.";
    const served = await relatedPapers(t.db, { corpus: "mini", text }, relatedOptions.parse({ k: 6 }));
    assert.equal(served.retriever, "hybrid");
    assert.equal(served.requestedFusion, "auto");
    assert.equal(served.fusion, "rrf");
    assert.match(served.fusionNote ?? "", /whole paper's text/);
    const opts6 = { ...relatedOptions.parse({ k: 6 }), retriever: "hybrid-first-stage" as string } as RelatedOptions;
    const r = await relatedPapers(t.db, { corpus: "mini", text }, opts6);
    // The second stage re-orders the first stage's pool; it adds and drops nothing.
    assert.deepEqual(served.results.map((x) => x.externalId).sort(), r.results.map((x) => x.externalId).sort());
    const ids = r.results.map((x) => x.externalId);
    // The two translation papers match the words; P5 (opinion mining) shares none, but both of
    // them cite it, so it is reached, and above the other sentiment paper.
    assert.deepEqual(ids.slice(0, 3).sort(), ["P0", "P1", "P5"], ids.join(","));
    assert.ok(ids.indexOf("P1") < ids.indexOf("P0"), "the paper about low-resource translation before the other one");
    assert.ok(!ids.includes("P4") || ids.indexOf("P5") < ids.indexOf("P4"));
    const cited = r.results.find((x) => x.externalId === "P5");
    assert.ok(cited?.wholePaperRank !== undefined && cited.wholePaperRank <= 3);
    assert.ok(cited.facets.length > 0, "the facet lists reach it too, and say which");

    // Restricted to one facet: that facet's list alone, no whole-paper list.
    const only = await relatedPapers(t.db, { corpus: "mini", text }, relatedOptions.parse({ k: 6, facets: "methods" }));
    assert.ok(only.results.length > 0);
    for (const x of only.results) {
      assert.deepEqual(
        x.facets.map((f) => f.facet),
        ["methods"],
      );
      assert.equal(x.wholePaperRank, undefined);
    }
  });

  test("a pasted paper under the default is not embedded with the build's embedder: its evidence pairs items by the text encoder", async () => {
    const text =
      "Back-translation for low-resource machine translation\n\nWe study low-resource machine translation. " +
      "We use back-translation of monolingual data with an attention-based encoder-decoder for translation.";
    const r = await relatedPapers(t.db, { corpus: "mini", text }, relatedOptions.parse({ k: 3 }));
    const encoder = textEncoder();
    assert.ok(encoder);
    const evidence = r.results.flatMap((x) => x.facets.map((f) => f.evidence)).filter((e) => e !== null);
    assert.ok(evidence.length > 0);
    for (const e of evidence) assert.ok(Math.abs(e.similarity - dot(encoder.embedOne(e.queryItem), encoder.embedOne(e.paperItem))) < 1e-5, e.queryItem);
  });

  test("hidden papers are treated as absent: never returned, and their references never vote", async () => {
    const text =
      "Back-translation for low-resource machine translation\n\nWe study low-resource machine translation. " +
      "We use back-translation of monolingual data with an attention-based encoder-decoder for translation.";
    // P5 shares no word with the text; only P0 and P1, which cite it, lead there (the text
    // encoder's list, which finds it by meaning, is left out so that citations are all that can).
    registerRetriever(hybridRetriever({ ...HYBRID, encoder: undefined }, "hybrid-citations-only"));
    const options = { ...relatedOptions.parse({ k: 6 }), retriever: "hybrid-citations-only" } as unknown as RelatedOptions;
    const one = await relatedPapers(t.db, { corpus: "mini", text }, options, { hidden: ["P0"] });
    const ids = one.results.map((x) => x.externalId);
    assert.ok(!ids.includes("P0"));
    assert.ok(ids.includes("P5"), "P1 still cites it");
    const both = await relatedPapers(t.db, { corpus: "mini", text }, options, { hidden: ["P0", "P1", "not-a-paper"] });
    const left = both.results.map((x) => x.externalId);
    assert.ok(!left.includes("P0") && !left.includes("P1"));
    assert.ok(!left.includes("P5"), `nothing leads to P5 any more: ${left.join(",")}`);
  });

  test("the default restricted to one facet ranks by that facet: a shared result before the topical twin", async () => {
    const all = await relatedPapers(t.db, { corpus: "mini", paperId: "P0" }, relatedOptions.parse({ k: 3 }));
    assert.ok(["P1", "P5"].includes(all.results[0].externalId), "over all facets, the other translation paper or what both cite");
    // P0's result "BLEU improves by two points" shares "improves" with P2's result only.
    const results = await relatedPapers(t.db, { corpus: "mini", paperId: "P0" }, relatedOptions.parse({ k: 3, facets: "results" }));
    assert.equal(results.results[0].externalId, "P2", results.results.map((x) => x.externalId).join(","));
    assert.deepEqual(
      results.results[0].facets.map((f) => f.facet),
      ["results"],
    );
  });

  test("a paper record with a corpus id is queried as unseen: never returned", async () => {
    const paper = { id: "P0", title: "Paper 0", abstract: miniPapers[0].abstract, facets: miniPapers[0].facets };
    const served = await relatedPapers(t.db, { corpus: "mini", paper }, relatedOptions.parse({ k: 6 }));
    assert.equal(served.query.inGraph, false);
    assert.ok(!served.results.some((x) => x.externalId === "P0"));
    const ask = (retriever: string) => relatedPapers(t.db, { corpus: "mini", paper }, { ...relatedOptions.parse({ k: 6 }), retriever } as RelatedOptions);
    const ids = (await ask("hybrid-earlier-only")).results.map((x) => x.externalId);
    assert.ok(!ids.includes("P0"));
    assert.deepEqual(ids.slice(0, 2).sort(), ["P1", "P5"], "its topical twin, and what the twin cites");
    // With the later-work hop the twin is still among the first, and P0 still never returned.
    const both = (await ask("hybrid-first-stage")).results.map((x) => x.externalId);
    assert.ok(!both.includes("P0") && both.slice(0, 3).includes("P1"), both.join(","));
  });

  test("candidates: only those papers, each ranked; the unreached ones last in the request's order", async () => {
    const candidates = ["P5", "P3", "P0", "P2", "P4", "P5"];
    const o = relatedOptions.parse({ retriever: "bm25", fusion: "rrf", candidates });
    assert.deepEqual(o.candidates, ["P5", "P3", "P0", "P2", "P4"], "repeats dropped, first place kept");
    assert.equal(o.k, 5, "k defaults to every candidate");
    const r = await relatedPapers(t.db, { corpus: "mini", paperId: "P2" }, o);
    const ids = r.results.map((x) => x.externalId);
    // P3 shares the entity-recognition words, P0 only "improves"; P5 and P4 share none.
    assert.deepEqual(ids, ["P3", "P0", "P5", "P4"], ids.join(","));
    assert.deepEqual(r.candidates, { given: 5, ranked: 4, reached: 2, excluded: ["P2"] });
    assert.ok(r.results.slice(0, 2).every((x) => !x.unreached && x.facets.length > 0));
    for (const x of r.results.slice(2)) {
      assert.equal(x.unreached, true);
      assert.deepEqual(x.facets, []);
      assert.equal(x.score, 0);
    }
    for (const f of FACETS)
      assert.ok(
        r.perFacet[f].every((e) => candidates.includes(e.externalId)),
        "per-facet lists hold candidates only",
      );

    // The default (hybrid): what the seeds cite is reached too, and only candidates come back.
    const h = await relatedPapers(t.db, { corpus: "mini", paperId: "P2" }, relatedOptions.parse({ candidates: "P4,P0\nP1", k: 2 }));
    assert.equal(h.results.length, 2);
    assert.equal(h.results[0].externalId, "P4", "P3, its twin, cites it");
    assert.ok(h.results.every((x) => ["P4", "P0", "P1"].includes(x.externalId)));
    assert.equal(h.candidates?.given, 3);

    // Restricted to one facet: still every candidate ranked.
    const m = await relatedPapers(
      t.db,
      { corpus: "mini", paperId: "P0" },
      relatedOptions.parse({ facets: "methods", candidates: ["P1", "P2", "P3", "P4", "P5"] }),
    );
    assert.deepEqual(m.results.map((x) => x.externalId).sort(), ["P1", "P2", "P3", "P4", "P5"]);
    assert.ok(m.results.every((x) => x.unreached || x.facets.every((f) => f.facet === "methods")));

    // Ids outside the build are named; k may be up to the number of candidates.
    await assert.rejects(
      relatedPapers(t.db, { corpus: "mini", paperId: "P0" }, relatedOptions.parse({ candidates: ["P1", "NOPE"] })),
      /1 of the 2 candidates is not a paper of corpus "mini".*"NOPE"/,
    );
    assert.throws(() => relatedOptions.parse({ candidates: ["P1", "P2"], k: 101 }), /k must be at most 100/);
    assert.equal(relatedOptions.parse({ candidates: Array.from({ length: 150 }, (_, i) => `X${i}`), k: 150 }).k, 150);
    assert.throws(() => relatedOptions.parse({ k: 150 }), /k must be at most 100/);
    assert.equal(relatedOptions.parse({}).k, 20);
    assert.throws(() => relatedOptions.parse({ candidates: " , " }), /at least one candidate/);
  });

  test("bad options and unknown papers are clear errors", async () => {
    assert.throws(() => relatedOptions.parse({ k: 0 }));
    assert.throws(() => relatedOptions.parse({ facets: "problems,findings" }), /facets must be among/);
    assert.throws(() => relatedOptions.parse({ yearFrom: 2020, yearTo: 2019 }), /yearFrom/);
    await assert.rejects(relatedPapers(t.db, { corpus: "mini", paperId: "NOPE" }, opts()), NotFoundError);
  });
});
