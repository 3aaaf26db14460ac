import os from "node:os";
import { configFrom, type Env } from "@/lib/config";
import { CodedError } from "@/lib/errors";
import { type Db, dbProvider } from "@/lib/db";
import type { Job } from "@/lib/generated/sqlite/client";
import { redactSecrets } from "@/lib/security";
import type { JobDetail, JobLogView, JobStatus, JobView, LogLevel } from "./types";

// A durable job queue on the store's own Job table, the same code on SQLite and PostgreSQL.
//
// Claiming is one atomic UPDATE … RETURNING: on PostgreSQL the candidate row is picked with
// FOR UPDATE SKIP LOCKED (concurrent workers never wait on, or both take, the same job); on
// SQLite the statement runs under the database's single write lock. Every later write by a
// worker is a compare-and-set on (id, workerId, status = running), so a worker that lost its
// job (lease expired and reclaimed, or cancelled) can never overwrite the new owner's state.
//
// Leases: a running job carries its worker's heartbeat. A job whose heartbeat is older than the
// lease goes back to the queue (or fails after too many attempts); a job whose worker ran on
// this host and whose process is gone is reclaimed at once, without waiting for the lease.

export type JobRow = Job;

export interface QueueSettings {
  /** A running job whose heartbeat is older than this is presumed dead (GRAFT_JOB_LEASE_S). */
  leaseMs: number;
  /** How often a worker renews its lease (a quarter of the lease, at most 15 s). */
  heartbeatMs: number;
  /** Claims after which a job that keeps losing its worker is failed instead of re-queued (GRAFT_JOB_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** Idle worker's poll interval (GRAFT_WORKER_POLL_MS). */
  pollMs: number;
}

/** The queue's settings from this process's configuration (lib/config.ts), or from `env` (tests). */
export function queueSettings(env?: Env): QueueSettings {
  const c = configFrom(env);
  const leaseMs = c.GRAFT_JOB_LEASE_S * 1000;
  return {
    leaseMs,
    heartbeatMs: Math.min(15_000, Math.max(250, Math.floor(leaseMs / 4))),
    maxAttempts: c.GRAFT_JOB_MAX_ATTEMPTS,
    pollMs: c.GRAFT_WORKER_POLL_MS,
  };
}

/** `host:pid:tag`: the host and pid let a worker on the same host see that the owner is gone. */
export function newWorkerId(): string {
  return `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 6)}`;
}

export function parseWorkerId(id: string): { host: string; pid: number } | null {
  const m = /^(.*):(\d+):[a-z0-9]+$/.exec(id);
  return m ? { host: m[1], pid: Number(m[2]) } : null;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A worker of this host whose process no longer exists (a pid in use means "maybe alive": wait for the lease). */
export function isDeadLocalWorker(workerId: string | null, host = os.hostname(), alive = processAlive): boolean {
  const w = workerId ? parseWorkerId(workerId) : null;
  return w !== null && w.host === host && w.pid !== process.pid && !alive(w.pid);
}

// ── enqueue ───────────────────────────────────────────────────────────────────────────────

export interface EnqueueInput {
  stage: string;
  /** Corpus id the job works on (for listing and the admin page). */
  corpusId?: number | null;
  params?: Record<string, unknown>;
}

export async function enqueueJob(db: Db, input: EnqueueInput): Promise<JobRow> {
  return db.job.create({
    data: { stage: input.stage, corpusId: input.corpusId ?? null, params: JSON.stringify(input.params ?? {}), message: "queued" },
  });
}

// ── claim ─────────────────────────────────────────────────────────────────────────────────

export interface ClaimOptions {
  /** Only these stages (a GPU worker may take just "train"). Empty or absent: any stage. */
  stages?: readonly string[];
  /** Only this job (running one job inline from the CLI). */
  jobId?: number;
}

/**
 * Whether `err` is SQLite's "busy" (another process held the write lock past the busy timeout).
 * Through Prisma's SQLite adapter SQLITE_BUSY surfaces as a SocketTimeout, "Operation has timed
 * out" (P1008); on PostgreSQL that message is a real network timeout, not a lock, so it counts
 * only on SQLite.
 */
export function isBusy(err: unknown, provider: "sqlite" | "postgresql"): boolean {
  const message = String((err as Error)?.message ?? err);
  if (/database is locked|SQLITE_BUSY/i.test(message)) return true;
  return provider === "sqlite" && (/Operation has timed out/i.test(message) || (err as { code?: unknown })?.code === "P1008");
}

/** SQLite answers "busy" when another process holds the write lock past the busy timeout: wait and retry. */
async function retryBusy<T>(db: Db, fn: () => Promise<T>, tries = 8): Promise<T> {
  const provider = dbProvider(db);
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (!isBusy(err, provider) || i >= tries) throw err;
      await new Promise((r) => setTimeout(r, 50 * 2 ** Math.min(i, 5) * (0.5 + Math.random())));
    }
  }
}

