import { test } from "node:test";
import assert from "node:assert/strict";
import type { Facet } from "@/lib/corpus";
import { bestSingleFacet, leaveOneFacetOut } from "./ablation";
import { graphRrf } from "./graph-rrf";
import { listsFromPapers, restrictFacets } from "./types";

test("best single facet and leave-one-facet-out on an additive evaluator", () => {
  const gain: Record<Facet, number> = { problems: 0.1, methods: 0.05, results: 0.02, contributions: 0.03 };
  const evaluate = (fs: readonly Facet[]): number => fs.reduce((s, f) => s + gain[f], 0);
  const best = bestSingleFacet(evaluate);
  assert.equal(best.facet, "problems");
  assert.equal(best.value, 0.1);
  const loo = leaveOneFacetOut(evaluate);
  assert.ok(Math.abs(loo.full - 0.2) < 1e-12);
  // Removing problems costs 0.1, methods 0.05, results 0.02, contributions 0.03.
  assert.deepEqual(
    loo.rows.map((r) => [r.removed, Math.round(r.delta * 100) / 100]),
    [
      ["problems", -0.1],
      ["methods", -0.05],
      ["results", -0.02],
      ["contributions", -0.03],
    ],
  );
});

test("ablations compose with restrictFacets, graph-RRF and recall", () => {
  // Query 0; every listed candidate has an edge except paper 9. Gold {1, 2, 3}.
  const lists = listsFromPapers({ problems: [1, 9], methods: [2], results: [3, 1] });
  const weightOf = (_f: Facet, _q: number, d: number): number => (d === 9 ? 0 : 1);
  // Recall@20 of the one query (lib/eval/metrics is a layer above fusion).
  const gold = [1, 2, 3];
  const evaluate = (fs: readonly Facet[]): number => {
    const top = new Set(
      graphRrf(restrictFacets(lists, fs), { query: 0, weightOf })
        .slice(0, 20)
        .map((r) => r.paper),
    );
    return gold.filter((g) => top.has(g)).length / gold.length;
  };
  // results alone finds {3, 1} = 2/3; problems {1} = 1/3; methods {2} = 1/3; contributions nothing.
  assert.equal(bestSingleFacet(evaluate).facet, "results");
  const loo = leaveOneFacetOut(evaluate);
  assert.equal(loo.full, 1);
  // Without methods, 2 is lost (2/3); without problems or contributions nothing is.
  assert.deepEqual(
    loo.rows.map((r) => r.value),
    [1, 2 / 3, 2 / 3, 1],
  );
});
