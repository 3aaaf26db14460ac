import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Facet } from "@/lib/corpus";
import { chooseExamples, disagreement, eligibleCount, jaccard, titleWords, weakestSoleEvidence, type AttributedResult, type Candidate } from "./disagreement";
import { DEMO } from "./examples";

const ev = (similarity: number) => ({ similarity });
const list = (...ids: string[]) => ids.map((externalId) => ({ externalId }));

function result(perFacet: Record<Facet, string[]>, fused: [string, Facet[], number?][], empty: Facet[] = []): AttributedResult {
  return {
    query: {
      facets: { problems: empty.includes("problems") ? [] : ["p"], methods: empty.includes("methods") ? [] : ["m"], results: ["r"], contributions: ["c"] },
    },
    results: fused.map(([externalId, facets, sim = 0.5]) => ({ externalId, facets: facets.map((facet) => ({ facet, evidence: ev(sim) })) })),
    perFacet: {
      problems: list(...perFacet.problems),
      methods: list(...perFacet.methods),
      results: list(...perFacet.results),
      contributions: list(...perFacet.contributions),
    },
  };
}

describe("facet disagreement", () => {
  test("jaccard", () => {
    assert.equal(jaccard(new Set([1, 2]), new Set([2, 3])), 1 / 3);
    assert.equal(jaccard(new Set(), new Set()), 1);
  });

  test("identical facet lists have no spread and no sole finds", () => {
    const same = ["a", "b", "c"];
    const d = disagreement(result({ problems: same, methods: same, results: same, contributions: same }, [["a", ["problems", "methods"]]]));
    assert.equal(d.spread, 0);
    assert.deepEqual(d.soleFacets, []);
    assert.equal(d.corroborated, 1);
  });

  test("disjoint lists spread fully; each facet's first sole find is kept with its rank and evidence", () => {
    const d = disagreement(
      result(
        { problems: ["a", "b"], methods: ["c", "d"], results: ["e"], contributions: ["f"] },
        [
          ["x", ["methods", "results"]],
          ["c", ["methods"], 0.8],
          ["d", ["methods"], 0.3],
          ["a", ["problems"], 0.6],
        ],
        ["problems"],
      ),
    );
    assert.equal(d.spread, 1);
    assert.deepEqual(d.soleFacets, ["problems", "methods"]);
    assert.deepEqual(d.soleFinds.methods, { rank: 2, externalId: "c", similarity: 0.8 });
    assert.deepEqual(d.soleFinds.problems, { rank: 4, externalId: "a", similarity: 0.6 });
    assert.equal(weakestSoleEvidence(d), 0.6);
    assert.deepEqual(d.emptyFacets, ["problems"]);
  });

  test("title words drop stopwords and short words", () => {
    assert.deepEqual(
      [...titleWords("CEval: A Benchmark for Evaluating Counterfactual Text Generation")],
      ["ceval", "benchmark", "evaluating", "counterfactual", "text", "generation"],
    );
  });

  test("choosing examples: eligibility, ranking and no shared papers", () => {
    const base = (id: string, sole: Facet[], weakest: number, top: string[], extra: Partial<Candidate> = {}): Candidate => ({
      externalId: id,
      title: id,
      year: 2018,
      d: {
        spread: 0.9,
        soleFacets: sole,
        soleFinds: Object.fromEntries(sole.map((f, i) => [f, { rank: i + 1, externalId: top[i] ?? `${id}-${f}`, similarity: weakest }])),
        corroborated: 4,
        emptyFacets: [],
      },
      topIds: top,
      unexpected: 1,
      ...extra,
    });
    const all: Facet[] = ["problems", "methods", "results", "contributions"];
    const cands = [
      base("three", ["problems", "methods", "results"], 0.9, ["t1"], { year: 2019 }),
      // A third example from 2018 would exceed two per year.
      base("three-2018", ["problems", "methods", "results"], 0.95, ["t2"]),
      base("four-weak", all, 0.5, ["w1"]),
      base("four-strong", all, 0.8, ["s1", "shared"]),
      base("four-overlaps", all, 0.7, ["shared"]),
      base("two", ["problems", "methods"], 0.99, ["u1"]),
      base("incoherent", all, 0.95, ["i1"], { d: { ...base("x", all, 0.95, []).d, corroborated: 1 } }),
      base("expected", all, 0.95, ["e1"], { unexpected: 0 }),
      base("empty-facet", all, 0.95, ["f1"], { d: { ...base("x", all, 0.95, []).d, emptyFacets: ["results"] } }),
    ];
    assert.equal(eligibleCount(cands), 5);
    assert.deepEqual(
      chooseExamples(cands, 3).map((c) => c.externalId),
      ["four-strong", "four-weak", "three"],
    );
  });

  test("the committed example list is well formed", () => {
    assert.equal(DEMO.corpus, "acl-citegraph");
    assert.ok(DEMO.examples.length >= 4, "at least four curated examples");
    assert.equal(new Set(DEMO.examples.map((e) => e.paperId)).size, DEMO.examples.length);
    for (const e of DEMO.examples) {
      assert.ok(e.soleFacets.length >= 3, `${e.paperId}: at least three facets with sole finds`);
      assert.ok(e.title.length > 0);
    }
    assert.ok(DEMO.abstracts.length >= 1);
    for (const a of DEMO.abstracts) assert.ok(a.abstract.split(/\s+/).length >= 90);
    assert.match(DEMO.picked.how, /sole find/);
  });
});
