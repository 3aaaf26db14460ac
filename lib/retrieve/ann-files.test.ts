import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { resumeBuild } from "@/lib/builds";
import { FACETS } from "@/lib/corpus";
import { testProvider } from "@/lib/db/testing";
import { annIndexFileName, FacetAnnIndex } from "@/lib/graph";
import { buildGraphStage } from "@/lib/graph/build";
import { graphCsrSha256, useMiniCorpusStore } from "@/lib/graph/testing";
import { servedAnnReady } from "./ephemeral";
import { clearGraphCache, loadGraph, vectorsOf } from "./graph-store";

// Issue 18: the graph stage writes each facet's ANN index into the build directory when the corpus
// is above the threshold (lowered here for the six-paper corpus), and a serving process reads those
// files instead of building the indexes. Below the threshold no file is written.

const annFiles = (dir: string) => readdirSync(dir).filter((f) => f.startsWith("ann-"));
const manifestOf = (dir: string) =>
  JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")) as {
    files: { name: string; path: string }[];
    ann?: { minPapers: number; files: { facet: string; file: string }[] };
    timings: { annSeconds?: number };
  };

describe(`ANN index files written by the graph stage (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-ann-files-");
  const BUILD = { corpus: "mini", k: 2, workers: 1, similarity: "cosine" } as const;
  let uninterruptedCsr = "";

  test("below the threshold (the default 20,000 papers) the build writes no index file", async () => {
    const report = await buildGraphStage(t.db, BUILD);
    assert.deepEqual(annFiles(report.dir), []);
    assert.deepEqual(report.annIndexes, []);
    assert.equal(report.annSeconds, 0);
    const manifest = manifestOf(report.dir);
    assert.equal(manifest.ann, undefined);
    assert.equal(manifest.timings.annSeconds, undefined);
    assert.deepEqual(readdirSync(report.dir).sort(), ["graph.csr", "manifest.json", "papers.json"]);
  });

  test("above it the build writes one file per facet, and a fresh serving process reads them instead of building", async () => {
    const logged: string[] = [];
    const annProgress = new Set<string>();
    const report = await buildGraphStage(t.db, {
      ...BUILD,
      annMinPapers: 5,
      onLog: (line) => logged.push(line),
      onProgress: (phase, _d, _t, detail) => phase === "ann" && annProgress.add(detail ?? ""),
    });
    uninterruptedCsr = await graphCsrSha256(t.db, report.build);
    assert.deepEqual(
      report.annIndexes.map((a) => a.facet),
      [...FACETS],
    );
    assert.ok(report.annSeconds > 0);
    assert.deepEqual(annFiles(report.dir).sort(), report.annIndexes.map((a) => a.file).sort());
    assert.deepEqual([...annProgress].sort(), [...FACETS].sort());
    for (const f of FACETS)
      assert.ok(
        logged.some((l) => l.startsWith(`ann ${f}: 6 items, built in `)),
        `a line for ${f}: ${logged.join(" | ")}`,
      );
    const manifest = manifestOf(report.dir);
    assert.equal(manifest.ann?.minPapers, 5);
    assert.deepEqual(manifest.ann?.files.map((a) => a.file).sort(), annFiles(report.dir).sort());
    assert.deepEqual(
      manifest.files.map((a) => a.name).sort(),
      ["ann-contributions", "ann-methods", "ann-problems", "ann-results", "graph.csr", "papers.json"],
      "the files are the build's artefacts",
    );
    assert.ok(!readdirSync(report.dir).includes("graph-pending.json"), "the resume record is gone once the build is complete");

    // Serving: the newest build, loaded afresh, computes the same file names from its own items and reads them.
    clearGraphCache();
    const g = await loadGraph(t.db, "mini");
    assert.equal(g.build, report.build);
    const before = new Map(annFiles(report.dir).map((f) => [f, statSync(path.join(report.dir, f)).mtimeMs]));
    const blocks = g.blocks();
    for (const f of FACETS) {
      assert.equal(annIndexFileName(f, g.vectors[f]), report.annIndexes.find((a) => a.facet === f)?.file, `${f}: serving's items hash to the stage's file`);
      const index = await servedAnnReady(blocks, f);
      assert.ok(index, f);
      assert.equal(index.stats.read, true, `${f} was read from its file, not built`);
      assert.equal(index.stats.items, 6);
      // And it is the index a build in memory gives: the same neighbours and exact scores.
      const q = vectorsOf(g, f, 0);
      assert.deepEqual(index.search(q, 3, 0), FacetAnnIndex.fromItems(g.vectors[f]).search(q, 3, 0));
      if (f === "problems") assert.equal(index.search(q, 1, 0).targets[0], 1, "paper 0's nearest problem is its topical twin");
    }
    assert.deepEqual(new Map(annFiles(report.dir).map((f) => [f, statSync(path.join(report.dir, f)).mtimeMs])), before, "serving wrote no file");
  });

  test("a build interrupted during the index step resumes there: the graph is not computed again", async () => {
    const stop = new AbortController();
    const firstRun = buildGraphStage(t.db, {
      ...BUILD,
      annMinPapers: 5,
      signal: stop.signal,
      // Stop once the first facet's file is in place.
      onLog: (line) => line.startsWith("ann ") && stop.abort(),
    });
    await assert.rejects(firstRun, { name: "AbortError" });
    const interrupted = await t.db.build.findFirstOrThrow({ orderBy: { id: "desc" } });
    assert.equal(interrupted.status, "running", "an aborted build stays running for its job to resume");
    const resumed = await resumeBuild(t.db, interrupted.id);
    const dir = resumed.handle.dir;
    assert.deepEqual(annFiles(dir).length, 1);
    assert.ok(readdirSync(dir).includes("graph-pending.json"));
    const inode = (f: string) => statSync(path.join(dir, f)).ino;
    const csrInode = inode("graph.csr");
    const firstFile = annFiles(dir)[0];
    const firstInode = inode(firstFile);

    const phases = new Set<string>();
    const logged: string[] = [];
    const report = await buildGraphStage(t.db, {
      ...BUILD,
      annMinPapers: 5,
      resume: resumed.handle,
      onProgress: (phase) => phases.add(phase),
      onLog: (line) => logged.push(line),
    });
    assert.equal(report.build, interrupted.id);
    assert.ok(!phases.has("graph") && !phases.has("store"), `no kernel and no edge store on the rerun (phases: ${[...phases].join(", ")})`);
    assert.ok(logged[0].includes("resuming at the ANN indexes"), logged[0]);
    assert.equal(inode("graph.csr"), csrInode, "graph.csr was not written again");
    assert.equal(inode(firstFile), firstInode, "the index written before the interruption was kept");
    assert.deepEqual(
      report.annIndexes.map((a) => a.reused),
      [true, false, false, false],
    );
    assert.equal(annFiles(dir).length, 4);
    assert.ok(!readdirSync(dir).includes("graph-pending.json"));
    const done = await t.db.build.findUniqueOrThrow({ where: { id: interrupted.id } });
    assert.equal(done.status, "complete");
    assert.equal(await graphCsrSha256(t.db, interrupted.id), uninterruptedCsr, "the same graph as an uninterrupted build");
    assert.deepEqual(
      manifestOf(dir)
        .files.map((a) => a.name)
        .sort(),
      ["ann-contributions", "ann-methods", "ann-problems", "ann-results", "graph.csr", "papers.json"],
    );
    assert.equal(report.papers, 6);
    assert.equal(report.facets.length, 4, "the graph's figures come from the interrupted run's record");
  });
});
