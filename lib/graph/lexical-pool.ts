/**
 * The lexical all-pairs pass (LexicalIndex.allPairsTopK) on worker threads: rows are independent
 * and deterministic, so threads rank row ranges of the same index and the lists are put back
 * in row order, the same lists as the one-thread pass, bit for bit. At 64k papers the pass is
 * ≈ 10,000–20,000 postings a row over four facets, the largest part of a mix build's CPU.
 *
 * The index's arrays (items, postings, the postings cut at the bound) are copied once into
 * SharedArrayBuffers, so each thread rebuilds the index without copying or re-sorting them.
 * Ranges of `chunkRows` rows go to whichever thread is free (two in flight per thread).
 *
 * Threads are started by lib/worker-pool.ts (its Node flag policy and tsx boot script), as the
 * offline extractor's and the embedding pool's are.
 */
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { describeExit, startWorker, type WorkerHandle } from "@/lib/worker-pool";
import {
  concatRowLists,
  lexicalBound,
  lexicalProgressLines,
  type LexicalIndex,
  type LexicalIndexArrays,
  type LexicalPostings,
  type LexicalRowLists,
  type LexicalTopKOptions,
  type SparseFacetItems,
} from "./lexical";
import type { RankedNeighbours } from "./topk-accumulator";

/** Threads of the pass: both cores of the reference machine. */
export const DEFAULT_LEXICAL_THREADS = Math.min(2, availableParallelism());
/** Rows per message to a thread: ≈ 1–3 s of work at 64k papers, few enough messages to be free. */
export const DEFAULT_CHUNK_ROWS = 512;

export type ToLexicalWorker =
  | { type: "index"; id: number; arrays: LexicalIndexArrays; k: number; maxPostings: number; candidates: number }
  | { type: "rows"; id: number; job: number; from: number; to: number };

export type FromLexicalWorker = { type: "rows"; job: number; lists: LexicalRowLists } | { type: "error"; message: string };

const WORKER_FILE = fileURLToPath(new URL("./lexical-worker.ts", import.meta.url));

function sharedInt32(a: Int32Array): Int32Array {
  const out = new Int32Array(new SharedArrayBuffer(a.byteLength));
  out.set(a);
  return out;
}

function sharedFloat32(a: Float32Array): Float32Array {
  const out = new Float32Array(new SharedArrayBuffer(a.byteLength));
  out.set(a);
  return out;
}

function sharedPostings(p: LexicalPostings): LexicalPostings {
  return { ptr: sharedInt32(p.ptr), items: sharedInt32(p.items), weights: sharedFloat32(p.weights) };
}

/** The index's arrays in SharedArrayBuffers (a thread reads them in place). */
function sharedArrays(arrays: LexicalIndexArrays): LexicalIndexArrays {
  const it: SparseFacetItems = arrays.items;
  return {
    items: {
      numTerms: it.numTerms,
      offsets: sharedInt32(it.offsets),
      itemPtr: sharedInt32(it.itemPtr),
      terms: sharedInt32(it.terms),
      weights: sharedFloat32(it.weights),
    },
    full: sharedPostings(arrays.full),
    truncated: arrays.truncated ? { cap: arrays.truncated.cap, postings: sharedPostings(arrays.truncated.postings) } : null,
  };
}

export interface LexicalPoolOptions {
  /** Worker threads (default DEFAULT_LEXICAL_THREADS). */
  threads?: number;
  /** Rows per message to a thread (default DEFAULT_CHUNK_ROWS). */
  chunkRows?: number;
}

/** Worker threads that run lexical all-pairs passes, one pass at a time; reused across facets. */
export class LexicalPool {
  private nextIndex = 0;
  private closed = false;
  private running = false;
  private onMessage: ((thread: number, msg: FromLexicalWorker) => void) | null = null;
  private onFailure: ((err: Error) => void) | null = null;
  private failure: Error | null = null;

  private readonly threads: WorkerHandle<ToLexicalWorker>[];

