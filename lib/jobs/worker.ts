import { config } from "@/lib/config";
import { dbProvider, type Db } from "@/lib/db";
import { ProgressLines } from "@/lib/progress";
import { claimJob, isBusy, type JobRow, newWorkerId, type QueueSettings, queueSettings, reclaimStaleJobs, releaseJob } from "./queue";
import { listStages } from "./registry";
import { type JobOutcome, runClaimedJob } from "./runner";
import type { LogLevel } from "./types";

// The worker loop behind `npm run worker`: reclaim dead workers' jobs, claim the oldest queued
// job of a stage this worker has, run it, repeat; sleep when the queue is empty. Several
// workers (on one machine or many, sharing a PostgreSQL store) can run side by side.

type Echo = (line: string, level: LogLevel) => void;

export interface WorkerOptions {
  workerId?: string;
  /** Stages this worker takes (default: every registered stage). */
  stages?: readonly string[];
  settings?: QueueSettings;
  /** Stop when the queue has nothing for this worker (scripts, tests). */
  exitWhenIdle?: boolean;
  /** Stop after this many jobs. */
  maxJobs?: number;
  /** Shutdown: stop claiming, hand the running job back to the queue, return. */
  signal?: AbortSignal;
  /**
   * After a shutdown, how long the running stage may take to reach a safe point (default 20 s,
   * GRAFT_WORKER_GRACE_S). Past it the job is handed back anyway and runWorker returns: the
   * stage is resumable, so whatever it was doing is simply done again by the next worker.
   */
  graceMs?: number;
  echo?: Echo;
  /** Echo plain progress lines of the running job (counts, ETA; at least every 10 s) too. */
  progress?: boolean;
}

export interface WorkerReport {
  workerId: string;
  jobs: { id: number; stage: string; outcome: JobOutcome }[];
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Resolves graceMs after the signal aborts (never, if it does not); `cancel` drops the timer. */
function graceExpired(signal: AbortSignal | undefined, graceMs: number): { expired: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let start = () => {};
  const expired = new Promise<void>((resolve) => {
    start = () => (timer = setTimeout(resolve, graceMs));
    if (signal?.aborted) start();
    else signal?.addEventListener("abort", start, { once: true });
  });
  return {
    expired,
    cancel: () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", start);
    },
  };
}

/**
 * Re-queues stale jobs, then claims the next one. "busy": the SQLite store stayed locked past the
 * queue's retries (another process holding a long write transaction, e.g. a 64k build storing
 * its edges) — an idle worker waits for its next poll instead of exiting.
 */
async function nextJob(db: Db, workerId: string, stages: string[], settings: QueueSettings, echo: Echo): Promise<JobRow | null | "busy"> {
  try {
    const reclaimed = await reclaimStaleJobs(db, settings);
    for (const id of reclaimed.requeued) echo(`job ${id}: its worker is gone; re-queued`, "warn");
    for (const id of reclaimed.failed) echo(`job ${id}: its worker died too often; failed`, "error");
    return await claimJob(db, workerId, { stages });
  } catch (err) {
    if (!isBusy(err, dbProvider(db))) throw err;
    echo(`the store is busy (another process is writing); trying again`, "warn");
    return "busy";
  }
}

export async function runWorker(db: Db, options: WorkerOptions = {}): Promise<WorkerReport> {
  const workerId = options.workerId ?? newWorkerId();
  const settings = options.settings ?? queueSettings();
  const echo = options.echo ?? (() => {});
  const known = new Set(listStages().map((s) => s.name));
  const stages = options.stages?.length ? [...options.stages] : [...known];
  const missing = stages.filter((s) => !known.has(s));
  if (missing.length) throw new Error(`this worker has no handler for stage(s) ${missing.join(", ")}; registered: ${[...known].sort().join(", ")}`);
  const report: WorkerReport = { workerId, jobs: [] };
  const graceMs = options.graceMs ?? config().GRAFT_WORKER_GRACE_S * 1000;
  echo(`worker ${workerId} taking stages ${stages.join(", ")} (lease ${settings.leaseMs / 1000} s)`, "info");

  while (!options.signal?.aborted) {
    const job = await nextJob(db, workerId, stages, settings, echo);
    if (job === "busy") {
      await sleep(settings.pollMs, options.signal);
      continue;
    }
    if (!job) {
      if (options.exitWhenIdle) break;
      await sleep(settings.pollMs, options.signal);
      continue;
    }
    echo(`job ${job.id} (${job.stage}) claimed${job.attempts > 1 ? ` (attempt ${job.attempts})` : ""}`, "info");
    const abandon = new AbortController();
    const lines = options.progress ? new ProgressLines(`job ${job.id}`, (line) => echo(line, "info")) : null;
    const running = runClaimedJob(db, job, workerId, {
      settings,
      shutdown: options.signal,
      abandon: abandon.signal,
      echo: (line, level) => echo(`job ${job.id}: ${line}`, level),
      // The stage's message ends with its counts, which the progress line prints itself.
      onProgress: lines ? (done, total, message) => lines.update(done, total, message.replace(/\s*[\d,]+\/[\d,]+$/, "")) : undefined,
    });
    const grace = graceExpired(options.signal, graceMs);
    const run = await Promise.race([running, grace.expired.then(() => null)]);
    grace.cancel();
    lines?.done();
    if (run === null) {
      abandon.abort();
      echo(`job ${job.id}: the stage did not stop within ${graceMs / 1000} s of shutdown; handing it back to the queue`, "warn");
      await releaseJob(db, job.id, workerId, "re-queued: its worker shut down");
      report.jobs.push({ id: job.id, stage: job.stage, outcome: "released" });
      break;
    }
    report.jobs.push({ id: job.id, stage: job.stage, outcome: run.outcome });
    echo(`job ${job.id} ${run.outcome}${run.error ? `: ${run.error}` : ""}`, run.outcome === "failed" ? "error" : "info");
    if (options.maxJobs !== undefined && report.jobs.length >= options.maxJobs) break;
  }
  return report;
}
