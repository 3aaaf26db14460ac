import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { latestBuildWith } from "@/lib/builds";
import { importCorpus } from "@/lib/corpus/import";
import { createTestDb, type TestDb, testProvider } from "@/lib/db/testing";
import { miniCorpusInput } from "@/lib/graph/testing";
import { failpointBanner, failpointLogLine } from "./failpoints";
import { runStageInline, enqueueStage } from "./runner";
import "./stages";
import { corpusTexts, fitTestEncoder, startWorker, type WorkerProcess } from "./testing";

// The acceptance test of durable jobs: a real worker process (workers/pipeline.ts) is SIGKILLed
// at every durable boundary of the graph stage (and, for a second job, at a random moment), a
// new worker is started each time, and the build it finally completes must equal an uninterrupted build of
// the same corpus: same edges, same artefact bytes, no duplicated rows, no orphan builds. While
// the interrupted build is unfinished, the previous complete build is the one served.

// The embedder is a small LSA encoder fitted on the corpus (before()): each of the many worker
// processes loads it in milliseconds.
const PARAMS = { corpus: "mini", embedder: "", k: 2, workers: 1 };
/** Where a worker stops to be killed, in the order the stage reaches them. */
const FAILPOINTS = ["graph:started", "graph:embedded", "graph:artefacts", "graph:edges", "job:graph:done"];

