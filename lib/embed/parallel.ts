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
import { fileURLToPath, pathToFileURL } from "node:url";
import { describeExit, startWorker, type WorkerHandle, type WorkerMode } from "@/lib/worker-pool";
import { createEmbedder, embedderSpecFromEnv, parseEmbedderSpec } from "./registry";
import type { Embedder } from "./types";
import type { FromWorker, ToWorker } from "./worker-protocol";

export type { WorkerMode };

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
    private readonly workers: WorkerHandle<ToWorker>[],
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
    const onExit = (w: number, label: string, how: string) => {
      const err = new Error(`Embedding worker ${w + 1} (${label}) ${how}`);
      if (pool) pool.handleExit(err);
      else settleInit?.(new Error(`${err.message} while loading "${spec}"`));
    };

    const workers: WorkerHandle<ToWorker>[] = [];
    for (let w = 0; w < n; w++) {
      const handle: WorkerHandle<ToWorker> = startWorker<ToWorker, FromWorker>(WORKER_FILE, mode, {
        message: (msg) => onMessage(w, msg),
        // A thread's last error reads as part of its name: "(thread 3: boom) exited with code 1".
        exit: (code, signal, error) => onExit(w, error ? `${handle.label}: ${error.message}` : handle.label, describeExit(code, signal, null)),
      });
      workers.push(handle);
    }
    for (const h of workers) h.send({ type: "init", spec, factoryModule });
    try {
      await initDone;
    } catch (err) {
      for (const h of workers) void h.stop();
      throw err;
    }
    const first = ready[0]!;
    const odd = ready.find((r) => r!.id !== first.id || r!.dim !== first.dim);
    if (odd) {
      for (const h of workers) void h.stop();
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
    for (const h of this.workers) void h.stop();
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
    setTimeout(() => this.workers.forEach((h) => void h.stop()), 2000).unref();
  }
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

/** What the graph build and the slice jobs embed with: a ParallelEmbedder, or one in-process embedder. */
export type EmbedPool = Pick<ParallelEmbedder, "id" | "dim" | "embed" | "close">;

/**
 * A pool of `options.workers` embedding workers for `spec`, except one worker of an LSA encoder,
 * which embeds in this process: LSA is a sparse product in plain JavaScript over a few MB (no
 * native code to crash, no model batches), so a process of its own adds only its start (about a
 * second of CPU) and the copies. Its vectors are the pool's bit for bit (each text is embedded
 * alone); progress is reported per chunk of `chunkSize` texts, as the pool's.
 */
export async function createEmbedPool(spec: string, options: ParallelEmbedderOptions = {}): Promise<EmbedPool> {
  const inProcess = (options.workers ?? DEFAULT_WORKERS) === 1 && !options.mode && !options.factoryModule && parseEmbedderSpec(spec).name === "lsa";
  if (!inProcess) return ParallelEmbedder.create(spec, options);
  const embedder = await createEmbedder(spec);
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK;
  return {
    id: embedder.id,
    dim: embedder.dim,
    embed: async (texts) => {
      const out: Float32Array[] = [];
      for (let s = 0; s < texts.length; s += chunkSize) {
        out.push(...(await embedder.embed(texts.slice(s, s + chunkSize))));
        options.onProgress?.(out.length, texts.length);
      }
      return out;
    },
    close: async () => embedder.close?.(),
  };
}