  private constructor(
    threads: number,
    private readonly chunkRows: number,
  ) {
    this.threads = Array.from({ length: threads }, (_, i) =>
      startWorker<ToLexicalWorker, FromLexicalWorker>(WORKER_FILE, "thread", {
        message: (msg) => this.onMessage?.(i, msg),
        exit: (code, signal, error) => {
          if (!this.closed) this.fail(new Error(`lexical thread ${i + 1} ${describeExit(code, signal, error)}`));
        },
      }),
    );
  }

  static create(options: LexicalPoolOptions = {}): LexicalPool {
    const n = options.threads ?? DEFAULT_LEXICAL_THREADS;
    if (!Number.isInteger(n) || n < 1) throw new Error(`threads must be a positive integer, got ${n}`);
    const chunkRows = options.chunkRows ?? DEFAULT_CHUNK_ROWS;
    if (!Number.isInteger(chunkRows) || chunkRows < 1) throw new Error(`chunkRows must be a positive integer, got ${chunkRows}`);
    return new LexicalPool(n, chunkRows);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    this.onFailure?.(this.failure);
  }

  /** index.allPairsTopK(k, options), its rows ranked on the threads; the same lists. */
  async allPairsTopK(index: LexicalIndex, k: number, options: LexicalTopKOptions = {}): Promise<RankedNeighbours> {
    if (this.closed) throw new Error("the lexical pool is closed");
    if (this.failure) throw this.failure;
    if (this.running) throw new Error("the lexical pool runs one pass at a time");
    const { cap, candidates } = lexicalBound(k, options);
    const n = index.numPapers;
    const id = this.nextIndex++;
    const arrays = sharedArrays(index.arrays(cap));
    const lines = options.onProgress ? null : lexicalProgressLines(index.numItems);
    const report = options.onProgress ?? (lines as { update: (done: number, total: number) => void }).update;
    this.running = true;
    try {
      const parts = await new Promise<LexicalRowLists[]>((resolve, reject) => {
        const jobs: { from: number; to: number }[] = [];
        for (let from = 0; from < n; from += this.chunkRows) jobs.push({ from, to: Math.min(n, from + this.chunkRows) });
        const parts: LexicalRowLists[] = new Array(jobs.length);
        let next = 0;
        let finished = 0;
        let rowsDone = 0;
        const dispatch = (thread: number): void => {
          if (next >= jobs.length) return;
          const job = next++;
          this.threads[thread].send({ type: "rows", id, job, ...jobs[job] } satisfies ToLexicalWorker);
        };
        this.onFailure = reject;
        this.onMessage = (thread, msg) => {
          if (msg.type === "error") {
            this.fail(new Error(`lexical thread ${thread + 1}: ${msg.message}`));
            return;
          }
          parts[msg.job] = msg.lists;
          finished++;
          rowsDone += msg.lists.to - msg.lists.from;
          report(rowsDone, n);
          if (finished === jobs.length) resolve(parts);
          else dispatch(thread);
        };
        for (const t of this.threads) {
          t.send({ type: "index", id, arrays, k, maxPostings: cap, candidates } satisfies ToLexicalWorker);
        }
        for (let round = 0; round < 2; round++) this.threads.forEach((_, i) => dispatch(i));
        if (jobs.length === 0) resolve(parts);
      });
      lines?.done();
      return concatRowLists(n, k, parts);
    } finally {
      this.running = false;
      this.onMessage = null;
      this.onFailure = null;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.threads.map((t) => t.stop()));
  }
}

/** index.allPairsTopK on `threads` worker threads (1: in this thread, no thread started). */
export async function lexicalAllPairsTopK(index: LexicalIndex, k: number, options: LexicalTopKOptions & LexicalPoolOptions = {}): Promise<RankedNeighbours> {
  const threads = options.threads ?? DEFAULT_LEXICAL_THREADS;
  if (threads <= 1) return index.allPairsTopK(k, options);
  const pool = LexicalPool.create({ threads, chunkRows: options.chunkRows });
  try {
    return await pool.allPairsTopK(index, k, options);
  } finally {
    await pool.close();
  }
}
