/**
 * Embedding with several workers, each holding its own copy of the model: USE-lite runs tfjs on
 * a single-threaded WebAssembly backend, so one process uses one core.
 *
 * Workers are forked child processes by default. Worker threads are supported too. Measured on
 * the 2-core reference machine (scripts/bench/embed.ts --threads, 2,000 items, quiet machine):
 * 2 processes 85.2 items/s, 2 threads 85.7, 1 in-process 48.2; a tie, so processes win on
 * isolation: a worker that aborts (native crash, OOM) cannot take the parent down, and memory
 * is returned to the OS when they exit.
 *
 * Texts are cut into chunks (default 256, a multiple of USE-lite's batch of 32, so every text
 * lands in the same model batch as in a serial run and the vectors are bit-identical); idle
 * workers take the next chunk, and results are put back in input order.
 *
 * MiniLM (onnxruntime) already uses every core within one process: give it workers: 1 or embed
 * in-process; several onnxruntime workers only oversubscribe the cores.
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { embedderSpecFromEnv } from "./registry";
import type { Embedder } from "./types";
import type { FromWorker, ToWorker } from "./worker-protocol";

export type WorkerMode = "process" | "thread";

export interface ParallelEmbedderOptions {
  /** Number of workers (default 2: both cores of the reference machine, ~0.5 GB each for USE-lite). */
  workers?: number;
  /** Child processes (default) or worker threads. */
  mode?: WorkerMode;
  /** Texts per job sent to a worker (default 256). */
  chunkSize?: number;
  /** (done, total) texts of the current embed() call, after each finished chunk. */
  onProgress?(done: number, total: number): void;
  /** Module exporting createEmbedder(spec) that workers load (default registry.ts); for tests. */
  factoryModule?: string;
}

export const DEFAULT_WORKERS = 2;
export const DEFAULT_CHUNK = 256;

const WORKER_FILE = fileURLToPath(new URL("./worker.ts", import.meta.url));
const REGISTRY_FILE = fileURLToPath(new URL("./registry.ts", import.meta.url));

/**
 * Node flags for a worker: the parent's, minus test-runner/debugger flags, plus the tsx loader
 * when the parent was not started through it (workers run this TypeScript source directly).
 */
function workerExecArgv(): string[] {
  const args: string[] = [];
  for (const a of process.execArgv) {
    if (/^--(test|inspect|watch)/.test(a)) continue;
    args.push(a);
  }
  if (!args.some((a) => a.includes("tsx"))) args.push("--import", import.meta.resolve("tsx"));
  return args;
}

/** One worker, process or thread, behind a common interface. */
interface WorkerHandle {
  readonly label: string;
  send(msg: ToWorker): void;
  kill(): void;
}

interface Job {
  index: number;
  texts: string[];
}

export class ParallelEmbedder implements Embedder {
  /** Process id of each worker (all the parent's own pid for threads); for monitoring. */
  pids: readonly number[] = [];
  private failure: Error | null = null;
  private closing = false;
  private queue: Promise<unknown> = Promise.resolve();
  private onFailure: ((err: Error) => void) | null = null;
  private onResult: ((worker: number, msg: FromWorker) => void) | null = null;

  private constructor(
    readonly id: string,
    readonly dim: number,
    private readonly workers: WorkerHandle[],
    private readonly options: Required<Pick<ParallelEmbedderOptions, "chunkSize">> & ParallelEmbedderOptions,
  ) {}

