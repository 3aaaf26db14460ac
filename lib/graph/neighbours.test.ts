import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { resumeBuild } from "@/lib/builds";
import { importCorpus } from "@/lib/corpus/import";
import type { Db } from "@/lib/db";
import { testProvider } from "@/lib/db/testing";
import { dataRoot } from "@/lib/paths";
import { buildGraphStage } from "./build";
import { readPaperGraph } from "./csr";
import { csrNeighbours, edgeRowNeighbours, type LoadedBuildGraph, paperNeighbours } from "./neighbours";
import { miniCorpusInput, useMiniCorpusStore } from "./testing";

// Paper pages read a paper's typed-graph neighbours from the build's CSR (as serving holds it)
// instead of the build's Edge rows: both must give the same lists, on SQLite and PostgreSQL.

/** A build's CSR with its node ↔ paper maps, read the way serving's loadGraph reads them. */
async function loadBuildFiles(db: Db, buildId: number): Promise<LoadedBuildGraph> {
  const build = await db.build.findUniqueOrThrow({ where: { id: buildId } });
  const dir = path.resolve(dataRoot(), build.dir);
  const ids = JSON.parse(readFileSync(path.join(dir, "papers.json"), "utf8")) as { dbIds: number[] };
  const rows = await db.paper.findMany({ where: { id: { in: ids.dbIds } }, select: { id: true, externalId: true, title: true, year: true } });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return {
    build: buildId,
    graph: readPaperGraph(path.join(dir, "graph.csr")),
    indexOfDbId: new Map(ids.dbIds.map((id, i) => [id, i])),
    papers: ids.dbIds.map((id) => {
      const { externalId, title, year } = byId.get(id) as (typeof rows)[number];
      return { externalId, title, year };
    }),
  };
}

