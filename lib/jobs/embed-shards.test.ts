import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { before, describe, test } from "node:test";
import type { CorpusInput } from "@/lib/corpus/read";
import { testProvider } from "@/lib/db/testing";
import { graphCsrSha256 } from "@/lib/graph/testing";
import { cacheDirFor, createLsaEmbedder } from "@/lib/embed";
import { enqueueStage, runStageInline } from "./runner";
import "./stages";
import {
  assertSharedOnce,
  generatedCorpus,
  generatedPaper,
  graphBuildOnWorkers,
  buildJobsOf,
  fitTestEncoder,
  jobLogText,
  killAtFailpoint,
  pickWord as pick,
  SHARD_WORDS as WORDS,
  startWorker,
  useWorkerStore,
} from "./testing";

// Issue 18, "beyond one machine": a sharded graph build embeds the item texts its vector cache
// lacks as "embed-slice" jobs that any worker claims. Whether the graph job runs every slice
// itself, two worker processes share them through the store's queue, or a worker is
// SIGKILLed in the middle of a slice and another one finishes, the cache must hold the vectors
// one process writes, byte for byte, and the build the same graph.csr. The embedder is an LSA
// model fitted here on the corpus (deterministic, and fast enough for a test).

const N = 200;

/** 200 papers, about 6.5 items each, every item text distinct (its case number): 1,300 texts, three slices of 512. */
function sliceCorpus(): CorpusInput {
  const papers = Array.from({ length: N }, (_, i) =>
    generatedPaper({
      externalId: `E${i}`,
      title: `${pick(WORDS.topic, i)} with ${pick(WORDS.method, i >> 3)}`,
      abstract: `${pick(WORDS.topic, i)} on ${pick(WORDS.domain, i * 3)} with ${pick(WORDS.method, i * 5)}. ${pick(WORDS.result, i >> 2)} on ${pick(WORDS.domain, i >> 3)}.`,
      year: 2015 + (i % 8),
      facets: {
        problems: [0, 1].map((j) => `${pick(WORDS.topic, i + j)} for ${pick(WORDS.domain, (i >> 3) + j)} (case ${i}.${j})`),
        methods: [0, 1].map((j) => `${pick(WORDS.method, i * 5 + j)} applied to ${pick(WORDS.topic, (i >> 2) + 2 * j)} (case ${i}.${j})`),
        results: Array.from({ length: 1 + (i % 2) }, (_, j) => `${pick(WORDS.result, i + j)} on ${pick(WORDS.domain, i * 3 + j + 1)} (case ${i}.${j})`),
        contributions: [`a ${pick(WORDS.method, i * 5 + 1)} recipe for ${pick(WORDS.domain, i >> 1)} (case ${i})`],
      },
    }),
  );
  return generatedCorpus("embshards", papers, 120);
}
const TEXTS = sliceCorpus().papers.reduce((s, p) => s + Object.values(p.facets ?? {}).reduce((t, items) => t + (items?.length ?? 0), 0), 0);
const SHARDS = 3;
/**
 * Worker processes of the shared-queue test: the one that claims the graph job runs queued
 * slices itself while it waits, so a second one, polling from the start, is what sharing needs
 * (each process costs about 2 s of CPU to start).
 */
const WORKERS = 2;

