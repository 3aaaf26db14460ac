/**
 * Shapes of the job queue, shared by the queue, the runner, the CLI, the worker and the admin
 * API. Client-safe: constants and types only (the admin page imports it).
 */

/** Lifecycle: queued → running → succeeded | failed | cancelled; a running job whose worker
 * died (lease expired) or shut down goes back to queued and resumes where its stage left off. */
export const JOB_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Statuses a job never leaves on its own. */
export const FINISHED_STATUSES: readonly JobStatus[] = ["succeeded", "failed", "cancelled"];

export const LOG_LEVELS = ["info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A job as the CLI and the admin API show it (dates as ISO strings, JSON fields parsed). */
export interface JobView {
  id: number;
  stage: string;
  status: JobStatus;
  corpus: string | null;
  buildId: number | null;
  params: Record<string, unknown>;
  /** 0..1 over the whole stage. */
  progress: number;
  done: number;
  total: number | null;
  message: string;
  error: string | null;
  result: unknown;
  attempts: number;
  workerId: string | null;
  heartbeat: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface JobLogView {
  id: number;
  at: string;
  level: LogLevel;
  message: string;
}

export interface JobDetail extends JobView {
  logs: JobLogView[];
  /** Whether the build this job wrote is the one being served now (the newest complete one). */
  serving: boolean | null;
}