  /** Starts the workers and waits until each has loaded the model named by `spec`. */
  static async create(spec: string = embedderSpecFromEnv(), options: ParallelEmbedderOptions = {}): Promise<ParallelEmbedder> {
    const n = options.workers ?? DEFAULT_WORKERS;
    if (!Number.isInteger(n) || n < 1) throw new Error(`workers must be a positive integer, got ${n}`);
    const chunkSize = options.chunkSize ?? DEFAULT_CHUNK;
    if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new Error(`chunkSize must be a positive integer, got ${chunkSize}`);
    const mode = options.mode ?? "process";
    const factoryModule = pathToFileURL(options.factoryModule ?? REGISTRY_FILE).href;

    let pool: ParallelEmbedder | null = null;
    const ready: Array<{ id: string; dim: number; pid: number } | null> = new Array(n).fill(null);
    let settleInit: ((err: Error | null) => void) | null = null;
    const initDone = new Promise<void>((resolve, reject) => {
      settleInit = (err) => (err ? reject(err) : resolve());
    });

    const onMessage = (w: number, msg: FromWorker) => {
      if (pool) return pool.handleMessage(w, msg);
      if (msg.type === "ready") {
        ready[w] = { id: msg.id, dim: msg.dim, pid: msg.pid };
        if (ready.every(Boolean)) settleInit?.(null);
      } else if (msg.type === "failed") {
        settleInit?.(new Error(`Embedding worker ${w + 1} could not load "${spec}": ${msg.message}`));
      }
    };
    const onExit = (w: number, label: string, code: number | null, signal: string | null) => {
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const err = new Error(`Embedding worker ${w + 1} (${label}) ${how}`);
      if (pool) pool.handleExit(err);
      else settleInit?.(new Error(`${err.message} while loading "${spec}"`));
    };

    const workers: WorkerHandle[] = [];
    for (let w = 0; w < n; w++) workers.push(mode === "thread" ? startThread(w, onMessage, onExit) : startProcess(w, onMessage, onExit));
    for (const h of workers) h.send({ type: "init", spec, factoryModule });
    try {
      await initDone;
    } catch (err) {
      for (const h of workers) h.kill();
      throw err;
    }
    const first = ready[0]!;
    const odd = ready.find((r) => r!.id !== first.id || r!.dim !== first.dim);
    if (odd) {
      for (const h of workers) h.kill();
      throw new Error(`Embedding workers disagree on the model: ${first.id} (${first.dim}) vs ${odd.id} (${odd.dim})`);
    }
    pool = new ParallelEmbedder(first.id, first.dim, workers, { ...options, chunkSize });
    pool.pids = ready.map((r) => r!.pid);
    return pool;
  }

  private handleMessage(w: number, msg: FromWorker): void {
    this.onResult?.(w, msg);
  }

  private handleExit(err: Error): void {
    if (this.closing) return;
    this.failure ??= err;
    for (const h of this.workers) h.kill();
    this.onFailure?.(this.failure);
  }

