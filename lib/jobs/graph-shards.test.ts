import assert from "node:assert/strict";
import path from "node:path";
import { before, describe, test } from "node:test";
import type { CorpusInput } from "@/lib/corpus/read";
import { testProvider } from "@/lib/db/testing";
import { graphCsrSha256 } from "@/lib/graph/testing";
import { enqueueStage, runStageInline } from "./runner";
import "./stages";
import {
  assertSharedOnce,
  generatedCorpus,
  generatedPaper,
  graphBuildOnWorkers,
  buildJobsOf,
  corpusTexts,
  fitTestEncoder,
  jobLogText,
  killAtFailpoint,
  pickWord as pick,
  SHARD_WORDS as WORDS,
  startWorker,
  useWorkerStore,
} from "./testing";

// Issue 18, "beyond one machine": a graph build whose all-pairs kernel is cut into block jobs
// ("graph-block") must write the same graph.csr, byte for byte, as the one-pass build, whether
// one worker runs every block (in process), two worker processes share them through the
// store's queue, or a worker is SIGKILLed after storing a block and another one finishes.

const N = 64;

/** 64 papers whose facets hold one or two generated items each, with some citations. */
function shardCorpus(): CorpusInput {
  const papers = Array.from({ length: N }, (_, i) => {
    const items = (f: (j: number) => string) => Array.from({ length: 1 + ((i * 7 + f.length) % 2) }, (_, j) => f(j));
    return generatedPaper({
      externalId: `S${i}`,
      title: `Paper ${i}`,
      abstract: `${pick(WORDS.topic, i)} on ${pick(WORDS.domain, i * 3)} with ${pick(WORDS.method, i * 5)}.`,
      year: 2015 + (i % 8),
      facets: {
        problems: items((j) => `${pick(WORDS.topic, i + j)} for ${pick(WORDS.domain, i * 3 + j)}`),
        methods: items((j) => `${pick(WORDS.method, i * 5 + j)} applied to ${pick(WORDS.topic, i + 2 * j)}`),
        results: Array.from({ length: 1 + (i % 2) }, (_, j) => `${pick(WORDS.result, i + j)} on ${pick(WORDS.domain, i * 3 + j + 1)}`),
        contributions: [`a ${pick(WORDS.method, i * 5 + 1)} recipe for ${pick(WORDS.domain, i * 3)} ${i % 3 === 0 ? "at scale" : "under low resources"}`],
      },
    });
  });
  return generatedCorpus("shards", papers, 40);
}

/**
 * Small chunks so every facet has a dozen chunk rows to cut into shards. The embedder, a small
 * LSA encoder fitted on the corpus (before()), loads in milliseconds in each worker process.
 */
const PARAMS = { corpus: "shards", embedder: "", k: 5, workers: 1, chunkItems: 8 };
const SHARDS = 2;
/**
 * Worker processes of the shared-queue test: the one that claims the graph job runs queued
 * blocks itself while it waits, so a second one, polling from the start, is what sharing needs
 * (each process costs about 2 s of CPU to start).
 */
const WORKERS = 2;

