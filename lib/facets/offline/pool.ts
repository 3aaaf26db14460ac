/**
 * The offline extractor on worker threads: the same FacetExtractor (id "offline", the same
 * results as in-process, offlineResult), with the CPU work spread over threads so that the
 * calling thread is left to read and write the store (at 64k papers the extractor is about a
 * third of `graft extract`'s CPU, the store the rest).
 *
 * Papers arriving in one turn of the event loop are sent as chunks (default 64 papers; a message
 * per paper would cost about as much as extracting it); the least loaded thread takes the next
 * chunk. Results are handed back in the order the papers were given, so a caller that writes
 * them as they come (extractAll → the store) writes in the same order as the in-process path.
 *
 * Threads are started by lib/worker-pool.ts (its Node flag policy and tsx boot script), as the
 * embedding pool's and the lexical pass's are.
 */
import { fileURLToPath } from "node:url";
import { describeExit, startWorker, type WorkerHandle } from "@/lib/worker-pool";
import type { ExtractionResult, FacetExtractor, PaperInput } from "@/lib/facets/extractor";
import type { OfflineModel } from "./model";
import type { FromWorker, Outcome, ToWorker } from "./worker-protocol";

export interface OfflinePoolOptions {
  /** Worker threads (default 2: both cores of the reference machine). */
  threads?: number;
  /** Papers per message to a thread (default 64). */
  chunkSize?: number;
}

export const DEFAULT_THREADS = 2;
export const DEFAULT_CHUNK = 64;

const WORKER_FILE = fileURLToPath(new URL("./worker.ts", import.meta.url));

interface Task {
  paper: PaperInput;
  signal?: AbortSignal;
  settled: boolean;
  resolve(r: ExtractionResult): void;
  reject(err: unknown): void;
}

interface Chunk {
  tasks: Task[];
  thread: number;
  outcomes: Outcome[] | null;
}

function settle(task: Task, outcome: Outcome): void {
  if (task.settled) return;
  task.settled = true;
  if ("result" in outcome) task.resolve(outcome.result);
  else task.reject(new Error(outcome.thrown));
}

export class OfflineExtractorPool implements FacetExtractor {
  readonly id = "offline";
  private pending: Task[] = [];
  private flushScheduled = false;
  private readonly chunks = new Map<number, Chunk>();
  private nextJob = 0;
  /** The oldest chunk whose papers are not yet handed back. */
  private nextToSettle = 0;
  /** Papers sent to each thread and not yet answered. */
  private readonly load: number[];
  private readonly watched = new WeakSet<AbortSignal>();
  private failure: Error | null = null;
  private closing = false;

  private constructor(
    private readonly threads: WorkerHandle<ToWorker>[],
    private readonly chunkSize: number,
  ) {
    this.load = threads.map(() => 0);
  }

  /** Starts the threads with `model` and waits until each has it. */
  static async create(model: OfflineModel, options: OfflinePoolOptions = {}): Promise<OfflineExtractorPool> {
    const n = options.threads ?? DEFAULT_THREADS;
    if (!Number.isInteger(n) || n < 1) throw new Error(`threads must be a positive integer, got ${n}`);
    const chunkSize = options.chunkSize ?? DEFAULT_CHUNK;
    if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new Error(`chunkSize must be a positive integer, got ${chunkSize}`);
    let pool: OfflineExtractorPool | null = null;
    const threads: WorkerHandle<ToWorker>[] = [];
    const ready = Array.from(
      { length: n },
      (_, i) =>
        new Promise<void>((resolve, reject) => {
          const thread = startWorker<ToWorker, FromWorker>(WORKER_FILE, "thread", {
            message: (msg) => {
              if (msg.type === "ready") resolve();
              else pool?.done(i, msg.job, msg.outcomes);
            },
            exit: (code, signal, error) => {
              const err = new Error(`offline extraction thread ${i + 1} ${describeExit(code, signal, error)}`);
              if (pool) pool.fail(err);
              else reject(err);
            },
          });
          thread.send({ type: "init", model });
          threads.push(thread);
        }),
    );
    try {
      await Promise.all(ready);
    } catch (err) {
      for (const t of threads) void t.stop();
      throw err;
    }
    pool = new OfflineExtractorPool(threads, chunkSize);
    return pool;
  }

  /** Papers in flight that keep every thread busy (two chunks each): the concurrency to give extractAll. */
  get capacity(): number {
    return this.threads.length * this.chunkSize * 2;
  }

  extract(paper: PaperInput, opts: { signal?: AbortSignal } = {}): Promise<ExtractionResult> {
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new Error("the offline extraction pool is closed"));
    return new Promise<ExtractionResult>((resolve, reject) => {
      this.pending.push({ paper, signal, settled: false, resolve, reject });
      // One listener per signal, not per paper (an AbortSignal warns past 10 listeners).
      if (signal && !this.watched.has(signal)) {
        this.watched.add(signal);
        signal.addEventListener("abort", () => this.abortTasks(signal), { once: true });
      }
      if (this.pending.length >= this.chunkSize) this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          this.flush();
        });
      }
    });
  }

  /** Sends the waiting papers, a chunk at a time, each to the least loaded thread. */
  private flush(): void {
    while (this.pending.length > 0 && !this.failure) {
      const tasks = this.pending.splice(0, this.chunkSize);
      const thread = this.load.indexOf(Math.min(...this.load));
      const job = this.nextJob++;
      this.chunks.set(job, { tasks, thread, outcomes: null });
      this.load[thread] += tasks.length;
      this.threads[thread].send({ type: "extract", job, papers: tasks.map((t) => t.paper) } satisfies ToWorker);
    }
  }

  /** A thread's answer: hands back every chunk that is now next in line. */
  private done(thread: number, job: number, outcomes: Outcome[]): void {
    const chunk = this.chunks.get(job);
    if (!chunk || chunk.thread !== thread) return;
    this.load[thread] -= chunk.tasks.length;
    chunk.outcomes = outcomes;
    for (;;) {
      const next = this.chunks.get(this.nextToSettle);
      const ready = next?.outcomes;
      if (!next || !ready) break;
      next.tasks.forEach((t, i) => settle(t, ready[i]));
      this.chunks.delete(this.nextToSettle++);
    }
  }

  private abortTasks(signal: AbortSignal): void {
    const all = [...this.pending, ...[...this.chunks.values()].flatMap((c) => c.tasks)];
    for (const t of all) {
      if (t.signal !== signal || t.settled) continue;
      t.settled = true;
      t.reject(signal.reason);
    }
  }

  /** A thread is gone: every paper not handed back fails, and so does every later call. */
  private fail(err: Error): void {
    if (this.closing) return;
    this.failure ??= err;
    for (const t of [...this.pending, ...[...this.chunks.values()].flatMap((c) => c.tasks)]) {
      if (t.settled) continue;
      t.settled = true;
      t.reject(this.failure);
    }
    this.pending = [];
    this.chunks.clear();
    for (const t of this.threads) void t.stop();
  }

  /** Stops the threads; papers still in flight are not answered. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await Promise.all(this.threads.map((t) => t.stop()));
  }
}
