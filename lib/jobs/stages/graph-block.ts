import { z } from "zod";
import type { BuildHandle } from "@/lib/builds";
import { corpusName, FACETS } from "@/lib/corpus";
import type { ShardPlan, ShardTask } from "@/lib/graph/shards";
import { failpoint } from "../failpoints";
import { registerStage, type StageContext } from "../registry";
import { runSubJobs } from "../sub-jobs";

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
  async ({ db, params, progress, log, flush, signal }) => {
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
    await failpoint("graph-block:stored", (line) => {
      log(line, "warn");
      return flush();
    });
    return { build: params.build, facet: params.facet, shard: params.shard, computed: r.computed, seconds: r.stats?.seconds ?? 0 };
  },
  {
    params: graphBlockParams,
    description: "one row block of a sharded graph build's all-pairs kernel (queued by a graph job with shards > 1)",
  },
);

const taskKey = (t: Pick<ShardTask, "facet" | "shard">) => `${t.facet}:${t.shard}`;

/** The coordinator's side (lib/jobs/sub-jobs.ts): the row blocks of `plan` as graph-block jobs, until every block has its lists. */
export async function runGraphBlocks(ctx: StageContext<{ corpus: string }>, build: BuildHandle, plan: ShardPlan): Promise<void> {
  const { missingShardTasks } = await import("@/lib/graph/shards");
  await runSubJobs(ctx, build, {
    stage: GRAPH_BLOCK_STAGE,
    noun: "block",
    output: "lists",
    tasks: plan.tasks,
    key: taskKey,
    params: (t) => ({ corpus: ctx.params.corpus, build: build.id, plan: plan.id, facet: t.facet, shard: t.shard }),
    missing: () => missingShardTasks(ctx.db, build.id, plan),
    onQueued: (stored, jobs) =>
      ctx.log(
        `sharded kernel (plan ${plan.id.slice(0, 8)}): ${plan.tasks.length} blocks over ${new Set(plan.tasks.map((t) => t.facet)).size} facets, ` +
          `${stored} stored already; block jobs ${jobs.join(", ") || "(none)"}`,
      ),
    onProgress: (done, total) => ctx.progress(done, total, `graph blocks ${done}/${total}`, 0.5 + 0.35 * (done / total)),
  });
}