describe(`paper neighbours from the build's CSR (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-neighbours-");
  let first: LoadedBuildGraph;

  const miniPaperIds = async () =>
    (await t.db.paper.findMany({ where: { corpus: { name: "mini" } }, select: { id: true }, orderBy: { id: "asc" } })).map((p) => p.id);

  test("the CSR gives every paper the same neighbours as the build's Edge rows, at every cut", async () => {
    const report = await buildGraphStage(t.db, { corpus: "mini", k: 3, workers: 1 });
    first = await loadBuildFiles(t.db, report.build);
    const ids = await miniPaperIds();
    assert.equal(ids.length, 6);
    for (const perFacet of [1, 2, 3, 20])
      for (const id of ids) {
        const fromCsr = csrNeighbours(first, id, perFacet);
        assert.deepEqual(fromCsr, await edgeRowNeighbours(t.db, report.build, id, perFacet), `paper ${id}, ${perFacet} per facet`);
        for (const list of Object.values(fromCsr)) assert.equal(list.length, Math.min(perFacet, 3), "every row holds k = 3 edges");
      }
    // Not vacuous: real titles, ranks from 1, weights best first, and a citation score somewhere (P0, P1 both cite P5).
    const p0 = csrNeighbours(first, ids[0], 20);
    assert.deepEqual(
      p0.problems.map((n) => n.rank),
      [1, 2, 3],
    );
    assert.equal(p0.problems[0].externalId, "P1");
    assert.equal(p0.problems[0].title, "Paper 1");
    assert.ok(p0.problems[0].weight >= p0.problems[1].weight);
    assert.ok(Object.values(p0).some((list) => list.some((n) => n.citationScore > 0)));

    const calls: string[] = [];
    const viaCsr = await paperNeighbours(t.db, ids[0], {
      loadGraph: async (_db, corpus) => {
        calls.push(corpus);
        return first;
      },
    });
    assert.deepEqual(calls, ["mini"], "the loader is asked for the paper's corpus");
    assert.deepEqual(viaCsr, await paperNeighbours(t.db, ids[0]), "the same answer as from the Edge rows");
    assert.equal(viaCsr?.build, report.build);
    assert.deepEqual([viaCsr?.alpha, viaCsr?.beta], [0.25, 0.75], "the build's α, β");
  });

  test("while the loaded build is not the newest yet, the newest build's Edge rows are read", async () => {
    const second = await buildGraphStage(t.db, { corpus: "mini", k: 3, workers: 1, similarity: "cosine" });
    const [id] = await miniPaperIds();
    const n = await paperNeighbours(t.db, id, { loadGraph: async () => first });
    assert.equal(n?.build, second.build);
    assert.deepEqual([n?.alpha, n?.beta], [0.75, 0.25]);
    const newest = await edgeRowNeighbours(t.db, second.build, id, 20);
    assert.deepEqual(n?.facets, newest);
    assert.notDeepEqual(newest, csrNeighbours(first, id, 20), "the two builds' weights differ (cosine vs mix), so the stale CSR was not read");
    assert.deepEqual(csrNeighbours(await loadBuildFiles(t.db, second.build), id, 20), newest, "the newest CSR agrees with its rows");
  });

  test("a build above GRAFT_EDGE_ROWS_MAX_PAPERS stores no Edge rows: the same graph.csr, and its neighbours come from the CSR even when it is not loaded", async () => {
    const withRows = await buildGraphStage(t.db, { corpus: "mini", k: 3, workers: 1, similarity: "cosine" });
    const saved = process.env.GRAFT_EDGE_ROWS_MAX_PAPERS;
    process.env.GRAFT_EDGE_ROWS_MAX_PAPERS = "5"; // the mini corpus has 6 papers
    let withoutRows: Awaited<ReturnType<typeof buildGraphStage>>;
    try {
      withoutRows = await buildGraphStage(t.db, { corpus: "mini", k: 3, workers: 1, similarity: "cosine" });
    } finally {
      if (saved === undefined) delete process.env.GRAFT_EDGE_ROWS_MAX_PAPERS;
      else process.env.GRAFT_EDGE_ROWS_MAX_PAPERS = saved;
    }
    assert.equal(withRows.edgeRows, true);
    assert.equal(withoutRows.edgeRows, false, "the report says so");
    const csrOf = async (id: number) => readFileSync(path.join(dataRoot(), (await t.db.build.findUniqueOrThrow({ where: { id } })).dir, "graph.csr"));
    const manifestOf = async (id: number) => JSON.parse((await t.db.build.findUniqueOrThrow({ where: { id } })).manifest) as { edgeRows?: boolean };
    assert.equal((await manifestOf(withoutRows.build)).edgeRows, false, "the manifest records it");
    assert.equal((await manifestOf(withRows.build)).edgeRows, true);
    assert.ok((await t.db.edge.count({ where: { buildId: withRows.build } })) > 0);
    assert.equal(await t.db.edge.count({ where: { buildId: withoutRows.build } }), 0, "no Edge rows stored");
    assert.ok((await csrOf(withoutRows.build)).equals(await csrOf(withRows.build)), "graph.csr byte-identical to the build with rows");

    const ids = await miniPaperIds();
    const stale = async () => first; // serving still holds an older build
    const loaded = await loadBuildFiles(t.db, withoutRows.build);
    for (const perFacet of [1, 3, 20])
      for (const id of ids) {
        const reference = await edgeRowNeighbours(t.db, withRows.build, id, perFacet);
        assert.ok(
          Object.values(reference).every((list) => list.length === Math.min(perFacet, 3)),
          "not vacuous",
        );
        for (const loadGraph of [stale, async () => loaded, undefined]) {
          const n = await paperNeighbours(t.db, id, { perFacet, loadGraph });
          assert.equal(n?.build, withoutRows.build);
          assert.deepEqual(
            n?.facets,
            reference,
            `paper ${id}, ${perFacet} per facet, ${loadGraph === stale ? "stale loader" : loadGraph ? "loaded" : "no loader"}`,
          );
        }
      }
  });

  test("a build resumed above the threshold drops the Edge rows an interrupted run had committed", async () => {
    // Interrupted right after its rows were committed (as a worker losing its job there is).
    const abort = new AbortController();
    const stop = new Error("stopped after the edges phase");
    await assert.rejects(
      buildGraphStage(t.db, {
        corpus: "mini",
        k: 3,
        workers: 1,
        similarity: "cosine",
        signal: abort.signal,
        onPhase: (phase) => {
          if (phase !== "edges") return;
          abort.abort();
          throw stop;
        },
      }),
      stop,
    );
    const interrupted = await t.db.build.findFirstOrThrow({ where: { status: "running" }, orderBy: { id: "desc" } });
    assert.ok((await t.db.edge.count({ where: { buildId: interrupted.id } })) > 0, "the first run stored its rows");
    const saved = process.env.GRAFT_EDGE_ROWS_MAX_PAPERS;
    process.env.GRAFT_EDGE_ROWS_MAX_PAPERS = "5";
    try {
      const { handle } = await resumeBuild(t.db, interrupted.id);
      const resumed = await buildGraphStage(t.db, { corpus: "mini", k: 3, workers: 1, similarity: "cosine", resume: handle });
      assert.equal(resumed.build, interrupted.id);
      assert.equal(resumed.edgeRows, false);
    } finally {
      if (saved === undefined) delete process.env.GRAFT_EDGE_ROWS_MAX_PAPERS;
      else process.env.GRAFT_EDGE_ROWS_MAX_PAPERS = saved;
    }
    assert.equal(await t.db.edge.count({ where: { buildId: interrupted.id } }), 0, "the earlier run's rows are gone");
    const [id] = await miniPaperIds();
    const n = await paperNeighbours(t.db, id, { loadGraph: async () => first });
    assert.equal(n?.build, interrupted.id);
    assert.deepEqual(n?.facets, csrNeighbours(await loadBuildFiles(t.db, interrupted.id), id, 20));
  });

  test("a paper outside the build has no neighbours; a corpus without a graph build, or no such paper, gives null", async () => {
    assert.ok(
      Object.values(csrNeighbours(first, -1, 20)).every((list) => list.length === 0),
      "no node, no neighbours",
    );
    await importCorpus(t.db, miniCorpusInput(), { corpus: "unbuilt" });
    const other = await t.db.paper.findFirstOrThrow({ where: { corpus: { name: "unbuilt" } } });
    let called = false;
    const loadGraph = async () => {
      called = true;
      return first;
    };
    assert.equal(await paperNeighbours(t.db, other.id, { loadGraph }), null);
    assert.equal(await paperNeighbours(t.db, 1_000_000, { loadGraph }), null);
    assert.equal(called, false, "nothing is loaded without a build");
  });
});