describe(`a graph build whose embedding is sharded into slice jobs (${testProvider})`, { concurrency: false, timeout: 300_000 }, () => {
  const store = useWorkerStore("graft-embed-shards-", "embshards", sliceCorpus);
  const workers = store.workers;
  let params: { corpus: string; embedder: string; k: number; workers: number; chunkItems: number } = {
    corpus: "",
    embedder: "",
    k: 0,
    workers: 0,
    chunkItems: 0,
  };
  let cacheDir = "";
  let referenceCsr = "";
  let referenceCache: Buffer[] = [];
  before(() => {
    const folder = path.join(store.dataRoot, "models", "lsa-embshards");
    const embedder = fitTestEncoder(
      folder,
      sliceCorpus().papers.map((p) => `${p.title}\n${p.abstract}`),
    );
    // workers: 1, so a slice of 512 texts is embedded in two steps (a failpoint between them);
    // small kernel chunks, so the kernel is sharded too.
    params = { corpus: "embshards", embedder, k: 5, workers: 1, chunkItems: 64 };
    cacheDir = cacheDirFor("embshards", createLsaEmbedder(folder).id);
  });
  const env = store.env;
  const csrOf = (buildId: number) => graphCsrSha256(store.db, buildId);
  const cacheFiles = () => ["manifest.json", "vectors.f32", "keys.bin"].map((f) => readFileSync(path.join(cacheDir, f)));
  const sliceJobsOf = (buildId: number) => buildJobsOf(store.db, "embed-slice", buildId);
  const logOf = (jobId: number) => jobLogText(store.db, jobId);

  /** The cache of a sharded build is the one-process cache, and its graph.csr the one-process graph. */
  async function expectSameBuild(buildId: number): Promise<void> {
    const [manifest, vectors, keys] = cacheFiles();
    assert.deepEqual(JSON.parse(manifest.toString()), JSON.parse(referenceCache[0].toString()));
    assert.ok(vectors.equals(referenceCache[1]), "vectors.f32 is byte-identical to the one-process cache");
    assert.ok(keys.equals(referenceCache[2]), "keys.bin is byte-identical to the one-process cache");
    assert.equal(await csrOf(buildId), referenceCsr, "graph.csr is byte-identical to the one-process build");
    const build = await store.db.build.findUniqueOrThrow({ where: { id: buildId } });
    assert.equal(build.status, "complete");
    assert.equal(await store.db.graphShard.count({ where: { buildId } }), 0, "no slice or block rows are left");
  }

  test("the one-process build (the reference)", async () => {
    const run = await runStageInline(store.db, "graph", params);
    assert.equal(run.outcome, "succeeded", run.error);
    referenceCsr = await csrOf(run.job.buildId as number);
    referenceCache = cacheFiles();
    assert.equal(JSON.parse(referenceCache[0].toString()).count, TEXTS, "every item text is distinct");
    assert.equal((run.result as { newlyEmbedded: number }).newlyEmbedded, TEXTS);
    assert.equal(await store.db.job.count({ where: { stage: "embed-slice" } }), 0, "no slice jobs without shards");
  });

  test("sharded, one worker (in process): the graph job embeds its slices itself", async () => {
    rmSync(cacheDir, { recursive: true });
    const run = await runStageInline(store.db, "graph", { ...params, shards: SHARDS });
    assert.equal(run.outcome, "succeeded", run.error);
    const buildId = run.job.buildId as number;
    await expectSameBuild(buildId);
    assert.equal((run.result as { newlyEmbedded: number }).newlyEmbedded, TEXTS, "every text embedded by a slice job");
    const slices = await sliceJobsOf(buildId);
    assert.equal(slices.length, 3);
    assert.ok(slices.every((s) => s.status === "succeeded" && (JSON.parse(s.result ?? "{}") as { computed?: boolean }).computed === true));
    assert.match(await logOf(run.job.id), /sharded embedding \(plan [0-9a-f]{8}\): 1,300 texts in 3 slices of 512, 0 stored already/);

    // Warm: a second sharded build finds every vector in the cache and queues no slice.
    const warm = await runStageInline(store.db, "graph", { ...params, shards: SHARDS });
    assert.equal(warm.outcome, "succeeded", warm.error);
    await expectSameBuild(warm.job.buildId as number);
    assert.equal((await sliceJobsOf(warm.job.buildId as number)).length, 0);
  });

  test(`sharded over ${WORKERS} worker processes sharing the store's queue`, async (t) => {
    rmSync(cacheDir, { recursive: true });
    const buildId = await graphBuildOnWorkers(store, { ...params, shards: SHARDS }, WORKERS);
    await expectSameBuild(buildId);
    const slices = await sliceJobsOf(buildId);
    assert.equal(slices.length, 3);
    assertSharedOnce(t, slices, "slice");
  });

  test("a worker SIGKILLed in the middle of a slice: the slice is claimed again and the build completes", async () => {
    rmSync(cacheDir, { recursive: true });
    const { job } = await enqueueStage(store.db, "graph", { ...params, shards: SHARDS });
    await killAtFailpoint(env(), "embed-slice:midway");
    const buildId = (await store.db.job.findUniqueOrThrow({ where: { id: job.id } })).buildId as number;
    assert.equal(await store.db.graphShard.count({ where: { buildId, kind: "embed-texts" } }), 3, "the slices' texts were stored");
    assert.equal(await store.db.graphShard.count({ where: { buildId, kind: "embed-vectors" } }), 0, "killed half-way: no slice was stored");
    const killed = (await sliceJobsOf(buildId)).find((s) => s.status === "running");
    assert.ok(killed, "the killed worker held a slice");

    const last = startWorker(env(), ["--exit-when-idle"]);
    workers.push(last);
    assert.equal(await last.exited, 0, last.output());
    const done = await store.db.job.findUniqueOrThrow({ where: { id: job.id } });
    assert.equal(done.status, "succeeded", done.error ?? "");
    await expectSameBuild(buildId);
    const slices = await sliceJobsOf(buildId);
    assert.equal(slices.length, 3, "no slice job was duplicated");
    assert.ok(slices.every((s) => s.status === "succeeded"));
    const again = slices.find((s) => s.id === killed.id);
    assert.equal(again?.attempts, 2, "the killed slice job was claimed again");
    assert.equal((JSON.parse(again?.result ?? "{}") as { computed?: boolean }).computed, true, "and embedded its slice from the start");
    const log = await logOf(job.id);
    assert.match(log, /resuming build \d+/);
    assert.equal(log.match(/1,300 texts in 3 slices of 512, 0 stored already/g)?.length, 2, "the resumed graph job found the same plan");
  });
});
