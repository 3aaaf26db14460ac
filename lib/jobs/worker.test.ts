import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Db } from "@/lib/db";
import { createTestDb, type TestDb, testProvider } from "@/lib/db/testing";
import { enqueueJob } from "./queue";
import { registerStage, unregisterStage } from "./registry";
import { runWorker } from "./worker";

const settings = { leaseMs: 60_000, heartbeatMs: 50, maxAttempts: 3, pollMs: 20 };

describe(`worker loop (${testProvider})`, { concurrency: false }, () => {
  let store: TestDb;
  let db: Db;
  before(async () => {
    store = await createTestDb();
    db = store.db;
    registerStage("t-worker-echo", async () => ({ ok: true }));
  });
  after(async () => {
    unregisterStage("t-worker-echo");
    await store?.cleanup();
  });

  test("an idle worker waits out a busy store (another process's long write) instead of exiting", async () => {
    const job = await enqueueJob(db, { stage: "t-worker-echo" });
    // The stale-job scan's read answers "locked" twice, as SQLite does while another process holds the write lock.
    const delegate = db.job as unknown as { findMany: (...args: unknown[]) => Promise<unknown> };
    const findMany = delegate.findMany;
    let busy = 2;
    delegate.findMany = function (this: unknown, ...args: unknown[]) {
      if (busy > 0) {
        busy--;
        return Promise.reject(new Error("SQLITE_BUSY: database is locked"));
      }
      return findMany.apply(this, args);
    };
    const lines: string[] = [];
    try {
      assert.equal((db.job as unknown as typeof delegate).findMany, delegate.findMany, "the client keeps its model delegate");
      const report = await runWorker(db, { stages: ["t-worker-echo"], settings, exitWhenIdle: true, echo: (line) => lines.push(line) });
      assert.deepEqual(
        report.jobs.map((j) => [j.id, j.outcome]),
        [[job.id, "succeeded"]],
      );
    } finally {
      delegate.findMany = findMany;
    }
    assert.equal(busy, 0);
    assert.equal(lines.filter((l) => /store is busy/.test(l)).length, 2);
  });

  test("an error that is not a busy store still stops the worker", async () => {
    const delegate = db.job as unknown as { findMany: (...args: unknown[]) => Promise<unknown> };
    const findMany = delegate.findMany;
    delegate.findMany = () => Promise.reject(new Error("no such table: Job"));
    try {
      await assert.rejects(runWorker(db, { stages: ["t-worker-echo"], settings, exitWhenIdle: true }), /no such table/);
    } finally {
      delegate.findMany = findMany;
    }
  });
});
