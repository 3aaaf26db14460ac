import type { Db } from "@/lib/db/client";
import { EtaTracker, formatDuration, hasEta, phaseOf } from "@/lib/progress";
import { redactSecrets } from "@/lib/security/redact";
import {
  appendJobLogs,
  claimJob,
  enqueueJob,
  failJob,
  heartbeatJob,
  type JobRow,
  type LogEntry,
  newWorkerId,
  type QueueSettings,
  queueSettings,
  releaseJob,
  reportProgress,
  succeedJob,
} from "./queue";
import { failpoint } from "./failpoints";
import { getStage, type StageContext } from "./registry";
import type { LogLevel } from "./types";

// Runs one claimed job: validates its params, calls the stage's handler with a context whose
// progress and log calls are batched into the store, renews the lease on a timer, and records
// the outcome. The worker loop (worker.ts) and `graft jobs run` both come through here.

export type JobOutcome =
  /** The handler returned and the result is recorded. */
  | "succeeded"
  /** The handler threw (or its params are invalid): recorded as failed. */
  | "failed"
  /** Stopped for a worker shutdown and handed back to the queue: the next worker resumes it. */
  | "released"
  /** Cancelled by an operator while running. */
  | "cancelled"
  /** The lease expired and another worker took the job over: nothing of this run is recorded. */
  | "lost";

export interface RunOptions {
  settings?: QueueSettings;
  /** Aborts the job for a worker shutdown: it is released back to the queue. */
  shutdown?: AbortSignal;
  /** Echo of log lines (the worker prints them; tests collect them). */
  echo?: (line: string, level: LogLevel) => void;
  /** Progress callback besides the store (the CLI's progress bar). */
  onProgress?: (done: number, total: number | null, message: string, fraction: number) => void;
  /** Least interval between progress writes to the store (default 500 ms). */
  flushMs?: number;
  /** The caller no longer waits for this run (its stage is stuck): stop renewing the lease. */
  abandon?: AbortSignal;
}

export interface RunReport {
  outcome: JobOutcome;
  result?: unknown;
  error?: string;
}

type AbortReason = "shutdown" | "cancelled" | "lost";

export async function runClaimedJob(db: Db, job: JobRow, workerId: string, options: RunOptions = {}): Promise<RunReport> {
  const settings = options.settings ?? queueSettings();
  const flushMs = options.flushMs ?? 500;
  const echo = options.echo ?? (() => {});
  const controller = new AbortController();
  let abortReason: AbortReason | null = null;
  const abort = (why: AbortReason) => {
    if (abortReason) return;
    abortReason = why;
    controller.abort(
      new Error(why === "shutdown" ? "the worker is shutting down" : why === "cancelled" ? "the job was cancelled" : "the job's lease was lost"),
    );
  };
  const onShutdown = () => abort("shutdown");
  if (options.shutdown?.aborted) onShutdown();
  options.shutdown?.addEventListener("abort", onShutdown, { once: true });

  // Log lines and progress are buffered and written in the background (never blocking the
  // stage); `flush` drains both.
  const pendingLogs: LogEntry[] = [];
  let latest: { done: number; total: number | null; message: string; fraction: number } | null = null;
  let lastProgressWrite = 0;
  let writing: Promise<void> = Promise.resolve();
  const ownershipLost = async () => {
    const now = await db.job.findUnique({ where: { id: job.id }, select: { status: true } });
    abort(now?.status === "cancelled" ? "cancelled" : "lost");
  };
  const writeOnce = async () => {
    const logs = pendingLogs.splice(0);
    if (logs.length) await appendJobLogs(db, job.id, logs);
    if (latest) {
      const p = latest;
      latest = null;
      lastProgressWrite = Date.now();
      if (!(await reportProgress(db, job.id, workerId, { progress: p.fraction, done: p.done, total: p.total, message: p.message }))) await ownershipLost();
    }
  };
  const schedule = () => {
    writing = writing.then(writeOnce).catch((err) => echo(`could not record progress: ${(err as Error).message}`, "warn"));
    return writing;
  };
  const flush = async () => {
    await writing;
    await schedule();
  };

  const log = (message: string, level: LogLevel = "info") => {
    const clean = redactSecrets(message);
    pendingLogs.push({ level, message: clean, at: new Date() });
    echo(clean, level);
    if (pendingLogs.length >= 50) void schedule();
  };
  // The stored message carries the phase's ETA, so the jobs page shows what the CLI prints.
  const eta = new EtaTracker();
  const progress = (done: number, total: number | null, message = "", fraction?: number) => {
    const f = fraction ?? (total ? done / total : 0);
    const left = eta.observe(phaseOf(message), done, total);
    latest = { done, total, message: left !== null && !hasEta(message) ? `${message} · ETA ${formatDuration(left)}` : message, fraction: f };
    options.onProgress?.(done, total, message, f);
    if (Date.now() - lastProgressWrite >= flushMs) void schedule();
  };

  const beat = setInterval(() => {
    void (async () => {
      try {
        if (!(await heartbeatJob(db, job.id, workerId))) await ownershipLost();
      } catch (err) {
        // A busy store is not a lost lease: the next beat tries again, well inside the lease.
        echo(`heartbeat failed (will retry): ${(err as Error).message}`, "warn");
      }
    })();
  }, settings.heartbeatMs);
  const drain = setInterval(() => void schedule(), Math.max(flushMs, 250));
  drain.unref();
  // The heartbeat keeps the process alive while the job runs; a caller that gives up on a stuck
  // stage (worker shutdown past its grace period) stops it through `abandon`.
  const stopTimers = () => {
    clearInterval(beat);
    clearInterval(drain);
  };
  options.abandon?.addEventListener("abort", stopTimers, { once: true });

  const finish = async (report: RunReport): Promise<RunReport> => {
    stopTimers();
    options.abandon?.removeEventListener("abort", stopTimers);
    options.shutdown?.removeEventListener("abort", onShutdown);
    await flush();
    return report;
  };

  let stage;
  let params: unknown;
  try {
    stage = getStage(job.stage);
    params = stage.params.parse(JSON.parse(job.params));
  } catch (err) {
    const message = `cannot run job ${job.id}: ${err instanceof Error ? err.message : String(err)}`;
    log(message, "error");
    await flush();
    await failJob(db, job.id, workerId, message);
    return finish({ outcome: "failed", error: message });
  }

  if (abortReason === "shutdown") {
    // Shut down between the claim and the start: hand the job straight back.
    await releaseJob(db, job.id, workerId, "re-queued: its worker shut down");
    return finish({ outcome: "released" });
  }
  log(
    `${job.attempts > 1 ? `attempt ${job.attempts}: resuming` : "starting"} stage ${job.stage} on worker ${workerId}${job.buildId !== null ? ` (build ${job.buildId})` : ""}`,
  );
  const ctx: StageContext<unknown> = { db, job, params, progress, log, flush, signal: controller.signal };
  try {
    const result = await stage.handler(ctx);
    if (abortReason === "cancelled" || abortReason === "lost") return finish({ outcome: abortReason });
    // The stage's work is durable but the job is not yet marked done: a crash here must not redo or duplicate anything.
    await failpoint(`job:${job.stage}:done`, (line) => {
      log(line, "warn");
      return flush();
    });
    await flush();
    if (!(await succeedJob(db, job.id, workerId, result))) {
      await ownershipLost();
      return finish({ outcome: abortReason === "cancelled" ? "cancelled" : "lost" });
    }
    echo(`job ${job.id} succeeded`, "info");
    return finish({ outcome: "succeeded", result });
  } catch (err) {
    const message = redactSecrets(err instanceof Error ? err.message : String(err));
    if (abortReason === "shutdown") {
      log(`stopped for worker shutdown: ${message}; handed back to the queue`, "warn");
      await flush();
      await releaseJob(db, job.id, workerId, "re-queued: its worker shut down");
      return finish({ outcome: "released", error: message });
    }
    if (abortReason) {
      log(`stopped: ${message}`, "warn");
      return finish({ outcome: abortReason, error: message });
    }
    log(`failed: ${message}`, "error");
    if (err instanceof Error && err.stack) log(err.stack.split("\n").slice(1, 8).join("\n"), "error");
    await flush();
    await failJob(db, job.id, workerId, message);
    return finish({ outcome: "failed", error: message });
  }
}