/** Atomically takes the oldest queued job (matching the options) for this worker; null when there is none. */
export async function claimJob(db: Db, workerId: string, options: ClaimOptions = {}): Promise<JobRow | null> {
  const provider = dbProvider(db);
  const args: unknown[] = [];
  const p = (v: unknown) => {
    args.push(v);
    return provider === "postgresql" ? `$${args.length}` : "?";
  };
  const now = new Date();
  const set = `"status" = 'running', "workerId" = ${p(workerId)}, "heartbeat" = ${p(now)}, "startedAt" = COALESCE("startedAt", ${p(now)}), "attempts" = "attempts" + 1, "message" = ${p("started")}, "error" = NULL`;
  let filter = `"status" = 'queued'`;
  if (options.stages?.length) filter += ` AND "stage" IN (${options.stages.map((s) => p(s)).join(", ")})`;
  if (options.jobId !== undefined) filter += ` AND "id" = ${p(options.jobId)}`;
  const sql =
    provider === "postgresql"
      ? `WITH next AS (SELECT "id" FROM "Job" WHERE ${filter} ORDER BY "id" LIMIT 1 FOR UPDATE SKIP LOCKED)
         UPDATE "Job" SET ${set} FROM next WHERE "Job"."id" = next."id" RETURNING "Job"."id" AS id`
      : `UPDATE "Job" SET ${set} WHERE "id" = (SELECT "id" FROM "Job" WHERE ${filter} ORDER BY "id" LIMIT 1) AND "status" = 'queued' RETURNING "id" AS id`;
  const rows = await retryBusy(db, () => db.$queryRawUnsafe<{ id: number | bigint }[]>(sql, ...args));
  if (rows.length === 0) return null;
  return db.job.findUnique({ where: { id: Number(rows[0].id) } });
}

// ── the owner's writes (compare-and-set on id + worker + running) ───────────────────────────

const owned = (jobId: number, workerId: string) => ({ id: jobId, workerId, status: "running" });

/** Renews the lease; false when the job is no longer this worker's (reclaimed or cancelled). */
export async function heartbeatJob(db: Db, jobId: number, workerId: string): Promise<boolean> {
  const r = await retryBusy(db, () => db.job.updateMany({ where: owned(jobId, workerId), data: { heartbeat: new Date() } }));
  return r.count === 1;
}

export interface ProgressUpdate {
  progress: number;
  done: number;
  total: number | null;
  message: string;
}

/** Progress also renews the lease. */
export async function reportProgress(db: Db, jobId: number, workerId: string, update: ProgressUpdate): Promise<boolean> {
  const progress = Math.max(0, Math.min(1, Number.isFinite(update.progress) ? update.progress : 0));
  const r = await retryBusy(db, () =>
    db.job.updateMany({
      where: owned(jobId, workerId),
      data: {
        progress,
        done: Math.round(update.done),
        total: update.total === null ? null : Math.round(update.total),
        message: update.message.slice(0, 500),
        heartbeat: new Date(),
      },
    }),
  );
  return r.count === 1;
}

export async function succeedJob(db: Db, jobId: number, workerId: string, result: unknown): Promise<boolean> {
  const r = await retryBusy(db, () =>
    db.job.updateMany({
      where: owned(jobId, workerId),
      data: { status: "succeeded", progress: 1, message: "done", result: JSON.stringify(result ?? null), finishedAt: new Date(), heartbeat: new Date() },
    }),
  );
  return r.count === 1;
}

export async function failJob(db: Db, jobId: number, workerId: string, error: string): Promise<boolean> {
  const r = await retryBusy(db, () =>
    db.job.updateMany({
      where: owned(jobId, workerId),
      data: { status: "failed", error: redactSecrets(error).slice(0, 4000), message: "failed", finishedAt: new Date() },
    }),
  );
  return r.count === 1;
}

