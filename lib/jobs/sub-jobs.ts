/**
 * The coordinator's side of a sharded stage (the kernel's row blocks in stages/graph-block.ts,
 * the embedding's slices in stages/embed-slice.ts): queues a job for every task of the plan whose
 * output is not stored yet (an equal queued or running job is reused), then, until every task has
 * its output, runs queued ones itself and otherwise waits for the other workers, taking back
 * those whose worker died. A task job that failed or was cancelled fails the coordinator's job;
 * retrying that job queues the task again.
 */
import type { BuildHandle } from "@/lib/builds";
import { claimJob, newWorkerId, queueSettings, reclaimStaleJobs } from "./queue";
import type { StageContext } from "./registry";
import { enqueueStage, runClaimedJob } from "./runner";

export interface SubJobPlan<T> {
  /** The task jobs' stage. */
  stage: string;
  /** What a task is called in messages ("block", "embedding slice"), and what it stores ("lists", "vectors"). */
  noun: string;
  output: string;
  tasks: readonly T[];
  key(task: T): string;
  params(task: T): Record<string, unknown>;
  /** The tasks whose output is not stored yet. */
  missing(): Promise<T[]>;
  /** Called once the jobs are queued: how many tasks were stored already, and the jobs' ids. */
  onQueued(storedAlready: number, jobIds: number[]): void;
  onProgress(done: number, total: number): void;
}

export async function runSubJobs<T>(ctx: Pick<StageContext<unknown>, "db" | "signal" | "log" | "job">, build: BuildHandle, plan: SubJobPlan<T>): Promise<void> {
  const { db, signal, log } = ctx;
  const settings = queueSettings();
  const workerId = ctx.job.workerId ?? newWorkerId();
  const taskOf = new Map(plan.tasks.map((t) => [plan.key(t), t]));
  const jobOf = new Map<string, number>();
  const keyOf = new Map<number, string>();
  const requeued = new Map<string, number>();
  const enqueue = async (t: T) => {
    const { job } = await enqueueStage(db, plan.stage, plan.params(t), { dedupe: true });
    jobOf.set(plan.key(t), job.id);
    keyOf.set(job.id, plan.key(t));
  };
  const missing = await plan.missing();
  for (const t of missing) await enqueue(t);
  plan.onQueued(plan.tasks.length - missing.length, [...jobOf.values()]);
  for (;;) {
    signal.throwIfAborted();
    // The jobs before the outputs: a job seen succeeded has stored its output by then.
    const jobs = await db.job.findMany({ where: { id: { in: [...keyOf.keys()] } }, orderBy: { id: "asc" } });
    const left = new Set((await plan.missing()).map(plan.key));
    plan.onProgress(plan.tasks.length - left.size, plan.tasks.length);
    if (left.size === 0) return;
    for (const key of left)
      if (!jobOf.has(key)) throw new Error(`build ${build.id}: the ${plan.output} of ${plan.noun} ${key} disappeared; run the graph job again`);
    const open = jobs.filter((j) => left.has(keyOf.get(j.id) ?? ""));
    const broken = open.find((j) => j.status === "failed" || j.status === "cancelled");
    if (broken) throw new Error(`${plan.noun} job ${broken.id} ${broken.status}${broken.error ? `: ${broken.error}` : ""}`);
    // Succeeded without storing its output: it ran while the build was not running (a retried
    // build's task that came back before its coordinator); queue it again, a few times at most.
    for (const j of open.filter((o) => o.status === "succeeded")) {
      const key = keyOf.get(j.id) as string;
      const tries = (requeued.get(key) ?? 0) + 1;
      if (tries > 3) throw new Error(`${plan.noun} job ${j.id} succeeded without storing its ${plan.output}, ${tries - 1} times`);
      requeued.set(key, tries);
      keyOf.delete(j.id);
      await enqueue(taskOf.get(key) as T);
    }
    let ran = false;
    for (const j of open) {
      if (j.status !== "queued") continue;
      const claimed = await claimJob(db, workerId, { jobId: j.id });
      if (!claimed) continue; // another worker was quicker
      const r = await runClaimedJob(db, claimed, workerId, { settings, shutdown: signal });
      log(`${plan.noun} job ${j.id} run here: ${r.outcome}${r.error ? ` (${r.error})` : ""}`);
      ran = true;
      break;
    }
    if (!ran) {
      // Every remaining task runs elsewhere: wait, and take back those whose worker died.
      await reclaimStaleJobs(db, settings);
      await sleep(settings.pollMs, signal);
    }
  }
}

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
