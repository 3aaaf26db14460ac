import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { testProvider } from "@/lib/db/testing";
import { dataRoot } from "@/lib/paths";
import { buildGraphStage } from "./build";
import { neighboursOf, readPaperGraph } from "./csr";
import { parseLexicalModel } from "./lexical";
import { paperNeighbours } from "./neighbours";
import { DEFAULT_ITEM_SIMILARITY, itemSimilaritySpec } from "./similarity";
import { useMiniCorpusStore } from "./testing";

// The graph stage end to end on a small corpus with the real offline embedder (USE-lite):
// artefacts + manifest in a build directory, edges in the store, neighbours for the paper page.

describe(`graph build stage (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-build-");

  test("builds edges, CSR and manifest; a second build reuses the vector cache", async () => {
    const report = await buildGraphStage(t.db, { corpus: "mini", k: 2, workers: 1, similarity: "cosine" });
    assert.equal(report.similarity, "cosine");
    assert.equal(report.papers, 6);
    assert.equal(report.items, 24);
    assert.equal(report.newlyEmbedded, 24);
    const manifest = JSON.parse(readFileSync(path.join(report.dir, "manifest.json"), "utf8"));
    assert.equal(manifest.stage, "graph");
    assert.deepEqual(manifest.files.map((f: { name: string }) => f.name).sort(), ["graph.csr", "papers.json"]);
    const graph = readPaperGraph(path.join(report.dir, "graph.csr"));
    assert.equal(graph.numPapers, 6);
    assert.equal(graph.k, 2);
    // Each paper's best problems neighbour is its topical twin (0<->1, 2<->3, 4<->5).
    const twin = (i: number) => i ^ 1;
    for (let i = 0; i < 6; i++) assert.equal(neighboursOf(graph.facets.problems!, i).targets[0], twin(i), `paper ${i}`);
    // P0 and P1 both cite P5 (bibliographic coupling): their edge carries a citation score.
    const row = neighboursOf(graph.facets.methods!, 1);
    const at = Array.from(row.targets).indexOf(0);
    assert.ok(at >= 0 && row.citationScores[at] > 0);
    assert.ok(Math.abs(row.weights[at] - (0.75 * row.facetScores[at] + 0.25 * row.citationScores[at])) < 1e-5);

    assert.equal(await t.db.edge.count({ where: { buildId: report.build } }), 6 * 4 * 2);
    const build = await t.db.build.findUniqueOrThrow({ where: { id: report.build } });
    assert.equal(build.status, "complete");
    assert.equal(report.coverage.find((c) => c.k === 20)?.share, 1);

    const p0 = await t.db.paper.findFirstOrThrow({ where: { externalId: "P0" } });
    const n = await paperNeighbours(t.db, p0.id);
    assert.ok(n);
    assert.equal(n.facets.problems[0].externalId, "P1");
    assert.equal(n.facets.problems[0].rank, 1);

    const again = await buildGraphStage(t.db, { corpus: "mini", k: 2, workers: 1, similarity: "cosine" });
    assert.equal(again.newlyEmbedded, 0, "all vectors come from the cache");
    assert.ok(again.build > report.build);
    assert.ok(existsSync(path.join(again.dir, "manifest.json")));
    const n2 = await paperNeighbours(t.db, p0.id);
    assert.equal(n2?.build, again.build, "the newest complete build is served");
  });

  test("the default mixes the lexical score into s_f: params, manifest, lexical.json, and edges scored with it", async () => {
    const report = await buildGraphStage(t.db, { corpus: "mini", k: 2, workers: 1 });
    assert.equal(report.similarity, itemSimilaritySpec(DEFAULT_ITEM_SIMILARITY));
    const build = await t.db.build.findUniqueOrThrow({ where: { id: report.build } });
    const params = JSON.parse(build.params);
    assert.equal(params.similarity, report.similarity);
    assert.deepEqual([params.alpha, params.beta], [0.25, 0.75], "a mix build's default edge weights");
    const manifest = JSON.parse(readFileSync(path.join(report.dir, "manifest.json"), "utf8"));
    assert.equal(manifest.similarity, report.similarity);
    assert.deepEqual(manifest.files.map((f: { name: string }) => f.name).sort(), ["graph.csr", "lexical.json", "papers.json"]);
    const model = parseLexicalModel(readFileSync(path.join(report.dir, "lexical.json"), "utf8"));
    assert.equal(model.numDocs, 6, "idf over the six papers' titles + abstracts");
    assert.ok(model.termIndex.has("tweet") && model.termIndex.has("polar"), "item terms are in the vocabulary");
    const graph = readPaperGraph(path.join(report.dir, "graph.csr"));
    for (let i = 0; i < 6; i++) assert.equal(neighboursOf(graph.facets.problems!, i).targets[0], i ^ 1, `paper ${i}`);
    // Papers 2 and 3 share "named entity recognition": their problems score carries the lexical term.
    const row = neighboursOf(graph.facets.problems!, 2);
    const cosineBuild = await t.db.build.findFirstOrThrow({ where: { params: { contains: '"similarity":"cosine"' } } });
    const cosineOnly = readPaperGraph(path.join(dataRoot(), cosineBuild.dir, "graph.csr"));
    const before = neighboursOf(cosineOnly.facets.problems!, 2);
    assert.notEqual(row.facetScores[0], before.facetScores[0]);
    assert.ok(Math.abs(row.weights[0] - (0.25 * row.facetScores[0] + 0.75 * row.citationScores[0])) < 1e-5);
    await assert.rejects(buildGraphStage(t.db, { corpus: "mini", similarity: "mix:2" }), /similarity must be/);
  });

  test("a rerun from the terminal reopens the same parameters' unfinished build, not a job's or other settings'", async () => {
    const options = { corpus: "mini", k: 3, workers: 1, similarity: "cosine" } as const;
    // A run stopped after its CSR was written (a killed `graft build` leaves its build "running").
    const stop = new AbortController();
    await assert.rejects(
      buildGraphStage(t.db, { ...options, signal: stop.signal, onPhase: (phase) => void (phase === "artefacts" && stop.abort()) }),
      /abort/i,
    );
    const killed = await t.db.build.findFirstOrThrow({ where: { status: "running" }, orderBy: { id: "desc" } });
    const other = await buildGraphStage(t.db, { ...options, k: 2 });
    assert.notEqual(other.build, killed.id, "other parameters start a build of their own");
    const rerun = await buildGraphStage(t.db, options);
    assert.equal(rerun.build, killed.id, "the same parameters reopen the unfinished build");
    assert.equal((await t.db.build.findUniqueOrThrow({ where: { id: killed.id } })).status, "complete");
    assert.equal(readPaperGraph(path.join(rerun.dir, "graph.csr")).k, 3);
    const next = await buildGraphStage(t.db, options);
    assert.ok(next.build > rerun.build, "a complete build is never reopened");
  });

  test("an unknown corpus is a clear error and leaves no build behind", async () => {
    const before = await t.db.build.count();
    await assert.rejects(buildGraphStage(t.db, { corpus: "nope" }), /no corpus named "nope"/);
    assert.equal(await t.db.build.count(), before);
  });
});