// ── enqueue with validation, and inline runs ────────────────────────────────────────────────

export interface EnqueueStageOptions {
  /** Return the queued or running job with the same stage and params instead of adding another. */
  dedupe?: boolean;
}

/** Canonical JSON (sorted keys), so equal params compare equal as text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/**
 * Validates params with the stage's schema (a ZodError names the bad field) and queues a job.
 * The corpus named in the params must exist unless the stage creates it (import).
 */
export async function enqueueStage(
  db: Db,
  stageName: string,
  rawParams: unknown,
  options: EnqueueStageOptions = {},
): Promise<{ job: JobRow; created: boolean }> {
  const stage = getStage(stageName);
  const params = stage.params.parse(rawParams ?? {}) as Record<string, unknown>;
  const corpusName = stage.corpusOf(params);
  const corpus = corpusName ? await db.corpus.findUnique({ where: { name: corpusName }, select: { id: true } }) : null;
  const text = canonical(params);
  if (options.dedupe) {
    const same = await db.job.findFirst({ where: { stage: stageName, status: { in: ["queued", "running"] }, params: text }, orderBy: { id: "desc" } });
    if (same) return { job: same, created: false };
  }
  const job = await enqueueJob(db, { stage: stageName, corpusId: corpus?.id ?? null, params: JSON.parse(text) as Record<string, unknown> });
  return { job, created: true };
}

export class JobNotRunnableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JobNotRunnableError";
  }
}

/** Runs one queued job in this process (`graft jobs run <id>`), as a worker would. */
export async function runJobInline(db: Db, jobId: number, options: RunOptions = {}): Promise<RunReport & { job: JobRow }> {
  const workerId = newWorkerId();
  const job = await claimJob(db, workerId, { jobId });
  if (!job) {
    const row = await db.job.findUnique({ where: { id: jobId }, select: { status: true } });
    throw new JobNotRunnableError(row ? `job ${jobId} is ${row.status}, not queued` : `job ${jobId} does not exist`);
  }
  const report = await runClaimedJob(db, job, workerId, options);
  return { ...report, job: await db.job.findUniqueOrThrow({ where: { id: jobId } }) };
}

/** Queues a stage and runs it here (the CLI's `graft build`): still a recorded, resumable job. */
export async function runStageInline(db: Db, stageName: string, rawParams: unknown, options: RunOptions = {}): Promise<RunReport & { job: JobRow }> {
  const { job } = await enqueueStage(db, stageName, rawParams);
  return runJobInline(db, job.id, options);
}
