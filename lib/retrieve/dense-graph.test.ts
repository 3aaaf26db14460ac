import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FACETS } from "@/lib/corpus/types";
import { testProvider } from "@/lib/db/testing";
import { buildGraphStage } from "@/lib/graph/build";
import { edgeWeightOf } from "@/lib/graph";
import { useMiniCorpusStore } from "@/lib/graph/testing";
import { UNSEEN_WALK, denseGraphRetriever } from "./dense-graph";
import { ephemeralStarts } from "./ephemeral";
import { clearGraphCache, loadGraph } from "./graph-store";
import type { RetrieveContext } from "./retriever";
import { maxSimEngine } from "./services";
import { unseenCopy } from "./testing";
import { walkFacet, type WalkStartEdges } from "./walk";

// The dense-graph retriever on a mix build of the six-paper corpus: an unseen copy of a corpus
// paper is inserted with the build's own s_f, walks with paths adding up, and hands its walk
// scores to graph-RRF as w_f(q, ·).

describe(`dense-graph retriever on a mix build (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-dense-graph-");

  test("an unseen copy of a corpus paper gets the build's s_f to its neighbours, walks with sums, and reports its walk as w_f(q, ·)", async () => {
    clearGraphCache();
    const report = await buildGraphStage(t.db, { corpus: "mini", k: 3, workers: 1 });
    assert.equal(report.similarity, "mix:0.5");
    const g = await loadGraph(t.db, "mini");
    assert.deepEqual(g.similarity, { kind: "mix", lexicalWeight: 0.5 });
    assert.equal(g.alpha, 0.25);
    assert.ok(g.lexical()?.facets.problems, "the build's lexical index is loaded");

    const node = g.indexOfExternalId.get("P2") as number;
    const ctx = unseenCopy(g, node);
    const starts = await ephemeralStarts(await maxSimEngine(), g.blocks(), g.graph, ctx.query.vectors, {
      alpha: g.alpha,
      exclude: node,
      mix: { lexicalWeight: 0.5, lexical: g.lexical()!, dense: g.vectors, texts: ctx.query.items },
    });
    for (const f of FACETS) {
      const csr = g.graph.facets[f]!;
      const s = starts[f] as WalkStartEdges;
      assert.ok(s.targets.length > 0, f);
      for (let e = 0; e < s.targets.length; e++) {
        // First-hop weight α·s_f: the corpus edge (node → target) has the same s_f (its c aside).
        const b = s.targets[e];
        assert.notEqual(b, node);
        const row = csr.offsets[node];
        const at = Array.from(csr.targets.subarray(row, csr.offsets[node + 1])).indexOf(b);
        if (at >= 0) assert.ok(Math.abs(s.weights[e] - g.alpha * csr.facetScores[row + at]) < 1e-5, `${f} → ${b}`);
      }
    }
    // P2's twin P3 ("named entity recognition") is its best problems neighbour.
    assert.equal(g.externalIds[(starts.problems as WalkStartEdges).targets[0]], "P3");

    const lists = await denseGraphRetriever.retrieve(ctx);
    for (const f of FACETS) {
      const walk = walkFacet(g.graph.facets[f]!, starts[f] as WalkStartEdges, { cap: 50, ...UNSEEN_WALK });
      assert.deepEqual(
        lists[f]?.map((c) => c.paper),
        Array.from(walk.papers),
        f,
      );
      assert.ok(!lists[f]?.some((c) => c.paper === node), "the query's own node is never returned");
      const edges = ctx.queryEdges[f]!;
      assert.deepEqual(Array.from(edges.targets), Array.from(walk.papers));
      assert.deepEqual(Array.from(edges.weights), Array.from(walk.scores));
    }
    // Sums: a paper reached by a first-hop edge and through other seeds scores above its first-hop weight.
    const first = starts.methods as WalkStartEdges;
    const w = ctx.queryEdges.methods!;
    const b = first.targets[0];
    assert.ok(w.weights[Array.from(w.targets).indexOf(b)] >= first.weights[0] - 1e-9);
  });

  test("a corpus paper keeps the paper's walk and leaves w_f(q, ·) to its own row", async () => {
    const g = await loadGraph(t.db, "mini");
    const node = g.indexOfExternalId.get("P0") as number;
    const ctx: RetrieveContext = { ...unseenCopy(g, node), query: { ...unseenCopy(g, node).query, index: node, exclude: null } };
    const lists = await denseGraphRetriever.retrieve(ctx);
    assert.deepEqual(ctx.queryEdges, {});
    const csr = g.graph.facets.problems!;
    assert.deepEqual(
      lists.problems?.map((c) => c.paper),
      Array.from(walkFacet(csr, node, { cap: 50 }).papers),
    );
    assert.ok(edgeWeightOf(csr, node, lists.problems![0].paper) > 0);
  });
});
