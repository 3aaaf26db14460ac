import { z } from "zod";
import type { BuildHandle } from "@/lib/builds/build-dir";
import { corpusName } from "@/lib/corpus/browse";
import type { EmbedSlicePlan } from "@/lib/embed/shards";
import { failpoint } from "../failpoints";
import { claimJob, newWorkerId, queueSettings, reclaimStaleJobs } from "../queue";
import { registerStage, type StageContext } from "../registry";
import { enqueueStage, runClaimedJob } from "../runner";

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
  async ({ db, params, progress, log, signal }) => {
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
          await failpoint("embed-slice:midway", (line) => log(line, "warn"));
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

/**
 * The coordinator's side: queues a slice job for every slice of the plan without stored vectors
 * (an equal queued or running job is reused), then, until every slice has its vectors, runs
 * queued ones itself and otherwise waits for the other workers. A slice job that failed or was
 * cancelled fails the build's job; retrying that job queues the slice again.
 */
export async function runEmbedSlices(ctx: StageContext<{ corpus: string }>, build: BuildHandle, plan: EmbedSlicePlan): Promise<void> {
  const { db, signal, log, progress } = ctx;
  const { missingEmbedSlices } = await import("@/lib/embed/shards");
  const settings = queueSettings();
  const workerId = ctx.job.workerId ?? newWorkerId();
  const jobOf = new Map<number, number>();
  const sliceOf = new Map<number, number>();
  const requeued = new Map<number, number>();
  const enqueueSlice = async (slice: number) => {
    const { job } = await enqueueStage(db, EMBED_SLICE_STAGE, { corpus: ctx.params.corpus, build: build.id, plan: plan.id, slice }, { dedupe: true });
    jobOf.set(slice, job.id);
    sliceOf.set(job.id, slice);
  };
  const missing = await missingEmbedSlices(db, build.id, plan);
  for (const s of missing) await enqueueSlice(s);
  log(
    `sharded embedding (plan ${plan.id.slice(0, 8)}): ${plan.texts.toLocaleString("en-US")} texts in ${plan.slices} slices of ${plan.sliceItems}, ` +
      `${plan.slices - missing.length} stored already; slice jobs ${[...jobOf.values()].join(", ") || "(none)"}`,
  );
  for (;;) {
    signal.throwIfAborted();
    // The jobs before the vectors: a job seen succeeded has stored its vectors by then.
    const jobs = await db.job.findMany({ where: { id: { in: [...sliceOf.keys()] } }, orderBy: { id: "asc" } });
    const left = new Set(await missingEmbedSlices(db, build.id, plan));
    const done = plan.slices - left.size;
    progress(done, plan.slices, `embed slices ${done}/${plan.slices}`, 0.5 * (done / plan.slices));
    if (left.size === 0) return;
    for (const s of left) if (!jobOf.has(s)) throw new Error(`build ${build.id}: the vectors of embedding slice ${s} disappeared; run the graph job again`);
    const open = jobs.filter((j) => left.has(sliceOf.get(j.id) ?? -1));
    const broken = open.find((j) => j.status === "failed" || j.status === "cancelled");
    if (broken) throw new Error(`embedding slice job ${broken.id} ${broken.status}${broken.error ? `: ${broken.error}` : ""}`);
    // Succeeded without storing vectors: it ran while the build was not running (a retried
    // build's slice that came back before its coordinator); queue it again, a few times at most.
    for (const j of open.filter((o) => o.status === "succeeded")) {
      const slice = sliceOf.get(j.id) as number;
      const tries = (requeued.get(slice) ?? 0) + 1;
      if (tries > 3) throw new Error(`embedding slice job ${j.id} succeeded without storing its vectors, ${tries - 1} times`);
      requeued.set(slice, tries);
      sliceOf.delete(j.id);
      await enqueueSlice(slice);
    }
    let ran = false;
    for (const j of open) {
      if (j.status !== "queued") continue;
      const claimed = await claimJob(db, workerId, { jobId: j.id });
      if (!claimed) continue; // another worker was quicker
      const r = await runClaimedJob(db, claimed, workerId, { settings, shutdown: signal });
      log(`embedding slice job ${j.id} run here: ${r.outcome}${r.error ? ` (${r.error})` : ""}`);
      ran = true;
      break;
    }
    if (!ran) {
      // Every remaining slice runs elsewhere: wait, and take back those whose worker died.
      await reclaimStaleJobs(db, settings);
      await sleep(settings.pollMs, signal);
    }
  }
}
