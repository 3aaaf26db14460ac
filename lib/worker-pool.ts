/**
 * How lib/ starts its workers: the embedding pool (embed/parallel.ts: processes or threads), the
 * lexical all-pairs pass (graph/lexical-pool.ts) and the offline extractor (facets/offline/pool.ts)
 * all start a TypeScript entry file here, with one policy for the Node flags a worker gets. Each
 * pool keeps its own scheduling (row ranges, ordered chunks, model batches); this module owns the
 * workers' start, messages, exit report and stop.
 */
import { type ChildProcess, fork } from "node:child_process";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

export type WorkerMode = "process" | "thread";

/**
 * Flags that belong to one process's session, not to its workers: the test runner (a worker would
 * run as a test file), the inspector (its port is taken), watch mode, and the profilers (a worker
 * would write its own profile, under --cpu-prof-name over the parent's).
 */
const SESSION_FLAG = /^--(test|inspect|watch|cpu-prof|heap-prof)/;

/**
 * Node flags for a worker: the parent's (loader, memory limits, conditions) without its session
 * flags, plus the tsx loader when the parent was not started through it (workers run this
 * TypeScript source directly).
 */
export function workerExecArgv(parent: readonly string[] = process.execArgv): string[] {
  const args: string[] = [];
  for (let i = 0; i < parent.length; i++) {
    const a = parent[i];
    if (!SESSION_FLAG.test(a)) args.push(a);
    // execArgv holds no script or arguments, so a bare word after a session flag is its value ("--cpu-prof-dir out").
    else if (!a.includes("=") && i + 1 < parent.length && !parent[i + 1].startsWith("-")) i++;
  }
  if (!args.some((a) => a.includes("tsx"))) args.push("--import", import.meta.resolve("tsx"));
  return args;
}

export interface WorkerEvents<Out> {
  message(msg: Out): void;
  /**
   * The worker is gone (by itself or stopped): its exit code, the signal that killed a process,
   * the last error a thread threw.
   */
  exit(code: number | null, signal: NodeJS.Signals | null, error: Error | null): void;
}

/** One worker, process or thread, behind a common interface. */
export interface WorkerHandle<In> {
  /** "pid 123" or "thread 4", for messages. */
  readonly label: string;
  /** Posts a message; nothing once the worker is gone. */
  send(msg: In): void;
  /** Stops the worker at once (a process by SIGKILL); resolves when it is gone. */
  stop(): Promise<void>;
}

/** "exited with code 7" or "was killed by SIGKILL", then the thread's last error if any. */
export function describeExit(code: number | null, signal: NodeJS.Signals | null, error: Error | null): string {
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  return error ? `${how}: ${error.message}` : how;
}

/** Starts `entry` (a .ts file path) as a worker process or thread. */
export function startWorker<In, Out>(entry: string, mode: WorkerMode, events: WorkerEvents<Out>): WorkerHandle<In> {
  return mode === "thread" ? startThread(entry, events) : startProcess(entry, events);
}

function startProcess<In, Out>(entry: string, events: WorkerEvents<Out>): WorkerHandle<In> {
  // "advanced" serialisation carries typed arrays (vectors) as typed arrays, not JSON.
  const child: ChildProcess = fork(entry, [], { execArgv: workerExecArgv(), serialization: "advanced", stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.on("exit", (code, signal) => {
      exited = true;
      events.exit(code, signal, null);
      resolve();
    }),
  );
  child.on("message", (m) => events.message(m as Out));
  child.on("error", () => {
    // 'exit' follows when the process is gone; a failed send is reported there.
  });
  return {
    label: `pid ${child.pid}`,
    send: (msg) => {
      if (!exited && child.connected) child.send(msg as object);
    },
    stop: () => {
      if (!exited) child.kill("SIGKILL");
      return gone;
    },
  };
}

function startThread<In, Out>(entry: string, events: WorkerEvents<Out>): WorkerHandle<In> {
  // Node 20 does not apply the tsx loader to a thread's own entry file, so the thread starts from
  // a small script that registers tsx and then imports the TypeScript entry.
  const boot = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(entry).href)}); })`;
  const worker = new Worker(boot, { eval: true, execArgv: workerExecArgv() });
  let exited = false;
  let lastError: Error | null = null;
  worker.on("message", (m) => events.message(m as Out));
  worker.on("error", (err) => (lastError = err));
  worker.on("exit", (code) => {
    exited = true;
    events.exit(code, null, lastError);
  });
  return {
    label: `thread ${worker.threadId}`,
    send: (msg) => {
      if (!exited) worker.postMessage(msg);
    },
    stop: async () => {
      await worker.terminate();
    },
  };
}
