import assert from "node:assert/strict";
import os from "node:os";
import { after, before, describe, test } from "node:test";
import { z } from "zod";
import { createDb, type Db } from "@/lib/db";
import { createTestDb, type TestDb, testProvider } from "@/lib/db/testing";
import {
  appendJobLogs,
  cancelJob,
  claimJob,
  enqueueJob,
  getJobDetail,
  heartbeatJob,
  isBusy,
  isDeadLocalWorker,
  JobStateError,
  listJobs,
  parseWorkerId,
  queueSettings,
  reclaimStaleJobs,
  retryJob,
  succeedJob,
} from "./queue";
import { registerStage, unregisterStage } from "./registry";
import { enqueueStage, runJobInline } from "./runner";
import { runWorker } from "./worker";

// The queue's guarantees on both providers: exclusive claims under contention, leases that
// expire into re-queues (and into failure after too many attempts), immediate reclaim of a dead
// local worker's job, compare-and-set writes that a superseded worker cannot win, cancellation,
// retry, and the runner's recording of progress, logs, results and (redacted) errors.

const settings = { leaseMs: 60_000, heartbeatMs: 50, maxAttempts: 3, pollMs: 20 };

describe(`job queue (${testProvider})`, { concurrency: false }, () => {
  let store: TestDb;
  let db: Db;
  before(async () => {
    store = await createTestDb();
    db = store.db;
  });
  after(async () => {
    for (const s of ["t-echo", "t-fail", "t-wait", "t-slow"]) unregisterStage(s);
    await store?.cleanup();
  });
  const clear = async () => {
    await db.jobLog.deleteMany();
    await db.job.deleteMany();
  };

  test("concurrent workers on separate connections never claim the same job", async () => {
    await clear();
    const ids = [];
    for (let i = 0; i < 24; i++) ids.push((await enqueueJob(db, { stage: "t-echo", params: { i } })).id);
    const clients = Array.from({ length: 6 }, () => createDb(store.config));
    try {
      const claimed = await Promise.all(
        clients.map(async (c, w) => {
          const mine: number[] = [];
          for (;;) {
            const job = await claimJob(c, `host:${1000 + w}:w${w}`);
            if (!job) return mine;
            mine.push(job.id);
          }
        }),
      );
      const all = claimed.flat().sort((a, b) => a - b);
      assert.deepEqual(all, ids, "every job claimed exactly once");
      assert.ok(claimed.filter((c) => c.length > 0).length >= 2, "the work was shared");
      const rows = await db.job.findMany();
      assert.ok(rows.every((r) => r.status === "running" && r.attempts === 1 && r.workerId && r.heartbeat && r.startedAt));
    } finally {
      await Promise.all(clients.map((c) => c.$disconnect()));
    }
  });

  test("claims take the oldest job, honour stage filters and a specific id", async () => {
    await clear();
    const a = await enqueueJob(db, { stage: "t-echo" });
    const b = await enqueueJob(db, { stage: "t-fail" });
    const c = await enqueueJob(db, { stage: "t-echo" });
    assert.equal((await claimJob(db, "h:1:a", { stages: ["t-fail"] }))?.id, b.id);
    assert.equal((await claimJob(db, "h:1:a", { jobId: c.id }))?.id, c.id);
    assert.equal((await claimJob(db, "h:1:a"))?.id, a.id);
    assert.equal(await claimJob(db, "h:1:a"), null);
  });

  test("an expired lease re-queues the job; the old worker can no longer write; too many attempts fail it", async () => {
    await clear();
    const job = await enqueueJob(db, { stage: "t-echo" });
    const first = await claimJob(db, "elsewhere:11:a");
    assert.equal(first?.id, job.id);
    assert.equal(await heartbeatJob(db, job.id, "elsewhere:11:a"), true);
    // Within the lease nothing happens.
    assert.deepEqual(await reclaimStaleJobs(db, settings), { requeued: [], failed: [] });
    const later = new Date(Date.now() + settings.leaseMs + 1000);
    assert.deepEqual(await reclaimStaleJobs(db, settings, later), { requeued: [job.id], failed: [] });
    const second = await claimJob(db, "elsewhere:12:b");
    assert.equal(second?.attempts, 2);
    assert.equal(await heartbeatJob(db, job.id, "elsewhere:11:a"), false, "the superseded worker lost its lease");
    assert.equal(await succeedJob(db, job.id, "elsewhere:11:a", { stale: true }), false, "and cannot complete the job");
    assert.deepEqual(await reclaimStaleJobs(db, settings, new Date(Date.now() + 2 * settings.leaseMs)), { requeued: [job.id], failed: [] });
    await claimJob(db, "elsewhere:13:c");
    assert.deepEqual(await reclaimStaleJobs(db, settings, new Date(Date.now() + 3 * settings.leaseMs)), { requeued: [], failed: [job.id] });
    const failed = await db.job.findUniqueOrThrow({ where: { id: job.id } });
    assert.equal(failed.status, "failed");
    assert.match(failed.error ?? "", /after 3 attempts/);
  });

  test("a dead worker of this host is reclaimed at once, without waiting for its lease", async () => {
    await clear();
    assert.deepEqual(parseWorkerId("my-host.local:4242:ab12"), { host: "my-host.local", pid: 4242 });
    assert.equal(isDeadLocalWorker(`${os.hostname()}:${process.pid}:x1`), false, "this process is alive");
    assert.equal(
      isDeadLocalWorker("some-other-host:1:x1", os.hostname(), () => false),
      false,
      "other hosts wait for the lease",
    );
    const job = await enqueueJob(db, { stage: "t-echo" });
    // A pid far above pid_max is never alive.
    const ghost = `${os.hostname()}:99999999:dead`;
    await claimJob(db, ghost);
    assert.deepEqual(await reclaimStaleJobs(db, settings), { requeued: [job.id], failed: [] });
    const logs = await db.jobLog.findMany({ where: { jobId: job.id } });
    assert.match(logs.map((l) => l.message).join("\n"), /is gone: re-queued/);
  });

  test("cancel and retry follow the job's state; a cancelled build is never served", async () => {
    await clear();
    const corpus = await db.corpus.upsert({ where: { name: "qtest" }, create: { name: "qtest" }, update: {} });
    const build = await db.build.create({ data: { corpusId: corpus.id, dir: "qtest/build-x", status: "running" } });
    const job = await db.job.create({ data: { stage: "t-echo", corpusId: corpus.id, buildId: build.id } });
    await assert.rejects(retryJob(db, job.id), JobStateError);
    assert.equal((await cancelJob(db, job.id)).status, "cancelled");
    assert.equal((await db.build.findUniqueOrThrow({ where: { id: build.id } })).status, "failed");
    await assert.rejects(cancelJob(db, job.id), /only queued or running jobs/);
    const again = await retryJob(db, job.id);
    assert.equal(again.status, "queued");
    assert.equal(again.buildId, build.id, "a retried job keeps its build and resumes into it");
    await assert.rejects(cancelJob(db, 987654), /does not exist/);
  });

  test("the runner records progress, logs and the result; failures are recorded with secrets redacted", async () => {
    await clear();
    registerStage(
      "t-echo",
      async ({ params, progress, log }) => {
        for (let i = 1; i <= 4; i++) progress(i, 4, `step ${i}`);
        log("halfway");
        log("calling with api_key=sk-abcdefghijklmnopqrstuvwxyz123456", "warn");
        return { echoed: params.word };
      },
      { params: z.object({ word: z.string().max(10) }).strict() },
    );
    registerStage("t-fail", async () => {
      throw new Error("could not connect to postgresql://graft:hunter2@db.internal:5432/graft");
    });
    await assert.rejects(enqueueStage(db, "t-echo", { word: "far too long a word" }), z.ZodError);
    await assert.rejects(enqueueStage(db, "t-nope", {}), /unknown stage "t-nope"/);

    const { job } = await enqueueStage(db, "t-echo", { word: "hi" });
    const run = await runJobInline(db, job.id, { settings, flushMs: 0 });
    assert.equal(run.outcome, "succeeded");
    const detail = await getJobDetail(db, job.id);
    assert.ok(detail);
    assert.equal(detail.status, "succeeded");
    assert.equal(detail.progress, 1);
    assert.deepEqual(detail.result, { echoed: "hi" });
    const lines = detail.logs.map((l) => l.message).join("\n");
    assert.match(lines, /halfway/);
    assert.ok(!lines.includes("sk-abcdefghijklmnop"), "API keys never reach the log");
    await assert.rejects(runJobInline(db, job.id), /is succeeded, not queued/);

    const { job: bad } = await enqueueStage(db, "t-fail", {});
    const failed = await runJobInline(db, bad.id, { settings });
    assert.equal(failed.outcome, "failed");
    assert.equal(failed.job.status, "failed");
    assert.match(failed.job.error ?? "", /could not connect to postgresql:\/\/graft:\*\*\*@db\.internal/);
    const badLogs = (await db.jobLog.findMany({ where: { jobId: bad.id } })).map((l) => l.message).join("\n");
    assert.ok(!badLogs.includes("hunter2") && !(failed.job.error ?? "").includes("hunter2"), "passwords never reach the job record");

    const listed = await listJobs(db, { stage: "t-echo" });
    assert.deepEqual(
      listed.map((j) => j.id),
      [job.id],
    );
  });

  test("enqueue can de-duplicate a job already queued with the same params", async () => {
    await clear();
    const a = await enqueueStage(db, "t-echo", { word: "x" }, { dedupe: true });
    const b = await enqueueStage(db, "t-echo", { word: "x" }, { dedupe: true });
    const c = await enqueueStage(db, "t-echo", { word: "y" }, { dedupe: true });
    assert.equal(a.created, true);
    assert.equal(b.created, false);
    assert.equal(b.job.id, a.job.id);
    assert.notEqual(c.job.id, a.job.id);
  });

  test("a worker shut down mid-job hands it back to the queue; a cancel reaches a running job", async () => {
    await clear();
    registerStage("t-wait", async ({ signal, progress }) => {
      progress(1, 10, "waiting");
      await new Promise((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    });
    const { job } = await enqueueStage(db, "t-wait", {});
    const shutdown = new AbortController();
    const worker = runWorker(db, { stages: ["t-wait"], settings, signal: shutdown.signal, graceMs: 5000 });
    for (let i = 0; i < 200 && (await db.job.findUniqueOrThrow({ where: { id: job.id } })).status !== "running"; i++)
      await new Promise((r) => setTimeout(r, 20));
    shutdown.abort();
    const report = await worker;
    assert.deepEqual(
      report.jobs.map((j) => j.outcome),
      ["released"],
    );
    const released = await db.job.findUniqueOrThrow({ where: { id: job.id } });
    assert.equal(released.status, "queued");
    assert.equal(released.attempts, 0, "a shutdown does not count against the job's attempts");
    assert.equal(released.workerId, null);

    // Now let it run again and cancel it while it waits: the heartbeat notices and aborts it.
    const run = runJobInline(db, job.id, { settings });
    for (let i = 0; i < 200 && (await db.job.findUniqueOrThrow({ where: { id: job.id } })).status !== "running"; i++)
      await new Promise((r) => setTimeout(r, 20));
    await cancelJob(db, job.id);
    const cancelled = await run;
    assert.equal(cancelled.outcome, "cancelled");
    assert.equal(cancelled.job.status, "cancelled");
  });

  test("a stage stuck past the grace period is handed back anyway", async () => {
    await clear();
    registerStage("t-slow", () => new Promise(() => {})); // ignores its signal
    const { job } = await enqueueStage(db, "t-slow", {});
    const shutdown = new AbortController();
    const worker = runWorker(db, { stages: ["t-slow"], settings, signal: shutdown.signal, graceMs: 100 });
    for (let i = 0; i < 200 && (await db.job.findUniqueOrThrow({ where: { id: job.id } })).status !== "running"; i++)
      await new Promise((r) => setTimeout(r, 20));
    shutdown.abort();
    const report = await worker;
    assert.equal(report.jobs[0].outcome, "released");
    assert.equal((await db.job.findUniqueOrThrow({ where: { id: job.id } })).status, "queued");
  });

  test("settings come from the environment and reject nonsense", () => {
    assert.equal(queueSettings({ GRAFT_JOB_LEASE_S: "8" }).leaseMs, 8000);
    assert.equal(queueSettings({ GRAFT_JOB_LEASE_S: "8" }).heartbeatMs, 2000);
    assert.throws(() => queueSettings({ GRAFT_JOB_MAX_ATTEMPTS: "0" }), /GRAFT_JOB_MAX_ATTEMPTS/);
    assert.throws(() => queueSettings({ GRAFT_JOB_LEASE_S: "soon" }), /GRAFT_JOB_LEASE_S/);
  });

  test("logs are appended in order and read back after an id (polling)", async () => {
    await clear();
    const job = await enqueueJob(db, { stage: "t-echo" });
    await appendJobLogs(db, job.id, [
      { level: "info", message: "one" },
      { level: "warn", message: "two" },
    ]);
    const all = await getJobDetail(db, job.id);
    assert.deepEqual(
      all?.logs.map((l) => [l.level, l.message]),
      [
        ["info", "one"],
        ["warn", "two"],
      ],
    );
    const newer = await getJobDetail(db, job.id, { logsAfter: all?.logs[0].id });
    assert.deepEqual(
      newer?.logs.map((l) => l.message),
      ["two"],
    );
  });
});

test("a busy SQLite store is retried, also when Prisma's SQLite adapter reports it as a timeout; a PostgreSQL timeout is not", () => {
  // What the SQLite adapter makes of SQLITE_BUSY (kind SocketTimeout → P1008), as a worker saw it.
  const timedOut = Object.assign(new Error("Operation has timed out"), { code: "P1008" });
  assert.equal(isBusy(timedOut, "sqlite"), true);
  assert.equal(isBusy(new Error("Invalid `db.job.updateMany()` invocation:\n\nOperation has timed out"), "sqlite"), true);
  assert.equal(isBusy(Object.assign(new Error("timed out"), { code: "P1008" }), "sqlite"), true, "by its code too");
  assert.equal(isBusy(timedOut, "postgresql"), false, "on PostgreSQL it is a network timeout, not a lock");
  for (const provider of ["sqlite", "postgresql"] as const) {
    assert.equal(isBusy(new Error("SqliteError: database is locked"), provider), true);
    assert.equal(isBusy("SQLITE_BUSY: database is busy", provider), true);
    assert.equal(isBusy(new Error("Unique constraint failed on the fields: (`id`)"), provider), false);
    assert.equal(isBusy(undefined, provider), false);
  }
});