  /** Vectors for `texts` in input order; embed() calls are served one after another. */
  embed(texts: string[]): Promise<Float32Array[]> {
    const run = this.queue.then(() => this.runJobs(texts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private runJobs(texts: string[]): Promise<Float32Array[]> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new Error("ParallelEmbedder is closed"));
    const { chunkSize, onProgress } = this.options;
    const jobs: Job[] = [];
    for (let s = 0, i = 0; s < texts.length; s += chunkSize, i++) jobs.push({ index: i, texts: texts.slice(s, s + chunkSize) });
    const out: Float32Array[] = new Array(texts.length);
    if (jobs.length === 0) return Promise.resolve(out);

    return new Promise<Float32Array[]>((resolve, reject) => {
      let next = 0;
      let finished = 0;
      let done = 0;
      const running = new Map<number, Job>(); // worker -> job
      const dispatch = (w: number) => {
        if (next >= jobs.length) return;
        const job = jobs[next++];
        running.set(w, job);
        this.workers[w].send({ type: "embed", job: job.index, texts: job.texts });
      };
      const fail = (err: Error) => {
        this.onResult = null;
        this.onFailure = null;
        reject(err);
      };
      this.onFailure = fail;
      this.onResult = (w, msg) => {
        const job = running.get(w);
        if (!job || (msg.type !== "result" && msg.type !== "failed") || msg.job !== job.index) return;
        running.delete(w);
        if (msg.type === "failed") {
          fail(new Error(`Embedding worker ${w + 1} failed on texts ${job.index * chunkSize}-${job.index * chunkSize + job.texts.length - 1}: ${msg.message}`));
          return;
        }
        const v = msg.vectors;
        if (v.length !== job.texts.length * this.dim) {
          fail(new Error(`Embedding worker ${w + 1} returned ${v.length} floats for ${job.texts.length} texts of dim ${this.dim}`));
          return;
        }
        const base = job.index * chunkSize;
        for (let r = 0; r < job.texts.length; r++) out[base + r] = v.subarray(r * this.dim, (r + 1) * this.dim);
        done += job.texts.length;
        finished++;
        onProgress?.(done, texts.length);
        if (finished === jobs.length) {
          this.onResult = null;
          this.onFailure = null;
          resolve(out);
        } else dispatch(w);
      };
      for (let w = 0; w < this.workers.length; w++) dispatch(w);
    });
  }

  /** Stops the workers (after the embed() calls already queued). */
  async close(): Promise<void> {
    await this.queue;
    if (this.closing) return;
    this.closing = true;
    for (const h of this.workers) {
      try {
        h.send({ type: "close" });
      } catch {
        // already gone
      }
    }
    // A worker that does not exit promptly (e.g. a busy native pool) is not worth waiting for.
    setTimeout(() => this.workers.forEach((h) => h.kill()), 2000).unref();
  }
}

function startProcess(
  w: number,
  onMessage: (w: number, msg: FromWorker) => void,
  onExit: (w: number, label: string, code: number | null, signal: string | null) => void,
): WorkerHandle {
  // "advanced" serialisation carries the Float32Array results as typed arrays, not JSON.
  const child: ChildProcess = fork(WORKER_FILE, [], {
    execArgv: workerExecArgv(),
    serialization: "advanced",
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const label = `pid ${child.pid}`;
  let exited = false;
  child.on("message", (m) => onMessage(w, m as FromWorker));
  child.on("exit", (code, signal) => {
    exited = true;
    onExit(w, label, code, signal);
  });
  child.on("error", () => {
    // 'exit' follows when the process is gone; a failed send is reported there.
  });
  return {
    label,
    send: (msg) => {
      if (!exited && child.connected) child.send(msg);
    },
    kill: () => {
      if (!exited) child.kill("SIGKILL");
    },
  };
}

function startThread(
  w: number,
  onMessage: (w: number, msg: FromWorker) => void,
  onExit: (w: number, label: string, code: number | null, signal: string | null) => void,
): WorkerHandle {
  // Node 20 does not apply the tsx loader from execArgv to a thread's own entry file, so the
  // thread starts from a small script that registers tsx and then imports the TypeScript entry.
  const boot = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(WORKER_FILE).href)}); })`;
  const worker = new Worker(boot, { eval: true, execArgv: workerExecArgv() });
  const label = `thread ${worker.threadId}`;
  let exited = false;
  let lastError: Error | null = null;
  worker.on("message", (m) => onMessage(w, m as FromWorker));
  worker.on("error", (err) => {
    lastError = err;
  });
  worker.on("exit", (code) => {
    exited = true;
    onExit(w, lastError ? `${label}: ${lastError.message}` : label, code, null);
  });
  return {
    label,
    send: (msg) => {
      if (!exited) worker.postMessage(msg);
    },
    kill: () => {
      if (!exited) void worker.terminate();
    },
  };
}

/** Embeds `texts` with a temporary pool of workers for `spec`, then stops them. */
export async function embedParallel(spec: string, texts: string[], options: ParallelEmbedderOptions = {}): Promise<Float32Array[]> {
  const pool = await ParallelEmbedder.create(spec, options);
  try {
    return await pool.embed(texts);
  } finally {
    await pool.close();
  }
}
