/** Test helpers of the job queue: a real `npm run worker` process (tests only). */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { repoRoot } from "@/lib/paths";

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
