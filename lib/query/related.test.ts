import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { NotFoundError } from "@/lib/corpus/browse";
import { FACETS } from "@/lib/corpus/types";
import { testProvider } from "@/lib/db/testing";
import { buildGraphStage } from "@/lib/graph/build";
import { useMiniCorpusStore } from "@/lib/graph/testing";
import { NoGraphBuildError } from "./graph-store";
import { relatedOptions, relatedPapers } from "./related";

// relatedPapers over a real (small) graph build: provenance, evidence, graph-RRF filtering,
// facet subsets, filters and errors.

describe(`relatedPapers (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-related-");
  const opts = (o: Record<string, unknown> = {}) => relatedOptions.parse(o);

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
    assert.ok(plain.results.every((x) => x.facets.every((f) => f.weight === 1)), "plain RRF weighs every facet 1");
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

  test("bad options and unknown papers are clear errors", async () => {
    assert.throws(() => relatedOptions.parse({ k: 0 }));
    assert.throws(() => relatedOptions.parse({ facets: "problems,findings" }), /facets must be among/);
    assert.throws(() => relatedOptions.parse({ yearFrom: 2020, yearTo: 2019 }), /yearFrom/);
    await assert.rejects(relatedPapers(t.db, { corpus: "mini", paperId: "NOPE" }, opts()), NotFoundError);
  });
});
