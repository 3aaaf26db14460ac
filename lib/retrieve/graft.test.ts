import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FACETS, type Facet } from "@/lib/corpus";
import { testProvider } from "@/lib/db/testing";
import { buildGraphStage } from "@/lib/graph/build";
import { useMiniCorpusStore } from "@/lib/graph/testing";
import { UNSEEN_WALK, denseGraphRetriever, unseenStarts } from "./dense-graph";
import { GENERATED_SEED_WEIGHT, walkFromGenerated } from "./graft";
import { clearGraphCache, itemsOf, loadGraph, vectorsOf, type LoadedGraph } from "./graph-store";
import type { FacetCandidateLists, RetrieveContext } from "./retriever";
import { walkFacet } from "./walk";

// The graft retriever's unseen-paper path on a mix build of the six-paper corpus: the papers the
// model generated join the query's ephemeral edges as walk seeds; the walk is the facet's list and
// its w_f(q, ·), and a generated paper keeps its DocID. (The decoding itself is tested in lib/genret.)

function unseenCopy(g: LoadedGraph, node: number): RetrieveContext {
  const items = Object.fromEntries(FACETS.map((f) => [f, itemsOf(g, f, node)])) as Record<Facet, string[]>;
  const vectors = Object.fromEntries(FACETS.map((f) => [f, vectorsOf(g, f, node)])) as Record<Facet, Float32Array[]>;
  return {
    db: undefined as never,
    graph: g,
    query: { index: null, exclude: node, title: "", abstract: "", items, vectors },
    facets: FACETS,
    pool: 50,
    queryEdges: {},
  };
}

describe(`graft retriever, unseen paper: generated papers seed the walk (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-graft-walk-");

  test("no generated papers: the teacher's walk; generated ones add γ·(strongest edge)·(their weight) as seeds and keep their DocIDs", async () => {
    clearGraphCache();
    await buildGraphStage(t.db, { corpus: "mini", k: 3, workers: 1 });
    const g = await loadGraph(t.db, "mini");
    const node = g.indexOfExternalId.get("P2") as number;

    // Nothing generated: exactly the dense-graph teacher's lists and w_f(q, ·).
    const none = unseenCopy(g, node);
    const bare = await walkFromGenerated(none, {});
    const teacher = unseenCopy(g, node);
    const taught = await denseGraphRetriever.retrieve(teacher);
    for (const f of FACETS) {
      assert.deepEqual(
        bare[f]?.map((c) => c.paper),
        taught[f]?.map((c) => c.paper),
        f,
      );
      assert.deepEqual(Array.from(none.queryEdges[f]!.weights), Array.from(teacher.queryEdges[f]!.weights), f);
    }

    // The model generated P5 twice for query item 0 (ranks 1 and 3) and P0 once (rank 2), and the query itself (never returned).
    const ctx = unseenCopy(g, node);
    const p0 = g.indexOfExternalId.get("P0") as number;
    const p5 = g.indexOfExternalId.get("P5") as number;
    const generated: FacetCandidateLists = {
      methods: [
        { paper: p5, score: -0.5, queryItem: 0, docId: "a docid of p5" },
        { paper: p0, score: -1.2, queryItem: 0, docId: "a docid of p0" },
        { paper: p5, score: -2.0, queryItem: 0, docId: "another docid of p5" },
        { paper: node, score: -0.1, queryItem: 0, docId: "the query's own" },
      ],
    };
    const lists = await walkFromGenerated(ctx, generated);
    const starts = await unseenStarts(unseenCopy(g, node));
    const first = starts.methods!;
    const strongest = Math.max(...Array.from(first.weights));
    // Seed weights: first-hop edge + γ·strongest·(Σ 1/√rank, best = 1): P5 1 + 1/√3, P0 1/√2.
    const seeds = new Map<number, number>(Array.from(first.targets, (b, i) => [b, first.weights[i]]));
    const w5 = 1 + 1 / Math.sqrt(3);
    seeds.set(p5, (seeds.get(p5) ?? 0) + GENERATED_SEED_WEIGHT * strongest);
    seeds.set(p0, (seeds.get(p0) ?? 0) + GENERATED_SEED_WEIGHT * strongest * (1 / Math.sqrt(2) / w5));
    seeds.set(node, (seeds.get(node) ?? 0) + GENERATED_SEED_WEIGHT * strongest * (1 / w5));
    const ordered = [...seeds].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const walk = walkFacet(
      g.graph.facets.methods!,
      { targets: ordered.map((s) => s[0]), weights: ordered.map((s) => s[1]), exclude: node },
      { ...UNSEEN_WALK, cap: 50, startFanout: ordered.length },
    );
    assert.deepEqual(
      lists.methods?.map((c) => c.paper),
      Array.from(walk.papers),
    );
    assert.deepEqual(Array.from(ctx.queryEdges.methods!.weights), Array.from(walk.scores));
    assert.ok(!lists.methods?.some((c) => c.paper === node), "the query's own node is never returned");

    const got5 = lists.methods!.find((c) => c.paper === p5)!;
    assert.equal(got5.docId, "a docid of p5", "a generated paper keeps its first DocID as provenance");
    assert.equal(got5.score, -0.5);
    const walkOnly = lists.methods!.filter((c) => c.docId === undefined);
    assert.ok(walkOnly.length > 0, "the walk reaches papers the model did not generate");
    for (const c of walkOnly) assert.ok(Number.isFinite(c.score) && Math.exp(c.score) <= Number.MIN_VALUE, "probability ~0 for lm-score, finite for JSON");

    // The other facets had nothing generated: the teacher's walk.
    for (const f of FACETS.filter((x) => x !== "methods"))
      assert.deepEqual(
        lists[f]?.map((c) => c.paper),
        taught[f]?.map((c) => c.paper),
        f,
      );
  });
});
