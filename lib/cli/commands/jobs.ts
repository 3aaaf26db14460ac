import type { Command } from "commander";
import { z } from "zod";
import { corpusName } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import {
  cancelJob,
  getJobDetail,
  JobStateError,
  listJobs,
  retryJob,
  toJobView,
  listStages,
  UnknownStageError,
  enqueueStage,
  JobNotRunnableError,
  runJobInline,
  type RunReport,
  JOB_STATUSES,
  type JobView,
} from "@/lib/jobs";
import "@/lib/jobs/stages";
import { emit, parseOptions, table, UsageError } from "../output";
import { ProgressBar } from "../progress";

// `graft jobs …`: the job queue from the terminal. `run` executes a job in this process, as a
// worker would (recorded, resumable); `npm run worker` runs them in the background.

const jobId = z.coerce.number({ error: "job id must be a number" }).int().positive("job id must be a positive integer");

/** `--param k=20 --param embedder=use-lite`: values are JSON when they parse as JSON (numbers, booleans), else strings. */
function collectParam(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function paramsFrom(opts: { param?: string[]; params?: string; corpus?: string }): Record<string, unknown> {
  let base: Record<string, unknown> = {};
  if (opts.params) {
    try {
      const parsed: unknown = JSON.parse(opts.params);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
      base = parsed as Record<string, unknown>;
    } catch (err) {
      throw new UsageError(`--params must be a JSON object: ${(err as Error).message}`);
    }
  }
  for (const kv of opts.param ?? []) {
    const at = kv.indexOf("=");
    if (at <= 0) throw new UsageError(`--param "${kv}": expected key=value`);
    const key = kv.slice(0, at);
    const raw = kv.slice(at + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a plain string
    }
    base[key] = value;
  }
  if (opts.corpus !== undefined) base.corpus = opts.corpus;
  return base;
}

/** Stage and params errors are the user's: exit code 2 with the field that is wrong. */
async function asUsage<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof z.ZodError)
      throw new UsageError(`invalid params:\n  ${err.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("\n  ")}`);
    if (err instanceof UnknownStageError || err instanceof JobStateError || err instanceof JobNotRunnableError) throw new UsageError(err.message);
    throw err;
  }
}

function age(iso: string | null): string {
  if (!iso) return "";
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 120 ? `${s}s ago` : s < 7200 ? `${Math.round(s / 60)}m ago` : `${Math.round(s / 3600)}h ago`;
}

function jobRow(j: JobView): (string | number)[] {
  return [j.id, j.stage, j.status, j.corpus ?? "", j.buildId ?? "", `${Math.round(j.progress * 100)}%`, j.message.slice(0, 50), age(j.createdAt)];
}

function printRun(opts: { json?: boolean }, report: RunReport & { job: Parameters<typeof toJobView>[0] }): void {
  const view = toJobView(report.job);
  emit(opts, { outcome: report.outcome, job: view }, () =>
    [
      `job ${view.id} (${view.stage}) ${report.outcome}${view.buildId !== null ? ` · build ${view.buildId}` : ""}`,
      report.error ? `error: ${report.error}` : "",
      view.result ? JSON.stringify(view.result, null, 2) : "",
    ]
      .filter(Boolean)
      .join("\n"),
  );
  if (report.outcome !== "succeeded") process.exitCode = 1;
}

export function registerJobs(program: Command): void {
  const jobs = program.command("jobs").description("the pipeline job queue: list, show, enqueue, run, cancel, retry");
  registerList(jobs);
  registerShow(jobs);
  registerEnqueue(jobs);
  registerRun(jobs);
  registerCancel(jobs);
  registerRetry(jobs);
  registerStages(jobs);
}

/** `graft jobs list` */
function registerList(jobs: Command): void {
  jobs
    .command("list")
    .description("jobs, newest first")
    .option("--status <status>", `only this status: ${JOB_STATUSES.join(", ")}`)
    .option("--stage <stage>", "only this stage")
    .option("--corpus <name>", "only jobs of this corpus")
    .option("--limit <n>", "at most n jobs", "20")
    .option("--json", "machine-readable output")
    .action(async (raw: unknown) => {
      const opts = parseOptions(
        z.object({
          status: z.enum(JOB_STATUSES, { error: `status must be one of: ${JOB_STATUSES.join(", ")}` }).optional(),
          stage: z.string().max(40).optional(),
          corpus: corpusName.optional(),
          limit: z.coerce.number().int().min(1).max(500).default(20),
          json: z.boolean().default(false),
        }),
        raw,
      );
      const list = await listJobs(getDb(), opts);
      emit(opts, list, () => (list.length ? table(["id", "stage", "status", "corpus", "build", "done", "message", "queued"], list.map(jobRow)) : "no jobs"));
    });
}

/** `graft jobs show <id>` */
function registerShow(jobs: Command): void {
  jobs
    .command("show")
    .description("a job with its parameters, result, error and log")
    .argument("<id>", "job id")
    .option("--logs <n>", "the last n log lines", "50")
    .option("--json", "machine-readable output")
    .action(async (id: string, raw: unknown) => {
      const opts = parseOptions(z.object({ logs: z.coerce.number().int().min(0).max(1000).default(50), json: z.boolean().default(false) }), raw);
      const n = parseOptions(z.object({ id: jobId }), { id }).id;
      const detail = await getJobDetail(getDb(), n, { logLimit: opts.logs });
      if (!detail) throw new UsageError(`job ${n} does not exist`);
      emit(opts, detail, () =>
        [
          `job ${detail.id} · ${detail.stage} · ${detail.status}${detail.corpus ? ` · corpus ${detail.corpus}` : ""}${detail.buildId !== null ? ` · build ${detail.buildId}${detail.serving ? " (served)" : ""}` : ""}`,
          `progress ${Math.round(detail.progress * 100)}% · ${detail.message} · attempts ${detail.attempts}${detail.workerId ? ` · worker ${detail.workerId}` : ""}`,
          `queued ${detail.createdAt}${detail.startedAt ? ` · started ${detail.startedAt}` : ""}${detail.finishedAt ? ` · finished ${detail.finishedAt}` : ""}`,
          `params ${JSON.stringify(detail.params)}`,
          detail.error ? `error: ${detail.error}` : "",
          detail.result ? `result ${JSON.stringify(detail.result)}` : "",
          detail.logs.length ? `\nlog:\n${detail.logs.map((l) => `  ${l.at} ${l.level.padEnd(5)} ${l.message}`).join("\n")}` : "",
        ]
          .filter(Boolean)
          .join("\n"),
      );
    });
}

