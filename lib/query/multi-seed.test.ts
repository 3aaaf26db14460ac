import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testProvider } from "@/lib/db/testing";
import type { Facet } from "@/lib/corpus";
import { HAND_CORPUS, useHandGraphStore } from "@/lib/retrieve/testing";
import { fuseSeedResults, relatedToSeeds, type MultiSeedResult } from "./multi-seed";
import { relatedOptions, relatedPapers } from "./related";
import { handleRelatedRequest } from "./request";
import type { QueryErrorBody, RelatedPaper, RelatedResult } from "./types";

// Several seeds: RRF over the seeds' lists (weight 1 each), seeds never returned, provenance per
// seed and facet. Unit tests of the fusion on hand-written lists, then relatedToSeeds and
// POST /api/related on the hand-made graph build.

const paper = (id: string, facets: Facet[], extra: Partial<RelatedPaper> = {}): RelatedPaper => ({
  externalId: id,
  title: `T ${id}`,
  year: 2020,
  venue: null,
  authors: [],
  score: 1,
  facets: facets.map((facet) => ({ facet, rank: 1, score: 1, weight: 1, queryItem: null, docId: null, evidence: null })),
  ...extra,
});
const seedResult = (seedId: string | null, results: RelatedPaper[]) => ({ query: { externalId: seedId }, results }) as unknown as RelatedResult;

describe("fuseSeedResults", () => {
  test("RRF over seeds with weight 1, ties by best rank, provenance of seeds and facets", () => {
    const a = seedResult("A", [paper("X", ["problems"]), paper("Y", ["methods"]), paper("Z", [])]);
    const b = seedResult("B", [paper("Y", ["results"]), paper("W", ["problems", "methods"]), paper("X", ["methods"])]);
    const fused = fuseSeedResults([a, b], { k: 10, rrfK: 60 });
    assert.deepEqual(
      fused.map((p) => p.externalId),
      ["Y", "X", "W", "Z"],
    );
    const [y, x, w, z] = fused;
    assert.ok(Math.abs(y.score - (1 / 62 + 1 / 61)) < 1e-12);
    assert.ok(Math.abs(x.score - (1 / 61 + 1 / 63)) < 1e-12);
    assert.ok(Math.abs(w.score - 1 / 62) < 1e-12);
    assert.ok(Math.abs(z.score - 1 / 63) < 1e-12);
    assert.deepEqual(y.seeds, [
      { seed: 0, seedId: "A", rank: 2, facets: ["methods"] },
      { seed: 1, seedId: "B", rank: 1, facets: ["results"] },
    ]);
    assert.deepEqual(y.facets, ["methods", "results"]);
    assert.deepEqual(x.facets, ["problems", "methods"]);
    assert.deepEqual(z.seeds, [{ seed: 0, seedId: "A", rank: 3, facets: [] }]);
    assert.deepEqual(
      fuseSeedResults([a, b], { k: 2, rrfK: 60 }).map((p) => p.externalId),
      ["Y", "X"],
    );
  });

  test("a seed is never a result, even when another seed's list holds it", () => {
    const a = seedResult("A", [paper("B", ["problems"]), paper("X", ["problems"])]);
    const b = seedResult("B", [paper("A", ["methods"]), paper("X", ["methods"])]);
    const fused = fuseSeedResults([a, b], { k: 10, rrfK: 60 });
    assert.deepEqual(
      fused.map((p) => p.externalId),
      ["X"],
    );
    // The seeds keep their places: X is second in both lists.
    assert.deepEqual(
      fused[0].seeds.map((s) => s.rank),
      [2, 2],
    );
  });

  test("candidates no seed reached come last, in the request's order", () => {
    const a = seedResult("A", [paper("X", ["problems"]), paper("Q", [], { unreached: true, score: 0 }), paper("P", [], { unreached: true, score: 0 })]);
    const b = seedResult("B", [paper("P", ["methods"]), paper("Q", [], { unreached: true, score: 0 }), paper("X", [], { unreached: true, score: 0 })]);
    const fused = fuseSeedResults([a, b], { k: 10, rrfK: 60, candidates: ["Q", "X", "P"] });
    assert.deepEqual(
      fused.map((p) => [p.externalId, p.unreached ?? false]),
      [
        ["P", false], // 1/61 each: a tie, broken by best rank, then id
        ["X", false],
        ["Q", true],
      ],
    );
  });
});

