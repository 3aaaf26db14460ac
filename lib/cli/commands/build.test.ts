import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { disconnectDb } from "@/lib/db";
import { testProvider } from "@/lib/db/testing";
import { graphCsrSha256, useMiniCorpusStore } from "@/lib/graph/testing";
import { cancelJob, enqueueStage, runJobInline } from "@/lib/jobs";
import { UsageError } from "../output";
import { ProgressBar } from "../progress";
import { graphJobReport, registerBuild } from "./build";
import { runGraft } from "@/lib/cli/testing";

// `graft build --stage graph --similarity …` in process against the six-paper store: the flag
// is validated, recorded in the build and reported; leaving it out builds the default mix.
// `--shards N` runs the stage as a graph job whose kernel blocks are queued as graph-block jobs.

const graft = async (...argv: string[]): Promise<string> => (await runGraft(registerBuild, argv)).out;

describe(`graft build --stage graph: --similarity, --shards (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-build-cli-");
  const saved = { url: process.env.DATABASE_URL, progress: process.env.GRAFT_PROGRESS };
  before(async () => {
    await disconnectDb();
    process.env.DATABASE_URL = t.databaseUrl;
    process.env.GRAFT_PROGRESS = "off";
  });
  after(async () => {
    await disconnectDb();
    process.env.DATABASE_URL = saved.url;
    process.env.GRAFT_PROGRESS = saved.progress;
  });

  test("a similarity that is neither cosine nor mix[:λ in 0..1] is a usage error", async () => {
    for (const bad of ["mix:2", "bm25"]) {
      await assert.rejects(
        graft("build", "--stage", "graph", "--corpus", "mini", "--similarity", bad),
        (e: Error) => e instanceof UsageError && /--similarity: similarity must be/.test(e.message),
        bad,
      );
    }
  });

  test("cosine keeps the paper's graph (α 0.75); the default mixes in the lexical score (α 0.25)", async () => {
    const cosine = JSON.parse(await graft("build", "--stage", "graph", "--corpus", "mini", "--k", "2", "--workers", "1", "--similarity", "cosine", "--json"));
    assert.equal(cosine.similarity, "cosine");
    const mixed = JSON.parse(await graft("build", "--stage", "graph", "--corpus", "mini", "--k", "2", "--workers", "1", "--json"));
    assert.equal(mixed.similarity, "mix:0.5");
    const lambda = JSON.parse(
      await graft("build", "--stage", "graph", "--corpus", "mini", "--k", "2", "--workers", "1", "--similarity", "mix:0.3", "--alpha", "0.5", "--json"),
    );
    assert.equal(lambda.similarity, "mix:0.3");
    const params = (id: number) => t.db.build.findUniqueOrThrow({ where: { id } }).then((b) => JSON.parse(b.params));
    assert.deepEqual(await params(cosine.build).then((p) => [p.similarity, p.alpha, p.beta]), ["cosine", 0.75, 0.25]);
    assert.deepEqual(await params(mixed.build).then((p) => [p.similarity, p.alpha, p.beta]), ["mix:0.5", 0.25, 0.75]);
    assert.deepEqual(await params(lambda.build).then((p) => [p.similarity, p.alpha, p.beta]), ["mix:0.3", 0.5, 0.5]);
  });

  test("--shards must be a positive integer, for the graph stage, within the graph job's limits", async () => {
    for (const bad of ["0", "-2", "1.5", "abc", "2000"]) {
      await assert.rejects(
        graft("build", "--stage", "graph", "--corpus", "mini", "--shards", bad),
        (e: Error) => e instanceof UsageError && /--shards: shards must be (a positive integer|at most 1024)/.test(e.message),
        bad,
      );
    }
    await assert.rejects(
      graft("build", "--stage", "genret", "--corpus", "mini", "--shards", "2"),
      (e: Error) => e instanceof UsageError && /--shards: only the graph stage is sharded/.test(e.message),
    );
    await assert.rejects(
      graft("build", "--stage", "graph", "--corpus", "mini", "--shards", "2", "--workers", "32"),
      (e: Error) => e instanceof UsageError && /--workers: /.test(e.message),
      "the graph job takes at most 16 embedding workers",
    );
    assert.equal(await t.db.job.count(), 0, "nothing was queued");
  });

  test("--shards 2 builds through a graph job and its graph-block jobs, writing the one-pass graph.csr", async () => {
    const csrOf = (id: number) => graphCsrSha256(t.db, id);
    const args = ["build", "--stage", "graph", "--corpus", "mini", "--k", "2", "--workers", "1", "--json"];
    const onePass = JSON.parse(await graft(...args));
    const sharded = JSON.parse(await graft(...args, "--shards", "2"));
    assert.ok(sharded.build > onePass.build);
    assert.deepEqual([sharded.papers, sharded.items, sharded.similarity], [onePass.papers, onePass.items, onePass.similarity], "the same report");
    assert.equal(await csrOf(sharded.build), await csrOf(onePass.build), "graph.csr is byte-identical");
    assert.equal(await t.db.edge.count({ where: { buildId: sharded.build } }), await t.db.edge.count({ where: { buildId: onePass.build } }));

    const build = await t.db.build.findUniqueOrThrow({ where: { id: sharded.build } });
    assert.equal(build.status, "complete");
    assert.equal(JSON.parse(build.params).shards, 2);
    const job = await t.db.job.findFirstOrThrow({ where: { stage: "graph", buildId: sharded.build } });
    assert.equal(job.status, "succeeded");
    assert.equal(JSON.parse(job.params).shards, 2, "the job carries the shards param");
    const blocks = (await t.db.job.findMany({ where: { stage: "graph-block" } })).filter((j) => JSON.parse(j.params).build === sharded.build);
    const facets = new Set(blocks.map((b) => JSON.parse(b.params).facet as string));
    assert.equal(facets.size, 4, "block jobs for all four facets");
    assert.ok(
      blocks.every((b) => b.status === "succeeded"),
      "with no worker running, this process ran every block itself",
    );
    assert.equal(await t.db.graphShard.count({ where: { buildId: sharded.build } }), 0, "the shard rows are dropped");
  });

  test("a graph job that a worker claimed first is waited for: its report, or its failure", async () => {
    const { job } = await enqueueStage(t.db, "graph", { corpus: "mini", k: 2, workers: 1, shards: 2 });
    // Stands in for the worker that took the job between the command's enqueue and its claim.
    const worker = runJobInline(t.db, job.id);
    const report = await graphJobReport(t.db, job.id, new ProgressBar("wait"));
    const run = await worker;
    assert.equal(run.outcome, "succeeded", run.error);
    assert.deepEqual(report, JSON.parse(JSON.stringify(run.result)), "the report the worker stored");
    assert.equal(report.papers, 6);

    const { job: doomed } = await enqueueStage(t.db, "graph", { corpus: "mini", k: 2, workers: 1, shards: 2 });
    await cancelJob(t.db, doomed.id);
    await assert.rejects(graphJobReport(t.db, doomed.id, new ProgressBar("wait")), new RegExp(`graph job ${doomed.id} cancelled`));
  });
});