describe(`a sharded graph build (${testProvider})`, { concurrency: false, timeout: 300_000 }, () => {
  const store = useWorkerStore("graft-shards-", "shards", shardCorpus);
  const workers = store.workers;
  let reference = "";
  let referenceEdges: string[] = [];

  const env = store.env;
  const csrOf = (buildId: number) => graphCsrSha256(store.db, buildId);
  const edgesOf = async (buildId: number) =>
    (await store.db.edge.findMany({ where: { buildId }, orderBy: [{ facet: "asc" }, { sourceId: "asc" }, { rank: "asc" }] })).map(
      (e) => `${e.facet}:${e.sourceId}->${e.targetId}#${e.rank}:${e.weight.toFixed(6)}`,
    );
  const blockJobsOf = (buildId: number) => buildJobsOf(store.db, "graph-block", buildId);
  before(() => {
    PARAMS.embedder = fitTestEncoder(path.join(store.dataRoot, "models", "lsa-shards"), corpusTexts(shardCorpus()));
  });

  async function expectSameBuild(buildId: number): Promise<void> {
    assert.equal(await csrOf(buildId), reference, "graph.csr is byte-identical to the one-pass build");
    assert.deepEqual(await edgesOf(buildId), referenceEdges, "the same edge rows");
    const build = await store.db.build.findUniqueOrThrow({ where: { id: buildId } });
    assert.equal(build.status, "complete");
    assert.equal(JSON.parse(build.params).shards, SHARDS);
    assert.equal(await store.db.graphShard.count({ where: { buildId } }), 0, "the shard rows are dropped once the build is complete");
  }

  test("the one-pass build (the reference)", async () => {
    const run = await runStageInline(store.db, "graph", PARAMS);
    assert.equal(run.outcome, "succeeded", run.error);
    reference = await csrOf(run.job.buildId as number);
    referenceEdges = await edgesOf(run.job.buildId as number);
    assert.equal(referenceEdges.length, N * 4 * PARAMS.k);
    assert.equal(await store.db.job.count({ where: { stage: "graph-block" } }), 0, "no block jobs without shards");
  });

  test("sharded, one worker (in process): the graph job runs its block jobs itself", async () => {
    const run = await runStageInline(store.db, "graph", { ...PARAMS, shards: SHARDS });
    assert.equal(run.outcome, "succeeded", run.error);
    const buildId = run.job.buildId as number;
    await expectSameBuild(buildId);
    const blocks = await blockJobsOf(buildId);
    assert.equal(blocks.length, SHARDS * 4, "two row blocks for each of the four facets");
    assert.ok(
      blocks.every((b) => b.status === "succeeded"),
      "every block job succeeded",
    );
    const log = await jobLogText(store.db, run.job.id);
    assert.match(log, /sharded kernel \(plan [0-9a-f]{8}\): 8 blocks over 4 facets, 0 stored already/);
  });

  test(`sharded over ${WORKERS} worker processes sharing the store's queue`, async (t) => {
    const buildId = await graphBuildOnWorkers(store, { ...PARAMS, shards: SHARDS }, WORKERS);
    await expectSameBuild(buildId);
    const blocks = await blockJobsOf(buildId);
    assert.equal(blocks.length, SHARDS * 4);
    assertSharedOnce(t, blocks, "block");
  });

  test("a worker SIGKILLed after storing a block: the next worker resumes and never recomputes it", async () => {
    const { job } = await enqueueStage(store.db, "graph", { ...PARAMS, shards: SHARDS });
    await killAtFailpoint(env(), "graph-block:stored");
    const buildId = (await store.db.job.findUniqueOrThrow({ where: { id: job.id } })).buildId as number;
    const stored = await store.db.graphShard.findMany({ where: { buildId, kind: "lists" }, select: { facet: true, part: true } });
    assert.equal(stored.length, 1, "one block's lists were stored before the kill");

    const last = startWorker(env(), ["--exit-when-idle"]);
    workers.push(last);
    assert.equal(await last.exited, 0, last.output());
    const done = await store.db.job.findUniqueOrThrow({ where: { id: job.id } });
    assert.equal(done.status, "succeeded", done.error ?? "");
    await expectSameBuild(buildId);
    const blocks = await blockJobsOf(buildId);
    assert.equal(blocks.length, SHARDS * 4, "no block job was duplicated");
    assert.ok(blocks.every((b) => b.status === "succeeded"));
    // The killed block was re-queued; its re-run found its lists stored and did not recompute them.
    const killed = blocks.find((b) => b.attempts === 2);
    assert.ok(killed, "the killed block job was claimed again");
    assert.equal((JSON.parse(killed.result ?? "{}") as { computed?: boolean }).computed, false);
    const log = await jobLogText(store.db, job.id);
    assert.match(log, /resuming build \d+/);
    assert.match(log, /8 blocks over 4 facets, 1 stored already/);
  });
});