/** Hands a running job back to the queue (worker shutdown); the claim it used is not counted against it. */
export async function releaseJob(db: Db, jobId: number, workerId: string, reason: string): Promise<boolean> {
  const r = await retryBusy(db, () =>
    db.job.updateMany({
      where: owned(jobId, workerId),
      data: { status: "queued", workerId: null, heartbeat: null, message: reason.slice(0, 500), attempts: { decrement: 1 } },
    }),
  );
  return r.count === 1;
}

// ── reclaiming dead workers' jobs ──────────────────────────────────────────────────────────

export interface ReclaimReport {
  requeued: number[];
  failed: number[];
}

/**
 * Running jobs whose worker is gone (heartbeat older than the lease, or a dead process on this
 * host) go back to the queue; those already claimed maxAttempts times fail instead, so a job
 * that kills its worker every time (out of memory, say) does not loop forever.
 */
export async function reclaimStaleJobs(db: Db, settings: Pick<QueueSettings, "leaseMs" | "maxAttempts">, now = new Date()): Promise<ReclaimReport> {
  const cutoff = new Date(now.getTime() - settings.leaseMs);
  const running = await db.job.findMany({ where: { status: "running" }, select: { id: true, workerId: true, heartbeat: true, attempts: true, buildId: true } });
  const report: ReclaimReport = { requeued: [], failed: [] };
  for (const j of running) {
    const expired = j.heartbeat === null || j.heartbeat < cutoff;
    const dead = isDeadLocalWorker(j.workerId);
    if (!expired && !dead) continue;
    const why = dead ? `worker ${j.workerId} is gone` : `worker ${j.workerId} stopped renewing its lease`;
    const where = { id: j.id, status: "running", workerId: j.workerId, heartbeat: j.heartbeat };
    if (j.attempts >= settings.maxAttempts) {
      const r = await retryBusy(db, () =>
        db.job.updateMany({
          where,
          data: { status: "failed", error: `${why} after ${j.attempts} attempts; not retrying`, message: "failed", finishedAt: now, workerId: null },
        }),
      );
      if (r.count === 1) {
        report.failed.push(j.id);
        await abandonBuild(db, j.buildId, "its job failed");
        await appendJobLogs(db, j.id, [{ level: "error", message: `${why} (attempt ${j.attempts} of ${settings.maxAttempts}): failed` }]);
      }
    } else {
      const r = await retryBusy(db, () =>
        db.job.updateMany({ where, data: { status: "queued", workerId: null, heartbeat: null, message: `re-queued: ${why}` } }),
      );
      if (r.count === 1) {
        report.requeued.push(j.id);
        await appendJobLogs(db, j.id, [{ level: "warn", message: `${why}: re-queued; the next worker resumes it` }]);
      }
    }
  }
  return report;
}

/** A build whose job will not finish it is marked failed (a retry of the job reopens it). */
async function abandonBuild(db: Db, buildId: number | null, why: string): Promise<void> {
  if (buildId === null) return;
  await db.build.updateMany({
    where: { id: buildId, status: { in: ["running", "pending"] } },
    data: { status: "failed", manifest: JSON.stringify({ error: `abandoned: ${why}` }) },
  });
}

// ── operator actions ───────────────────────────────────────────────────────────────────────

export class JobStateError extends CodedError {
  /** `missing`: no such job (not_found); otherwise its state forbids the action (conflict). */
  constructor(
    message: string,
    readonly missing = false,
  ) {
    super(missing ? "not_found" : "conflict", message);
    this.name = "JobStateError";
  }
}

/**
 * Cancels a queued or running job. A running job's worker sees the cancellation at its next
 * heartbeat and aborts the stage; the build it was writing is marked failed and never served.
 */
export async function cancelJob(db: Db, id: number): Promise<JobRow> {
  const job = await db.job.findUnique({ where: { id } });
  if (!job) throw new JobStateError(`job ${id} does not exist`, true);
  if (job.status !== "queued" && job.status !== "running") throw new JobStateError(`job ${id} is ${job.status}; only queued or running jobs can be cancelled`);
  const r = await db.job.updateMany({
    where: { id, status: job.status },
    data: { status: "cancelled", message: "cancelled", finishedAt: new Date() },
  });
  if (r.count === 0) return cancelJob(db, id); // it changed state meanwhile: decide again
  await abandonBuild(db, job.buildId, "its job was cancelled");
  await appendJobLogs(db, id, [{ level: "warn", message: `cancelled while ${job.status}` }]);
  return db.job.findUniqueOrThrow({ where: { id } });
}

