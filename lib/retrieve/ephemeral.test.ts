import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FACETS } from "@/lib/corpus";
import { testProvider } from "@/lib/db/testing";
import { buildGraphStage } from "@/lib/graph/build";
import { useMiniCorpusStore } from "@/lib/graph/testing";
import { existsSync, readdirSync } from "node:fs";
import { annIndexOf, annIndexReady, ephemeralStarts, servedAnnReady, usesAnn, type EphemeralOptions } from "./ephemeral";
import { clearGraphCache, itemsOf, loadGraph, vectorsOf } from "./graph-store";
import { maxSimEngine } from "./services";
import type { WalkStartEdges } from "./walk";

// Ephemeral insertion through the ANN index (issue 18) gives the exact path's first-hop edges
// when the index proposes every paper (a corpus this small), and is used only above the threshold.

describe(`ephemeral insertion through the ANN index (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-ephemeral-ann-");

  test("only corpora above GRAFT_ANN_MIN_PAPERS (20,000 by default) use the index: the demo corpus stays exact", () => {
    const blocks = (numPapers: number) => ({ numPapers, dim: 4, chunks: [] });
    assert.equal(usesAnn(blocks(3081)), false);
    assert.equal(usesAnn(blocks(20_000)), false);
    assert.equal(usesAnn(blocks(20_001)), true);
    assert.equal(usesAnn(blocks(6), 0), true);
  });

  test("forced on a small corpus, the ANN path gives the exact path's first-hop edges, plain and mix", async () => {
    clearGraphCache();
    await buildGraphStage(t.db, { corpus: "mini", k: 3, workers: 1 });
    const g = await loadGraph(t.db, "mini");
    const engine = await maxSimEngine();
    // A served build's index is built over its packed items and written to the build directory;
    // once it is ready, the facet's exact blocks are let go (read again, they are rebuilt).
    const dir = g.blocks().served?.dir as string;
    assert.ok(dir && existsSync(dir));
    const methodsBlocks = g.blocks().methods!;
    assert.equal(g.blocks().methods, methodsBlocks, "blocks are built once while needed");
    const built = await Promise.all(FACETS.map((f) => servedAnnReady(g.blocks(), f)));
    assert.ok(built.every((ix) => ix && !ix.stats.read));
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith("ann-")).length, FACETS.length);
    assert.notEqual(g.blocks().methods, methodsBlocks, "released once the index was ready");
    for (const external of ["P2", "P5"]) {
      const node = g.indexOfExternalId.get(external) as number;
      const vectors = Object.fromEntries(FACETS.map((f) => [f, vectorsOf(g, f, node)]));
      const texts = Object.fromEntries(FACETS.map((f) => [f, itemsOf(g, f, node)]));
      const variants: EphemeralOptions[] = [
        { alpha: g.alpha, exclude: node },
        { alpha: g.alpha, exclude: node, mix: { lexicalWeight: 0.5, lexical: g.lexical()!, dense: g.vectors, texts } },
      ];
      for (const options of variants) {
        const exact = await ephemeralStarts(engine, g.blocks(), g.graph, vectors, { ...options, annMinPapers: Infinity });
        const ann = await ephemeralStarts(engine, g.blocks(), g.graph, vectors, { ...options, annMinPapers: 0 });
        for (const f of FACETS) {
          const e = exact[f] as WalkStartEdges;
          const a = ann[f] as WalkStartEdges;
          const label = `${external} ${f}${options.mix ? " mix" : ""}`;
          assert.deepEqual(Array.from(a.targets), Array.from(e.targets), label);
          Array.from(a.weights).forEach((w, i) => assert.ok(Math.abs(w - e.weights[i]) < 1e-5, `${label}: ${w} vs ${e.weights[i]}`));
          assert.equal(a.exclude, e.exclude);
        }
      }
    }
    // Another process (here: the build loaded afresh) reads the indexes instead of building them,
    // and they propose the same candidates.
    clearGraphCache();
    const g2 = await loadGraph(t.db, "mini");
    assert.notEqual(g2.vectors.methods, g.vectors.methods);
    const read = await Promise.all(FACETS.map((f) => servedAnnReady(g2.blocks(), f)));
    assert.ok(read.every((ix) => ix?.stats.read));
    const node = g.indexOfExternalId.get("P2") as number;
    FACETS.forEach((f, i) => {
      const q = vectorsOf(g, f, node);
      assert.deepEqual(Array.from(read[i]!.candidates(q)), Array.from(built[i]!.candidates(q)), f);
    });
    // Without a served build (blocks alone), one index per facet's blocks, built once and kept.
    const methods = g.blocks().methods!;
    const bare = { methods };
    assert.equal(annIndexOf(methods), null);
    const ready = await annIndexReady(methods);
    assert.ok(ready && annIndexOf(methods) === ready);
    const starts = await ephemeralStarts(engine, bare, g.graph, { methods: vectorsOf(g, "methods", node) }, { exclude: node, annMinPapers: 0 });
    assert.deepEqual(Array.from(starts.methods!.targets), Array.from(ready.search(vectorsOf(g, "methods", node), g.graph.k, node).targets));
  });
});
