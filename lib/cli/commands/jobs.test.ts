import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { disconnectDb } from "@/lib/db";
import { createTestDb, type TestDb, testProvider } from "@/lib/db/testing";
import { registerStage, unregisterStage } from "@/lib/jobs";
import { UsageError } from "../output";
import { registerJobs } from "./jobs";
import { runGraft } from "@/lib/cli/testing";

// `graft jobs …` in process against a test store: JSON output of each subcommand, usage errors
// for bad stages, params and states, and `run` executing a queued job like a worker would.

const graft = (...argv: string[]): Promise<{ out: string; code: number }> => runGraft(registerJobs, argv);

describe(`graft jobs (${testProvider})`, { concurrency: false }, () => {
  let store: TestDb;
  const saved = process.env.DATABASE_URL;
  before(async () => {
    store = await createTestDb();
    process.env.DATABASE_URL = store.config.url;
    registerStage("t-cli", async ({ params, progress, log }) => {
      progress(1, 1, "done");
      log(`hello ${String(params.who)}`);
      return { greeted: params.who };
    });
  });
  after(async () => {
    unregisterStage("t-cli");
    await disconnectDb();
    process.env.DATABASE_URL = saved;
    await store?.cleanup();
  });

  test("stages lists the registered pipeline stages", async () => {
    const { out } = await graft("jobs", "stages", "--json");
    const names = (JSON.parse(out) as { name: string }[]).map((s) => s.name);
    for (const s of ["graph", "import", "t-cli"]) assert.ok(names.includes(s), s);
  });

  test("enqueue validates the stage and its params; list and show report the job", async () => {
    await assert.rejects(graft("jobs", "enqueue", "nope"), (e: Error) => e instanceof UsageError && /unknown stage "nope"/.test(e.message));
    await assert.rejects(graft("jobs", "enqueue", "graph", "--param", "k=0"), (e: Error) => e instanceof UsageError && /k: /.test(e.message));
    await assert.rejects(
      graft("jobs", "enqueue", "import", "--param", "path=/etc"),
      (e: Error) => e instanceof UsageError && /path must lie inside/.test(e.message),
    );
    await assert.rejects(graft("jobs", "enqueue", "graph", "--params", "[1]"), /--params must be a JSON object/);
    // The stage as --stage too (as `jobs run --stage` takes it), but not two different ones, and not none.
    await assert.rejects(graft("jobs", "enqueue", "graph", "--stage", "import"), (e: Error) => e instanceof UsageError && /two stages given/.test(e.message));
    await assert.rejects(graft("jobs", "enqueue"), (e: Error) => e instanceof UsageError && /give the stage to queue/.test(e.message));
    await assert.rejects(graft("jobs", "enqueue", "--stage", "graph", "--param", "k=0"), (e: Error) => e instanceof UsageError && /k: /.test(e.message));
    const { out } = await graft("jobs", "enqueue", "graph", "--corpus", "mini", "--param", "k=5", "--param", "alpha=0.5", "--json");
    const { job, created } = JSON.parse(out);
    assert.equal(created, true);
    assert.deepEqual(job.params, { alpha: 0.5, corpus: "mini", k: 5 });
    assert.equal(job.status, "queued");
    const listed = JSON.parse((await graft("jobs", "list", "--stage", "graph", "--json")).out);
    assert.deepEqual(
      listed.map((j: { id: number }) => j.id),
      [job.id],
    );
    const shown = JSON.parse((await graft("jobs", "show", String(job.id), "--json")).out);
    assert.equal(shown.id, job.id);
    assert.equal(shown.serving, null);
    await assert.rejects(graft("jobs", "show", "999999"), /job 999999 does not exist/);
    await assert.rejects(graft("jobs", "list", "--status", "sleeping"), UsageError);

    // cancel, then retry, then cancel again: each state change is allowed once.
    assert.equal(JSON.parse((await graft("jobs", "cancel", String(job.id), "--json")).out).status, "cancelled");
    await assert.rejects(graft("jobs", "cancel", String(job.id)), /only queued or running jobs/);
    assert.equal(JSON.parse((await graft("jobs", "retry", String(job.id), "--json")).out).status, "queued");
    await graft("jobs", "cancel", String(job.id));
  });

  test("run executes a queued job in process, or queues and runs a stage; a finished job is not run twice", async () => {
    const queued = JSON.parse((await graft("jobs", "enqueue", "t-cli", "--param", "who=ada", "--json")).out).job;
    const ran = await graft("jobs", "run", String(queued.id), "--json");
    assert.equal(ran.code, 0);
    const r = JSON.parse(ran.out);
    assert.equal(r.outcome, "succeeded");
    assert.deepEqual(r.job.result, { greeted: "ada" });
    await assert.rejects(graft("jobs", "run", String(queued.id)), /is succeeded, not queued/);
    const direct = JSON.parse((await graft("jobs", "run", "--stage", "t-cli", "--param", "who=bob", "--json")).out);
    assert.equal(direct.outcome, "succeeded");
    assert.deepEqual(direct.job.result, { greeted: "bob" });
    await assert.rejects(graft("jobs", "run"), /give a job id or --stage/);
    const log = JSON.parse((await graft("jobs", "show", String(queued.id), "--json")).out).logs.map((l: { message: string }) => l.message);
    assert.ok(log.includes("hello ada"));
  });
});
