/** Test helpers of the job queue: a real `npm run worker` process (tests only). */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import type { Db } from "@/lib/db";
import { repoRoot } from "@/lib/paths";
import type { JobRow } from "./queue";

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