/** `graft jobs enqueue <stage>` */
function registerEnqueue(jobs: Command): void {
  jobs
    .command("enqueue")
    .description("queue a stage for the workers (npm run worker)")
    .argument("[stage]", "stage name (graft jobs stages); or --stage")
    .option("--stage <stage>", "the stage, as with `jobs run --stage`")
    .option("--corpus <name>", "the corpus (sets params.corpus)")
    .option("--param <key=value>", "a stage parameter; repeatable (values parse as JSON when they can)", collectParam)
    .option("--params <json>", "all parameters as a JSON object")
    .option("--json", "machine-readable output")
    .action(async (positional: string | undefined, raw: { stage?: string; param?: string[]; params?: string; corpus?: string; json?: boolean }) => {
      if (positional !== undefined && raw.stage !== undefined && positional !== raw.stage)
        throw new UsageError(`two stages given: "${positional}" and --stage ${raw.stage}`);
      const stage = positional ?? raw.stage;
      if (stage === undefined) throw new UsageError("give the stage to queue: graft jobs enqueue <stage> (or --stage <stage>); graft jobs stages lists them");
      const { job, created } = await asUsage(() => enqueueStage(getDb(), stage, paramsFrom(raw)));
      emit(raw, { job: toJobView(job), created }, () => `queued job ${job.id} (${stage}); run it with \`npm run worker\` or \`graft jobs run ${job.id}\``);
    });
}

/** `graft jobs run [id]` */
function registerRun(jobs: Command): void {
  jobs
    .command("run")
    .description("run a queued job in this process (recorded and resumable, as on a worker); with --stage, queue one first")
    .argument("[id]", "a queued job's id")
    .option("--stage <stage>", "queue this stage and run it now")
    .option("--corpus <name>", "with --stage: the corpus")
    .option("--param <key=value>", "with --stage: a stage parameter; repeatable", collectParam)
    .option("--params <json>", "with --stage: all parameters as a JSON object")
    .option("--json", "machine-readable output")
    .action(async (id: string | undefined, raw: { stage?: string; param?: string[]; params?: string; corpus?: string; json?: boolean }) => {
      if ((id === undefined) === (raw.stage === undefined)) throw new UsageError("give a job id or --stage <stage>, not both");
      const db = getDb();
      const n =
        id !== undefined
          ? parseOptions(z.object({ id: jobId }), { id }).id
          : (await asUsage(() => enqueueStage(db, raw.stage as string, paramsFrom(raw)))).job.id;
      const bar = new ProgressBar(`job ${n}`);
      const shutdown = new AbortController();
      // Ctrl-C hands the job back to the queue (a worker or a later `graft jobs run` resumes it).
      const onSigint = () => shutdown.abort();
      process.once("SIGINT", onSigint);
      try {
        const report = await asUsage(() =>
          runJobInline(db, n, {
            shutdown: shutdown.signal,
            // The stage's message ends with its counts, which the progress line prints itself.
            onProgress: (done, total, message) => bar.update(done, total ?? 0, message.replace(/\s*[\d,]+\/[\d,]+$/, "")),
            echo: (line, level) => {
              if (level !== "info" && !raw.json) process.stderr.write(`\r\x1b[2K${level}: ${line}\n`);
            },
          }),
        );
        bar.done();
        printRun(raw, report);
      } finally {
        process.off("SIGINT", onSigint);
      }
    });
}

/** `graft jobs cancel <id>` */
function registerCancel(jobs: Command): void {
  jobs
    .command("cancel")
    .description("cancel a queued or running job (its build is never served)")
    .argument("<id>", "job id")
    .option("--json", "machine-readable output")
    .action(async (id: string, raw: { json?: boolean }) => {
      const n = parseOptions(z.object({ id: jobId }), { id }).id;
      const job = await asUsage(() => cancelJob(getDb(), n));
      emit(raw, toJobView(job), () => `job ${n} cancelled`);
    });
}

/** `graft jobs retry <id>` */
function registerRetry(jobs: Command): void {
  jobs
    .command("retry")
    .description("queue a failed or cancelled job again (it resumes its build)")
    .argument("<id>", "job id")
    .option("--json", "machine-readable output")
    .action(async (id: string, raw: { json?: boolean }) => {
      const n = parseOptions(z.object({ id: jobId }), { id }).id;
      const job = await asUsage(() => retryJob(getDb(), n));
      emit(raw, toJobView(job), () => `job ${n} queued again`);
    });
}

/** `graft jobs stages` */
function registerStages(jobs: Command): void {
  jobs
    .command("stages")
    .description("the stages workers can run")
    .option("--json", "machine-readable output")
    .action((raw: { json?: boolean }) => {
      const list = listStages();
      emit(raw, list, () =>
        table(
          ["stage", "what it does"],
          list.map((s) => [s.name, s.description]),
        ),
      );
    });
}