describe(`relatedToSeeds (${testProvider})`, { concurrency: false }, () => {
  const t = useHandGraphStore("graft-multi-seed-");
  const opts = (o: Record<string, unknown> = {}) => relatedOptions.parse({ retriever: "dense-graph", fusion: "rrf", ...o });

  test("fuses each seed's relatedPapers list, never returns a seed, says which seed and facet", async () => {
    const seeds = [{ paperId: "H0" }, { paperId: "H2" }];
    const r = await relatedToSeeds(t.db, HAND_CORPUS, seeds, opts({ k: 10 }));
    assert.deepEqual(
      r.seeds.map((s) => s.externalId),
      ["H0", "H2"],
    );
    assert.equal(r.fusion, "rrf");
    assert.ok(r.results.length > 0);
    assert.ok(!r.results.some((p) => p.externalId === "H0" || p.externalId === "H2"));
    // Each seed's own list, as a single query answers it.
    const lists = await Promise.all(seeds.map((s) => relatedPapers(t.db, { corpus: HAND_CORPUS, ...s }, opts({ k: 100 }))));
    for (const p of r.results) {
      assert.ok(p.seeds.length > 0, `${p.externalId} has a seed`);
      let expected = 0;
      for (const s of p.seeds) {
        const list = lists[s.seed].results;
        const at = list.findIndex((x) => x.externalId === p.externalId);
        assert.equal(at + 1, s.rank, `${p.externalId}'s rank in seed ${s.seed}'s list`);
        assert.deepEqual(
          s.facets,
          list[at].facets.map((f) => f.facet),
        );
        expected += 1 / (r.rrfK + s.rank);
      }
      assert.ok(Math.abs(p.score - expected) < 1e-12);
    }
    // A paper both seeds reach (H1, H3 are neighbours of H0 and H2) is credited to both.
    assert.ok(r.results.some((p) => p.seeds.length === 2));
    for (let i = 1; i < r.results.length; i++) assert.ok(r.results[i - 1].score >= r.results[i].score);
  });

  test("POST /api/related with seeds: the fused result; bad seeds are 400 with issues", async () => {
    const post = (body: unknown, query = "") =>
      handleRelatedRequest(
        t.db,
        new Request(`http://graft.test/api/related${query}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      );
    const res = await post({ corpus: HAND_CORPUS, seeds: ["H0", { paperId: "H2" }], k: 3, retriever: "dense-graph", fusion: "rrf" });
    assert.equal(res.status, 200);
    const r = (await res.json()) as MultiSeedResult;
    assert.equal(r.seeds.length, 2);
    assert.ok(r.results.length > 0 && r.results.length <= 3);
    assert.ok(r.results.every((p) => p.seeds.length > 0 && !["H0", "H2"].includes(p.externalId)));

    const empty = await post({ corpus: HAND_CORPUS, seeds: [] });
    assert.equal(empty.status, 400);
    assert.match(((await empty.json()) as QueryErrorBody).error.issues?.map((i) => i.message).join(" ") ?? "", /at least one seed/);
    const badK = await post({ corpus: HAND_CORPUS, seeds: ["H0", "H2"], k: 0 });
    assert.equal(badK.status, 400);
    const missing = await post({ corpus: HAND_CORPUS, seeds: ["H0", "NOPE"] });
    assert.equal(missing.status, 404);
    const streamed = await post({ corpus: HAND_CORPUS, seeds: ["H0", "H2"] }, "?stream=1");
    const last = (await streamed.text()).trim().split("\n").pop() ?? "";
    assert.match(last, /stream=1 answers one paper at a time/);
  });
});
