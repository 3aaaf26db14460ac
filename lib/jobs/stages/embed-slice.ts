import { z } from "zod";
import type { BuildHandle } from "@/lib/builds";
import { corpusName } from "@/lib/corpus";
import type { EmbedSlicePlan } from "@/lib/embed/shards";
import { failpoint } from "../failpoints";
import { registerStage, type StageContext } from "../registry";
import { runSubJobs } from "../sub-jobs";

// Slice jobs of a sharded graph build's embedding (lib/embed/shards.ts): the graph job (the
// coordinator) stores the texts its vector cache lacks, cut into slices, and queues one
// "embed-slice" job per slice; any worker on any machine sharing the store claims them (the
// queue's claim: FOR UPDATE SKIP LOCKED on PostgreSQL), embeds its slice and stores the vectors
// there. The coordinator runs queued slices itself while it waits, so one worker alone finishes
// a sharded build too. A slice whose worker dies is re-queued after its lease like any job (at
// once when the dead worker was on the same host); a slice whose vectors are stored is never
// embedded again. The same shape as the kernel's "graph-block" jobs (graph-block.ts).

export const embedSliceParams = z
  .object({
    corpus: corpusName,
    build: z.number().int().min(1),
    plan: z.string().regex(/^[0-9a-f]{8,64}$/, "plan must be an embedding plan's hex fingerprint"),
    slice: z.number().int().min(0),
  })
  .strict();
export type EmbedSliceParams = z.infer<typeof embedSliceParams>;

export const EMBED_SLICE_STAGE = "embed-slice";

registerStage<EmbedSliceParams>(
  EMBED_SLICE_STAGE,
  async ({ db, params, progress, log, flush, signal }) => {
    const { embedSlice } = await import("@/lib/embed/shards");
    // A slice re-queued after its worker died may come back after its build went on without it.
    const build = await db.build.findUnique({ where: { id: params.build }, select: { status: true } });
    if (build?.status !== "running" && build?.status !== "pending") {
      log(`build ${params.build} is ${build?.status ?? "gone"}: slice not needed any more`);
      return { build: params.build, slice: params.slice, computed: false, texts: 0, seconds: 0 };
    }
    const r = await embedSlice(
      db,
      { buildId: params.build, plan: params.plan, slice: params.slice },
      {
        onProgress: (done, total) => progress(done, total, `embed slice ${params.slice} texts ${done}/${total}`),
        betweenSteps: async () => {
          // Between pool calls: the safe point to stop at for a shutdown or a cancellation.
          signal.throwIfAborted();
          await failpoint("embed-slice:midway", (line) => {
            log(line, "warn");
            return flush();
          });
        },
      },
    );
    if (!r.computed) log(`build ${params.build}: embedding slice ${params.slice} was stored already`);
    else log(`build ${params.build}: embedding slice ${params.slice} stored (${r.texts} texts, ${r.seconds.toFixed(2)} s)`);
    return { build: params.build, slice: params.slice, computed: r.computed, texts: r.texts, seconds: r.seconds };
  },
  {
    params: embedSliceParams,
    description: "one slice of a sharded graph build's missing item texts, embedded (queued by a graph job with shards > 1)",
  },
);

/** The coordinator's side (lib/jobs/sub-jobs.ts): the slices of `plan` as embed-slice jobs, until every slice has its vectors. */
export async function runEmbedSlices(ctx: StageContext<{ corpus: string }>, build: BuildHandle, plan: EmbedSlicePlan): Promise<void> {
  const { missingEmbedSlices } = await import("@/lib/embed/shards");
  await runSubJobs(ctx, build, {
    stage: EMBED_SLICE_STAGE,
    noun: "embedding slice",
    output: "vectors",
    tasks: Array.from({ length: plan.slices }, (_, s) => s),
    key: (slice) => String(slice),
    params: (slice) => ({ corpus: ctx.params.corpus, build: build.id, plan: plan.id, slice }),
    missing: () => missingEmbedSlices(ctx.db, build.id, plan),
    onQueued: (stored, jobs) =>
      ctx.log(
        `sharded embedding (plan ${plan.id.slice(0, 8)}): ${plan.texts.toLocaleString("en-US")} texts in ${plan.slices} slices of ${plan.sliceItems}, ` +
          `${stored} stored already; slice jobs ${jobs.join(", ") || "(none)"}`,
      ),
    onProgress: (done, total) => ctx.progress(done, total, `embed slices ${done}/${total}`, 0.5 * (done / total)),
  });
}
