import { z } from "zod";
import type { BuildHandle } from "@/lib/builds/build-dir";
import { corpusName } from "@/lib/corpus/browse";
import { FACETS } from "@/lib/corpus/types";
import type { ShardPlan, ShardTask } from "@/lib/graph/shards";
import { failpoint } from "../failpoints";
import { claimJob, newWorkerId, queueSettings, reclaimStaleJobs } from "../queue";
import { registerStage, type StageContext } from "../registry";
import { enqueueStage, runClaimedJob } from "../runner";

// Block jobs of a sharded graph build (lib/graph/shards.ts): the graph job (the coordinator)
// stores the kernel's inputs in the store and queues one "graph-block" job per row block; any
// worker on any machine sharing the store claims them (the queue's claim: FOR UPDATE SKIP
// LOCKED on PostgreSQL), reads the inputs from the store and stores its lists there. The
// coordinator runs queued blocks itself while it waits, so one worker alone finishes a sharded
// build too. A block whose worker dies is re-queued after its lease like any job; a block
// whose lists are stored is never computed again.

export const graphBlockParams = z
  .object({
    corpus: corpusName,
    build: z.number().int().min(1),
    plan: z.string().regex(/^[0-9a-f]{8,64}$/, "plan must be a shard plan's hex fingerprint"),
    facet: z.enum(FACETS),
    shard: z.number().int().min(0),
  })
  .strict();
export type GraphBlockParams = z.infer<typeof graphBlockParams>;

export const GRAPH_BLOCK_STAGE = "graph-block";

registerStage<GraphBlockParams>(
  GRAPH_BLOCK_STAGE,
  async ({ db, params, progress, log, signal }) => {
    const { computeShard } = await import("@/lib/graph/shards");
    // A block re-queued after its worker died may come back after its build completed (the
    // coordinator found its lists stored and went on): nothing is left to do for it.
    const build = await db.build.findUnique({ where: { id: params.build }, select: { status: true } });
    if (build?.status !== "running" && build?.status !== "pending") {
      log(`build ${params.build} is ${build?.status ?? "gone"}: block not needed any more`);
      return { build: params.build, facet: params.facet, shard: params.shard, computed: false, seconds: 0 };
    }
    const r = await computeShard(
      db,
      { buildId: params.build, plan: params.plan, facet: params.facet, shard: params.shard },
      {
        onProgress: (done, total) => {
          // Between blocks: the safe point to stop at for a shutdown or a cancellation.
          signal.throwIfAborted();
          progress(done, total, `${params.facet} shard ${params.shard} blocks ${done}/${total}`);
        },
      },
    );
    if (!r.computed) log(`build ${params.build}: ${params.facet} shard ${params.shard} was stored already`);
    else log(`build ${params.build}: ${params.facet} shard ${params.shard} stored (${r.stats?.blocks ?? 0} blocks, ${(r.stats?.seconds ?? 0).toFixed(2)} s)`);
    await failpoint("graph-block:stored", (line) => log(line, "warn"));
    return { build: params.build, facet: params.facet, shard: params.shard, computed: r.computed, seconds: r.stats?.seconds ?? 0 };
  },
  {
    params: graphBlockParams,
    description: "one row block of a sharded graph build's all-pairs kernel (queued by a graph job with shards > 1)",
  },
);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

const taskKey = (t: Pick<ShardTask, "facet" | "shard">) => `${t.facet}:${t.shard}`;

/**
 * The coordinator's side: queues a block job for every task of the plan without stored lists
 * (an equal queued or running job is reused), then, until every task has its lists, runs queued
 * ones itself and otherwise waits for the other workers. A block job that failed or was
 * cancelled fails the build's job; retrying that job queues the block again.
 */
export async function runGraphBlocks(ctx: StageContext<{ corpus: string }>, build: BuildHandle, plan: ShardPlan): Promise<void> {
  const { db, signal, log, progress } = ctx;
  const { missingShardTasks } = await import("@/lib/graph/shards");
  const settings = queueSettings();
  const workerId = ctx.job.workerId ?? newWorkerId();
  const jobOf = new Map<string, number>();
  const keyOf = new Map<number, string>();
  const requeued = new Map<string, number>();
  const enqueueBlock = async (t: ShardTask) => {
    const { job } = await enqueueStage(
      db,
      GRAPH_BLOCK_STAGE,
      { corpus: ctx.params.corpus, build: build.id, plan: plan.id, facet: t.facet, shard: t.shard },
      { dedupe: true },
    );
    jobOf.set(taskKey(t), job.id);
    keyOf.set(job.id, taskKey(t));
  };
  const missing = await missingShardTasks(db, build.id, plan);
  for (const t of missing) await enqueueBlock(t);
  log(
    `sharded kernel (plan ${plan.id.slice(0, 8)}): ${plan.tasks.length} blocks over ${new Set(plan.tasks.map((t) => t.facet)).size} facets, ` +
      `${plan.tasks.length - missing.length} stored already; block jobs ${[...jobOf.values()].join(", ") || "(none)"}`,
  );
  for (;;) {
    signal.throwIfAborted();
    // The jobs before the lists: a job seen succeeded has stored its lists by then.
    const jobs = await db.job.findMany({ where: { id: { in: [...keyOf.keys()] } }, orderBy: { id: "asc" } });
    const left = new Set((await missingShardTasks(db, build.id, plan)).map(taskKey));
    const done = plan.tasks.length - left.size;
    progress(done, plan.tasks.length, `graph blocks ${done}/${plan.tasks.length}`, 0.5 + 0.35 * (done / plan.tasks.length));
    if (left.size === 0) return;
    for (const key of left) if (!jobOf.has(key)) throw new Error(`build ${build.id}: the lists of block ${key} disappeared; run the graph job again`);
    const open = jobs.filter((j) => left.has(keyOf.get(j.id) ?? ""));
    const broken = open.find((j) => j.status === "failed" || j.status === "cancelled");
    if (broken) throw new Error(`block job ${broken.id} ${broken.status}${broken.error ? `: ${broken.error}` : ""}`);
    // Succeeded without storing lists: it ran while the build was not running (a retried build's
    // block that came back before its coordinator); queue the block again, a few times at most.
    for (const j of open.filter((o) => o.status === "succeeded")) {
      const key = keyOf.get(j.id) as string;
      const tries = (requeued.get(key) ?? 0) + 1;
      if (tries > 3) throw new Error(`block job ${j.id} succeeded without storing its lists, ${tries - 1} times`);
      requeued.set(key, tries);
      keyOf.delete(j.id);
      await enqueueBlock(plan.tasks.find((t) => taskKey(t) === key) as ShardTask);
    }
    let ran = false;
    for (const j of open) {
      if (j.status !== "queued") continue;
      const claimed = await claimJob(db, workerId, { jobId: j.id });
      if (!claimed) continue; // another worker was quicker
      const r = await runClaimedJob(db, claimed, workerId, { settings, shutdown: signal });
      log(`block job ${j.id} run here: ${r.outcome}${r.error ? ` (${r.error})` : ""}`);
      ran = true;
      break;
    }
    if (!ran) {
      // Every remaining block runs elsewhere: wait, and take back those whose worker died.
      await reclaimStaleJobs(db, settings);
      await sleep(settings.pollMs, signal);
    }
  }
}
