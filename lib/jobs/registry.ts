import { z } from "zod";
import { CodedError } from "@/lib/errors";
import type { Db } from "@/lib/db";
import type { JobRow } from "./queue";
import type { LogLevel } from "./types";

// The stage registry: each pipeline stage registers a handler under its name, and the worker,
// the CLI (`graft jobs run`) and the admin API run whatever is registered. A stage plugs in with
// one registerStage call in its own module plus one import line in lib/jobs/stages/index.ts.
//
// Handlers must be idempotent and resumable: a worker can die at any instruction, and the job
// is then run again from the start with the same params (and job.buildId set if the first run
// got that far). Write artefacts atomically (temp file + rename), replace rows rather than add
// them (delete + insert in one transaction, or upserts), and record completion last.

export interface StageContext<P = Record<string, unknown>> {
  db: Db;
  /** The job row as claimed (attempts counts this run; buildId is set when resuming a build). */
  job: JobRow;
  /** The job's params, validated by the stage's schema. */
  params: P;
  /** Progress over the whole stage: done of total (total null when unknown); message says what is going on. */
  progress(done: number, total: number | null, message?: string, fraction?: number): void;
  /** A line in the job's log (shown in the admin area and `graft jobs show`). */
  log(message: string, level?: LogLevel): void;
  /** Resolves once the log lines and progress reported so far are in the store. */
  flush(): Promise<void>;
  /** Aborted when the worker shuts down, the job is cancelled or its lease is lost: stop at the next safe point. */
  signal: AbortSignal;
}

export type StageHandler<P = Record<string, unknown>> = (ctx: StageContext<P>) => Promise<unknown>;

export interface StageOptions<P> {
  /** Validates params at enqueue time (clear errors for the CLI and the admin API) and again before running. */
  params?: z.ZodType<P>;
  description?: string;
  /** Corpus the job works on, from its params (for listing and the admin page). */
  corpusOf?: (params: P) => string | undefined;
}

export interface StageDefinition<P = Record<string, unknown>> {
  name: string;
  handler: StageHandler<P>;
  params: z.ZodType<P>;
  description: string;
  corpusOf: (params: P) => string | undefined;
}

const anyParams = z.record(z.string(), z.unknown()) as unknown as z.ZodType<Record<string, unknown>>;

// On globalThis: Next's dev server and test runners may evaluate this module more than once.
const holder = globalThis as unknown as { graftStages?: Map<string, StageDefinition<unknown>> };
const stages: Map<string, StageDefinition<unknown>> = (holder.graftStages ??= new Map());

export const STAGE_NAME = /^[a-z][a-z0-9-]{0,39}$/;

export function registerStage<P = Record<string, unknown>>(name: string, handler: StageHandler<P>, options: StageOptions<P> = {}): void {
  if (!STAGE_NAME.test(name)) throw new Error(`stage name "${name}" must be lowercase letters, digits and dashes`);
  // Re-registering replaces: a module evaluated twice (dev server reloads) registers again.
  stages.set(name, {
    name,
    handler: handler as StageHandler<unknown>,
    params: (options.params ?? anyParams) as z.ZodType<unknown>,
    description: options.description ?? "",
    corpusOf: (options.corpusOf ?? ((p: P) => (p as { corpus?: unknown }).corpus as string | undefined)) as (p: unknown) => string | undefined,
  });
}

export class UnknownStageError extends CodedError {
  constructor(name: string) {
    super("invalid_request", `unknown stage "${name}"; registered stages: ${[...stages.keys()].sort().join(", ") || "(none)"}`);
    this.name = "UnknownStageError";
  }
}

export function getStage(name: string): StageDefinition<unknown> {
  const s = stages.get(name);
  if (!s) throw new UnknownStageError(name);
  return s;
}

export function hasStage(name: string): boolean {
  return stages.has(name);
}

export function listStages(): { name: string; description: string }[] {
  return [...stages.values()].map((s) => ({ name: s.name, description: s.description })).sort((a, b) => a.name.localeCompare(b.name));
}

/** Test helper: forget a stage registered by a test. */
export function unregisterStage(name: string): void {
  stages.delete(name);
}
