/** Test helpers of the job queue: a real `npm run worker` process (tests only). */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import type { TestContext } from "node:test";
import { importCorpus } from "@/lib/corpus/import";
import type { CorpusInput } from "@/lib/corpus/read";
import type { PaperRecord } from "@/lib/corpus/types";
import type { Db } from "@/lib/db/client";
import { useTestStore } from "@/lib/db/testing";
import { fitLsa, saveLsaModel } from "@/lib/embed";
import { repoRoot } from "@/lib/paths";
import { failpointBanner } from "./failpoints";
import type { JobRow } from "./queue";
import { enqueueStage } from "./runner";

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts workers/pipeline.ts in its own process with `env` and `args` (e.g. --exit-when-idle). */
export function startWorker(env: NodeJS.ProcessEnv, args: string[] = []): WorkerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(repoRoot, "workers/pipeline.ts"), ...args], {
    cwd: repoRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/**
 * Starts `n` workers and resolves once each is polling the queue (it printed the line a worker
 * prints before its first claim), so a job queued afterwards is offered to all of them at once.
 */
export async function startReadyWorkers(env: NodeJS.ProcessEnv, n: number, timeoutMs = 120_000): Promise<WorkerProcess[]> {
  const workers = Array.from({ length: n }, () => startWorker(env));
  const started = Date.now();
  while (!workers.every((w) => / taking stages /.test(w.output()))) {
    if (workers.some((w) => w.child.exitCode !== null) || Date.now() - started > timeoutMs) {
      for (const w of workers) w.child.kill("SIGKILL");
      throw new Error(`a worker did not start:\n${workers.map((w) => w.output()).join("\n---\n")}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return workers;
}

/** A worker process's environment: this test's store and data root, fast polling, no inherited failpoint. */
export function workerEnv(databaseUrl: string, dataRoot: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, GRAFT_DATA_ROOT: dataRoot, GRAFT_WORKER_POLL_MS: "100", CI: "1" };
  delete env.GRAFT_FAILPOINT;
  return env;
}

/**
 * Waits until job `jobId` ends (the workers running it), then stops the workers with SIGTERM.
 * Throws with their output when it does not end within `timeoutMs`.
 */
export async function finishOnWorkers(
  db: Db,
  jobId: number,
  workers: readonly WorkerProcess[],
  timeoutMs = 180_000,
): Promise<{ row: JobRow; codes: (number | null)[]; output: string }> {
  const output = () => workers.map((w) => w.output()).join("\n---\n");
  const started = Date.now();
  let row = await db.job.findUniqueOrThrow({ where: { id: jobId } });
  while (row.status === "queued" || row.status === "running") {
    if (Date.now() - started > timeoutMs) throw new Error(`job ${jobId} did not finish:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
    row = await db.job.findUniqueOrThrow({ where: { id: jobId } });
  }
  for (const w of workers) w.child.kill("SIGTERM");
  const codes = await Promise.all(workers.map((w) => w.exited));
  return { row, codes, output: output() };
}

/** Starts a worker with failpoint `name` and SIGKILLs it once it has reached it (throws with its output if it never does). */
export async function killAtFailpoint(env: NodeJS.ProcessEnv, name: string, timeoutMs = 120_000): Promise<WorkerProcess> {
  const worker = startWorker({ ...env, GRAFT_FAILPOINT: name }, ["--exit-when-idle"]);
  const banner = failpointBanner(name);
  const started = Date.now();
  while (!worker.output().includes(banner)) {
    if (worker.child.exitCode !== null || Date.now() - started > timeoutMs) {
      worker.child.kill("SIGKILL");
      throw new Error(`no failpoint:\n${worker.output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  worker.child.kill("SIGKILL");
  await worker.exited;
  return worker;
}

/** The jobs of `stage` that build `buildId` queued (read from their params), oldest first. */
export async function buildJobsOf(db: Db, stage: string, buildId: number): Promise<JobRow[]> {
  return (await db.job.findMany({ where: { stage }, orderBy: { id: "asc" } })).filter((j) => JSON.parse(j.params).build === buildId);
}

/** A job's log messages, one a line. */
export async function jobLogText(db: Db, jobId: number): Promise<string> {
  return (await db.jobLog.findMany({ where: { jobId }, orderBy: { id: "asc" } })).map((l) => l.message).join("\n");
}

/**
 * A small LSA text encoder fitted on `texts` (the test corpus's own), saved in `folder`: its
 * embedder spec. What these tests prove does not depend on the embedder, and every process that
 * embeds (a worker's in-process probe, each embedding process) loads it in milliseconds, where
 * the default, USE-lite, costs each about a second of CPU.
 */
export function fitTestEncoder(folder: string, texts: readonly string[]): string {
  saveLsaModel(folder, fitLsa(texts, { dims: 16 }));
  return `lsa:${folder}`;
}

/** A corpus's texts to fit a test encoder on: each paper's title and abstract, and its facet items. */
export const corpusTexts = (input: CorpusInput): string[] =>
  input.papers.flatMap((p) => [`${p.title}\n${p.abstract}`, ...Object.values(p.facets ?? {}).flatMap((items) => items ?? [])]);

/** Words of the generated corpora of the sharded-build tests. */
export const SHARD_WORDS = {
  topic: [
    "machine translation",
    "dependency parsing",
    "sentiment analysis",
    "summarisation",
    "dialogue state tracking",
    "question answering",
    "entity linking",
    "speech recognition",
  ],
  method: [
    "a transformer encoder",
    "a CRF tagger",
    "a BiLSTM",
    "graph neural networks",
    "contrastive pretraining",
    "knowledge distillation",
    "beam search",
    "data augmentation",
  ],
  domain: ["news text", "tweets", "clinical notes", "legal documents", "product reviews", "scientific papers", "low-resource languages", "spoken dialogue"],
  result: ["BLEU improves", "F1 improves", "accuracy rises", "latency halves", "errors drop", "recall improves", "robustness improves", "training is faster"],
};

/** The `i`th word of a list, cycling. */
export const pickWord = (list: readonly string[], i: number): string => list[i % list.length];

/**
 * A fresh store holding `input` as `corpus`, with a private GRAFT_DATA_ROOT (see useTestStore),
 * and a list for the worker processes a test starts: those still running are killed afterwards.
 */
export function useWorkerStore(prefix: string, corpus: string, input: () => CorpusInput) {
  const workers: WorkerProcess[] = [];
  const store = useTestStore(prefix, {
    setup: (db) => importCorpus(db, input(), { corpus }),
    teardown: () => {
      for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGKILL");
    },
  });
  // Added to the store's own object: its getters stay lazy.
  return Object.assign(store, {
    /** A worker's environment on this store and data root. */
    env: (): NodeJS.ProcessEnv => workerEnv(store.databaseUrl, store.dataRoot),
    workers,
  });
}

/** Every job (a `what`) succeeded at its first claim, and the jobs ran on at least two workers (noted in the test's output). */
export function assertSharedOnce(t: TestContext, jobs: readonly JobRow[], what: string): void {
  assert.ok(
    jobs.every((j) => j.status === "succeeded" && j.attempts === 1),
    `every ${what} claimed once`,
  );
  const owners = new Set(jobs.map((j) => j.workerId));
  t.diagnostic(`${jobs.length} ${what} jobs ran on ${owners.size} workers`);
  assert.ok(owners.size >= 2, `${what}s ran on ${owners.size} worker(s): ${[...owners].join(", ")}`);
}

/** A generated train-split ACL paper of the sharded-build tests (no full text, no authors). */
export const generatedPaper = (p: Pick<PaperRecord, "externalId" | "title" | "abstract" | "year" | "facets">): PaperRecord => ({
  ...p,
  fullText: null,
  venue: "ACL",
  authors: [],
  split: "train",
});

/** A generated corpus in `folder`: `papers` and `citations` of them spread by fixed strides (no self-citations). */
export function generatedCorpus(folder: string, papers: PaperRecord[], citations: number): CorpusInput {
  const id = (k: number) => papers[k % papers.length].externalId;
  return {
    files: { papers: `${folder}/papers.jsonl`, citations: `${folder}/citations.tsv`, queries: null, queryGold: null },
    papers,
    citations: Array.from({ length: citations }, (_, e) => ({ citing: id(e * 13), cited: id(e * 29 + 7) })).filter((c) => c.citing !== c.cited),
    queries: [],
    queryGold: [],
    skipped: [],
  };
}

/**
 * Queues a sharded graph build on `workers` fresh worker processes (each polling before it is
 * queued), waits until it ends and stops them; asserts it succeeded and each stopped cleanly.
 * Returns the build's id.
 */
export async function graphBuildOnWorkers(
  store: { db: Db; env: () => NodeJS.ProcessEnv; workers: WorkerProcess[] },
  params: Record<string, unknown>,
  workers: number,
): Promise<number> {
  const started = await startReadyWorkers(store.env(), workers);
  store.workers.push(...started);
  const { job } = await enqueueStage(store.db, "graph", params);
  const { row, codes, output } = await finishOnWorkers(store.db, job.id, started);
  assert.equal(row.status, "succeeded", `${row.error}\n${output}`);
  assert.deepEqual(
    codes,
    started.map(() => 0),
    "each worker stops cleanly on SIGTERM",
  );
  return row.buildId as number;
}
