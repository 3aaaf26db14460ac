import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { testProvider } from "@/lib/db/testing";
import { buildGraphStage } from "./build";
import { useMiniCorpusStore } from "./testing";

// A mix build's lexical pass on worker threads (lexical-pool.ts) writes the same build as the
// one-thread pass: graph.csr byte for byte and every stored edge row.

describe(`mix graph build, lexical pass on 1 or 2 threads (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-lexical-build-");

  const edgeRows = (buildId: number) =>
    t.db.edge.findMany({
      where: { buildId },
      select: { facet: true, sourceId: true, targetId: true, rank: true, weight: true, facetScore: true, citationScore: true },
      orderBy: [{ facet: "asc" }, { sourceId: "asc" }, { rank: "asc" }],
    });

  test("graph.csr and the edge rows are identical", async () => {
    const one = await buildGraphStage(t.db, { corpus: "mini", k: 3, workers: 1 });
    // Vectors come from the cache now, so `workers` only sets the lexical threads here.
    const two = await buildGraphStage(t.db, { corpus: "mini", k: 3, workers: 2 });
    assert.equal(two.newlyEmbedded, 0);
    const manifest = (dir: string) => JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
    assert.equal(manifest(one.dir).lexical.threads, 1);
    assert.equal(manifest(two.dir).lexical.threads, 2);
    assert.deepEqual(Object.keys(manifest(two.dir).lexical.passSeconds).sort(), ["contributions", "methods", "problems", "results"]);
    const csr = (dir: string) => readFileSync(path.join(dir, "graph.csr"));
    assert.ok(csr(one.dir).equals(csr(two.dir)), "graph.csr byte for byte");
    const rows = await edgeRows(one.build);
    assert.equal(rows.length, 6 * 4 * 3);
    assert.deepEqual(await edgeRows(two.build), rows);
  });
});