/** Queues a failed or cancelled job again; it keeps its build, so the stage resumes into it. */
export async function retryJob(db: Db, id: number): Promise<JobRow> {
  const job = await db.job.findUnique({ where: { id } });
  if (!job) throw new JobStateError(`job ${id} does not exist`, true);
  if (job.status !== "failed" && job.status !== "cancelled")
    throw new JobStateError(`job ${id} is ${job.status}; only failed or cancelled jobs can be retried`);
  const r = await db.job.updateMany({
    where: { id, status: job.status },
    data: { status: "queued", error: null, message: "queued (retry)", finishedAt: null, workerId: null, heartbeat: null, attempts: 0 },
  });
  if (r.count === 0) throw new JobStateError(`job ${id} changed state meanwhile; look again`);
  await appendJobLogs(db, id, [{ level: "info", message: `retry requested (was ${job.status})` }]);
  return db.job.findUniqueOrThrow({ where: { id } });
}

// ── logs ──────────────────────────────────────────────────────────────────────────────────

export interface LogEntry {
  level: LogLevel;
  message: string;
  at?: Date;
}

/** Appends log lines; secrets (API keys, passwords in URLs, bearer tokens) are redacted first. */
export async function appendJobLogs(db: Db, jobId: number, entries: readonly LogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await retryBusy(db, () =>
    db.jobLog.createMany({ data: entries.map((e) => ({ jobId, level: e.level, message: redactSecrets(e.message).slice(0, 4000), at: e.at ?? new Date() })) }),
  );
}

// ── reading ───────────────────────────────────────────────────────────────────────────────

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function toJobView(job: JobRow & { corpus?: { name: string } | null }): JobView {
  return {
    id: job.id,
    stage: job.stage,
    status: job.status as JobStatus,
    corpus: job.corpus?.name ?? null,
    buildId: job.buildId,
    params: (parseJson(job.params) ?? {}) as Record<string, unknown>,
    progress: job.progress,
    done: job.done,
    total: job.total,
    message: job.message,
    error: job.error,
    result: parseJson(job.result),
    attempts: job.attempts,
    workerId: job.workerId,
    heartbeat: job.heartbeat?.toISOString() ?? null,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}

export interface ListJobsQuery {
  status?: JobStatus;
  stage?: string;
  corpus?: string;
  limit?: number;
}

/** Newest first. */
export async function listJobs(db: Db, query: ListJobsQuery = {}): Promise<JobView[]> {
  const rows = await db.job.findMany({
    where: {
      ...(query.status ? { status: query.status } : {}),
      ...(query.stage ? { stage: query.stage } : {}),
      ...(query.corpus ? { corpus: { name: query.corpus } } : {}),
    },
    include: { corpus: { select: { name: true } } },
    orderBy: { id: "desc" },
    take: Math.min(500, query.limit ?? 50),
  });
  return rows.map(toJobView);
}

export interface DetailOptions {
  /** Only log lines with a larger id (polling for new lines). */
  logsAfter?: number;
  /** At most this many lines: the newest, returned oldest first (default 200). */
  logLimit?: number;
}

export async function getJobDetail(db: Db, id: number, options: DetailOptions = {}): Promise<JobDetail | null> {
  const job = await db.job.findUnique({ where: { id }, include: { corpus: { select: { name: true } } } });
  if (!job) return null;
  const logs = await db.jobLog.findMany({
    where: { jobId: id, ...(options.logsAfter !== undefined ? { id: { gt: options.logsAfter } } : {}) },
    orderBy: { id: "desc" },
    take: Math.min(1000, options.logLimit ?? 200),
  });
  let serving: boolean | null = null;
  if (job.buildId !== null && job.corpusId !== null) {
    const build = await db.build.findUnique({ where: { id: job.buildId }, select: { status: true, artefacts: { select: { name: true } } } });
    if (build?.status === "complete") {
      // The newest complete build that has the same kind of artefact is the one served.
      const names = build.artefacts.map((a) => a.name);
      const newest = await db.build.findFirst({
        where: { corpusId: job.corpusId, status: "complete", artefacts: { some: { name: { in: names } } } },
        orderBy: { id: "desc" },
        select: { id: true },
      });
      serving = newest?.id === job.buildId;
    } else serving = false;
  }
  return {
    ...toJobView(job),
    logs: logs.reverse().map((l): JobLogView => ({ id: l.id, at: l.at.toISOString(), level: l.level as LogLevel, message: l.message })),
    serving,
  };
}
