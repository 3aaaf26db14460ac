import type { Db } from "@/lib/db";
import { EtaTracker, formatDuration, hasEta, phaseOf } from "@/lib/progress";
import { redactSecrets } from "@/lib/security";
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

/** Why a running job stops (a worker shutdown, a cancel, a lost lease): the first reason wins. */
class JobStop {
  readonly controller = new AbortController();
  private why: AbortReason | null = null;

  /** A method, not a field: the reason changes under the stage's awaits. */
  reason(): AbortReason | null {
    return this.why;
  }

  stop(why: AbortReason): void {
    if (this.why) return;
    this.why = why;
    this.controller.abort(
      new Error(why === "shutdown" ? "the worker is shutting down" : why === "cancelled" ? "the job was cancelled" : "the job's lease was lost"),
    );
  }
}

/**
 * A job's log lines and progress, buffered and written in the background (never blocking the
 * stage); `flush` drains both. Arrow fields: the stage calls log and progress unbound.
 */
class JobRecorder {
  private readonly pendingLogs: LogEntry[] = [];
  private latest: { done: number; total: number | null; message: string; fraction: number } | null = null;
  private lastProgressWrite = 0;
  private writing: Promise<void> = Promise.resolve();
  // The stored message carries the phase's ETA, so the jobs page shows what the CLI prints.
  private readonly eta = new EtaTracker();

  constructor(
    private readonly db: Db,
    private readonly job: JobRow,
    private readonly workerId: string,
    private readonly options: { flushMs: number; echo: NonNullable<RunOptions["echo"]>; onProgress: RunOptions["onProgress"] },
    /** Called when a write finds the job no longer this worker's. */
    private readonly ownershipLost: () => Promise<void>,
  ) {}

  log = (message: string, level: LogLevel = "info"): void => {
    const clean = redactSecrets(message);
    this.pendingLogs.push({ level, message: clean, at: new Date() });
    this.options.echo(clean, level);
    if (this.pendingLogs.length >= 50) void this.schedule();
  };

  progress = (done: number, total: number | null, message = "", fraction?: number): void => {
    const f = fraction ?? (total ? done / total : 0);
    const left = this.eta.observe(phaseOf(message), done, total);
    this.latest = { done, total, message: left !== null && !hasEta(message) ? `${message} · ETA ${formatDuration(left)}` : message, fraction: f };
    this.options.onProgress?.(done, total, message, f);
    if (Date.now() - this.lastProgressWrite >= this.options.flushMs) void this.schedule();
  };

  schedule = (): Promise<void> => {
    this.writing = this.writing.then(this.writeOnce).catch((err) => this.options.echo(`could not record progress: ${(err as Error).message}`, "warn"));
    return this.writing;
  };

  flush = async (): Promise<void> => {
    await this.writing;
    await this.schedule();
  };

  private writeOnce = async (): Promise<void> => {
    const logs = this.pendingLogs.splice(0);
    if (logs.length) await appendJobLogs(this.db, this.job.id, logs);
    if (this.latest) {
      const p = this.latest;
      this.latest = null;
      this.lastProgressWrite = Date.now();
      if (!(await reportProgress(this.db, this.job.id, this.workerId, { progress: p.fraction, done: p.done, total: p.total, message: p.message })))
        await this.ownershipLost();
    }
  };
}

/**
 * Renews the job's lease every heartbeatMs and drains the recorder's buffers on a timer;
 * returns the function that stops both.
 */
function startJobTimers(
  db: Db,
  job: JobRow,
  workerId: string,
  settings: QueueSettings,
  recorder: JobRecorder,
  ownershipLost: () => Promise<void>,
  { flushMs, echo }: { flushMs: number; echo: NonNullable<RunOptions["echo"]> },
): () => void {
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
  const drain = setInterval(() => void recorder.schedule(), Math.max(flushMs, 250));
  drain.unref();
  return () => {
    clearInterval(beat);
    clearInterval(drain);
  };
}

export async function runClaimedJob(db: Db, job: JobRow, workerId: string, options: RunOptions = {}): Promise<RunReport> {
  const settings = options.settings ?? queueSettings();
  const flushMs = options.flushMs ?? 500;
  const echo = options.echo ?? (() => {});
  const stop = new JobStop();
  const onShutdown = () => stop.stop("shutdown");
  if (options.shutdown?.aborted) onShutdown();
  options.shutdown?.addEventListener("abort", onShutdown, { once: true });

  const ownershipLost = async () => {
    const now = await db.job.findUnique({ where: { id: job.id }, select: { status: true } });
    stop.stop(now?.status === "cancelled" ? "cancelled" : "lost");
  };
  const recorder = new JobRecorder(db, job, workerId, { flushMs, echo, onProgress: options.onProgress }, ownershipLost);
  const { log, progress, flush } = recorder;

  // The heartbeat keeps the process alive while the job runs; a caller that gives up on a stuck
  // stage (worker shutdown past its grace period) stops it through `abandon`.
  const stopTimers = startJobTimers(db, job, workerId, settings, recorder, ownershipLost, { flushMs, echo });
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

  if (stop.reason() === "shutdown") {
    // Shut down between the claim and the start: hand the job straight back.
    await releaseJob(db, job.id, workerId, "re-queued: its worker shut down");
    return finish({ outcome: "released" });
  }
  log(
    `${job.attempts > 1 ? `attempt ${job.attempts}: resuming` : "starting"} stage ${job.stage} on worker ${workerId}${job.buildId !== null ? ` (build ${job.buildId})` : ""}`,
  );
  const ctx: StageContext<unknown> = { db, job, params, progress, log, flush, signal: stop.controller.signal };
  try {
    const result = await stage.handler(ctx);
    const stopped = stop.reason();
    if (stopped === "cancelled" || stopped === "lost") return finish({ outcome: stopped });
    // The stage's work is durable but the job is not yet marked done: a crash here must not redo or duplicate anything.
    await failpoint(`job:${job.stage}:done`, (line) => {
      log(line, "warn");
      return flush();
    });
    await flush();
    if (!(await succeedJob(db, job.id, workerId, result))) {
      await ownershipLost();
      return finish({ outcome: stop.reason() === "cancelled" ? "cancelled" : "lost" });
    }
    echo(`job ${job.id} succeeded`, "info");
    return finish({ outcome: "succeeded", result });
  } catch (err) {
    return finish(await recordStageError(db, job, workerId, err, stop.reason(), recorder));
  }
}

/** The outcome of a stage that threw: handed back for a shutdown, stopped for a cancel or lost lease, else failed. */
async function recordStageError(
  db: Db,
  job: JobRow,
  workerId: string,
  err: unknown,
  stopped: AbortReason | null,
  { log, flush }: JobRecorder,
): Promise<RunReport> {
  const message = redactSecrets(err instanceof Error ? err.message : String(err));
  if (stopped === "shutdown") {
    log(`stopped for worker shutdown: ${message}; handed back to the queue`, "warn");
    await flush();
    await releaseJob(db, job.id, workerId, "re-queued: its worker shut down");
    return { outcome: "released", error: message };
  }
  if (stopped) {
    log(`stopped: ${message}`, "warn");
    return { outcome: stopped, error: message };
  }
  log(`failed: ${message}`, "error");
  if (err instanceof Error && err.stack) log(err.stack.split("\n").slice(1, 8).join("\n"), "error");
  await flush();
  await failJob(db, job.id, workerId, message);
  return { outcome: "failed", error: message };
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