async function waitFor(w: WorkerProcess, text: string, timeoutMs = 90_000): Promise<void> {
  const start = Date.now();
  while (!w.output().includes(text)) {
    if (w.child.exitCode !== null) throw new Error(`worker exited (${w.child.exitCode}) before "${text}":\n${w.output()}`);
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for "${text}":\n${w.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function kill(w: WorkerProcess): Promise<void> {
  w.child.kill("SIGKILL");
  await w.exited;
}

describe(`kill and resume a graph build (${testProvider})`, { concurrency: false, timeout: 300_000 }, () => {
  let store: TestDb;
  const roots: string[] = [];
  const savedRoot = process.env.GRAFT_DATA_ROOT;
  let referenceBuild = 0;

  before(async () => {
    store = await createTestDb();
    await importCorpus(store.db, miniCorpusInput(), { corpus: "mini" });
    PARAMS.embedder = fitTestEncoder(path.join(freshRoot(), "encoder"), corpusTexts(miniCorpusInput()));
  });
  after(async () => {
    process.env.GRAFT_DATA_ROOT = savedRoot;
    await store?.cleanup();
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });
  const freshRoot = () => {
    const r = mkdtempSync(path.join(os.tmpdir(), "graft-kill-"));
    roots.push(r);
    return r;
  };

  test("an uninterrupted run (the reference), as an inline job", async () => {
    process.env.GRAFT_DATA_ROOT = freshRoot();
    const run = await runStageInline(store.db, "graph", PARAMS);
    assert.equal(run.outcome, "succeeded", run.error);
    assert.equal(run.job.status, "succeeded");
    referenceBuild = run.job.buildId as number;
    assert.ok(referenceBuild > 0);
  });

  test("a worker SIGKILLed at every stage boundary, then a fresh worker, finishes the same build", async () => {
    const db = store.db;
    const root = freshRoot(); // a cold vector cache: the first killed run embeds from scratch
    const { job } = await enqueueStage(db, "graph", PARAMS);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: store.config.url,
      GRAFT_DATA_ROOT: root,
      GRAFT_JOB_MAX_ATTEMPTS: "20",
      GRAFT_WORKER_POLL_MS: "100",
      CI: "1",
    };
    delete env.GRAFT_FAILPOINT;

    for (const fp of FAILPOINTS) {
      const w = startWorker({ ...env, GRAFT_FAILPOINT: fp }, ["--exit-when-idle"]);
      await waitFor(w, failpointBanner(fp));
      const mid = await db.job.findUniqueOrThrow({ where: { id: job.id } });
      assert.equal(mid.status, "running", `job is running at ${fp}`);
      assert.ok(mid.buildId !== null, `the build is linked to its job from the start (${fp})`);
      // Versioned builds: until the new build completes, the reference build is the one served.
      const served = await latestBuildWith(db, "mini", "graph.csr");
      if (fp !== "job:graph:done") {
        assert.equal(served?.id, referenceBuild, `the previous build is served while ${fp}`);
        const b = await db.build.findUniqueOrThrow({ where: { id: mid.buildId as number } });
        assert.equal(b.status, "running");
      } else {
        assert.equal(served?.id, mid.buildId, "once complete, the new build is served (switch at completion)");
      }
      await kill(w);
    }

    const last = startWorker(env, ["--exit-when-idle"]);
    const code = await last.exited;
    assert.equal(code, 0, last.output());
    assert.match(last.output(), /had completed before the previous worker stopped/);

    const done = await db.job.findUniqueOrThrow({ where: { id: job.id } });
    assert.equal(done.status, "succeeded", done.error ?? "");
    assert.ok(done.attempts >= FAILPOINTS.length + 1, `one claim per worker (attempts ${done.attempts})`);
    const buildId = done.buildId as number;

    // No orphan builds: the reference and this job's one build, whatever the kills did.
    assert.deepEqual(
      (await db.build.findMany({ orderBy: { id: "asc" } })).map((b) => [b.id, b.status]),
      [
        [referenceBuild, "complete"],
        [buildId, "complete"],
      ],
    );
    assert.equal((await latestBuildWith(db, "mini", "graph.csr"))?.id, buildId);

    // Same edges, no duplicates.
    const edgesOf = async (id: number) =>
      (await db.edge.findMany({ where: { buildId: id }, orderBy: [{ facet: "asc" }, { sourceId: "asc" }, { rank: "asc" }] })).map((e) => ({
        key: `${e.facet}:${e.sourceId}->${e.targetId}#${e.rank}`,
        weight: e.weight,
        facetScore: e.facetScore,
        citationScore: e.citationScore,
      }));
    const want = await edgesOf(referenceBuild);
    const got = await edgesOf(buildId);
    assert.equal(want.length, 6 * 4 * 2);
    assert.deepEqual(
      got.map((e) => e.key),
      want.map((e) => e.key),
    );
    for (let i = 0; i < want.length; i++) {
      assert.ok(Math.abs(got[i].weight - want[i].weight) < 1e-6, `${got[i].key} weight`);
      assert.ok(Math.abs(got[i].facetScore - want[i].facetScore) < 1e-6, `${got[i].key} facet score`);
      assert.equal(got[i].citationScore, want[i].citationScore);
    }
    assert.equal(new Set(got.map((e) => e.key)).size, got.length);

    // Same artefacts, each recorded once, the same bytes; no temp files left behind.
    const artefacts = async (id: number) =>
      (await db.artefact.findMany({ where: { buildId: id }, orderBy: { name: "asc" } })).map((a) => ({ name: a.name, bytes: a.bytes, sha256: a.sha256 }));
    assert.deepEqual(await artefacts(buildId), await artefacts(referenceBuild));
    const dir = path.join(root, "mini", `build-${buildId}`);
    // A mix-similarity build (the default) also writes the lexical model serving inserts unseen papers with.
    assert.deepEqual(readdirSync(dir).sort(), ["graph.csr", "lexical.json", "manifest.json", "papers.json"]);

    // The job's log tells the story.
    const log = (await db.jobLog.findMany({ where: { jobId: job.id }, orderBy: { id: "asc" } })).map((l) => l.message).join("\n");
    for (const fp of FAILPOINTS) assert.ok(log.includes(failpointLogLine(fp)), `log mentions ${fp}`);
    assert.match(log, /resuming build \d+/);
    assert.match(log, /is gone: re-queued/);
    assert.equal(await db.job.count(), 2, "no job was duplicated");
  });

  test("a worker SIGKILLed at a random moment of its job leaves a job the next worker finishes the same way", async (t) => {
    const db = store.db;
    const root = freshRoot();
    const { job } = await enqueueStage(db, "graph", PARAMS);
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: store.config.url, GRAFT_DATA_ROOT: root, GRAFT_WORKER_POLL_MS: "100", CI: "1" };
    delete env.GRAFT_FAILPOINT;
    const w = startWorker(env, ["--exit-when-idle"]);
    await waitFor(w, `job ${job.id} (graph) claimed`);
    // Anywhere from the claim to (rarely) past the end of the job: every moment must be safe.
    const delay = Math.floor(Math.random() * 1200);
    await new Promise((r) => setTimeout(r, delay));
    await kill(w);
    const at = await db.job.findUniqueOrThrow({ where: { id: job.id } });
    t.diagnostic(`killed ${delay} ms after the claim; job ${at.status}: ${at.message}`);
    const last = startWorker(env, ["--exit-when-idle"]);
    assert.equal(await last.exited, 0, last.output());
    const done = await db.job.findUniqueOrThrow({ where: { id: job.id } });
    assert.equal(done.status, "succeeded", done.error ?? "");
    const edges = async (id: number) =>
      (await db.edge.findMany({ where: { buildId: id }, orderBy: [{ facet: "asc" }, { sourceId: "asc" }, { rank: "asc" }] })).map(
        (e) => `${e.facet}:${e.sourceId}->${e.targetId}#${e.rank}`,
      );
    assert.deepEqual(await edges(done.buildId as number), await edges(referenceBuild));
    const sums = async (id: number) => (await db.artefact.findMany({ where: { buildId: id }, orderBy: { name: "asc" } })).map((a) => `${a.name}:${a.sha256}`);
    assert.deepEqual(await sums(done.buildId as number), await sums(referenceBuild));
    assert.equal(await db.build.count({ where: { status: { not: "complete" } } }), 0, "no orphan or half-finished build");
  });
});
