/**
 * On-disk vector cache for one corpus and one embedder: re-running a build embeds only texts
 * it has not seen, and an interrupted run keeps every chunk it committed.
 *
 * A cache dir holds
 *   manifest.json  {format, version, embedder, dim, count}: the commit record
 *   vectors.f32    rows of `dim` float32, little-endian, row i = text i
 *   keys.bin       32-byte SHA-256 digests of the exact texts, key i = row i
 *
 * Appends write the new rows and keys past the committed end of the two data files, flush them,
 * then replace manifest.json with the new count (a durable atomic write, lib/atomic-write.ts:
 * temp file + fsync + rename). The rename is the atomic commit: a crash at any point leaves the
 * previous manifest, whose `count` rows are intact, and whatever lies past them is ignored on
 * reading and cut off by the next append.
 * Loading is two reads and typed-array views (20k x 512 in tens of ms), no per-row parsing.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "@/lib/atomic-write";
import { dataRoot } from "@/lib/paths";
import type { Embedder } from "./types";

export const CACHE_FORMAT = "graft-vector-cache";
export const CACHE_VERSION = 1;
const KEY_BYTES = 32;
const MANIFEST = "manifest.json";
const VECTORS = "vectors.f32";
const KEYS = "keys.bin";
const LOCK = "write.lock";

const manifestSchema = z.object({
  format: z.literal(CACHE_FORMAT),
  version: z.literal(CACHE_VERSION),
  embedder: z.string().min(1),
  dim: z.number().int().positive(),
  count: z.number().int().nonnegative(),
});
export type CacheManifest = z.infer<typeof manifestSchema>;

/** SHA-256 of the exact text (UTF-8), the cache key. */
export function textKey(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * Conventional cache location: <data root>/vectors/<corpus>/<embedder id, made file-safe>.
 * The readable part of the name can collide (e.g. two folder paths), so a short hash of the
 * exact id is appended.
 */
export function cacheDirFor(corpus: string, embedderId: string, root: string = dataRoot()): string {
  const safe = (s: string) =>
    s
      .replace(/[^\w.@-]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .slice(-80) || "x";
  const hash = createHash("sha256").update(embedderId).digest("hex").slice(0, 8);
  return path.join(root, "vectors", safe(corpus), `${safe(embedderId)}-${hash}`);
}

function readManifest(dir: string): CacheManifest | null {
  const file = path.join(dir, MANIFEST);
  if (!existsSync(file)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`Vector cache manifest ${file} is not valid JSON (${(err as Error).message}); delete ${dir} to rebuild it.`);
  }
  const r = manifestSchema.safeParse(raw);
  if (!r.success) {
    throw new Error(`${file} is not a Graft vector cache manifest (${r.error.issues[0]?.message}); delete ${dir} to rebuild it.`);
  }
  return r.data;
}

function commitManifest(dir: string, manifest: CacheManifest): void {
  writeFileAtomic(path.join(dir, MANIFEST), `${JSON.stringify(manifest)}\n`, { durable: true });
}

/** Reads `length` bytes from the start of a file as an aligned, owned ArrayBuffer. */
function readPrefix(file: string, length: number, what: string, dir: string): ArrayBuffer {
  if (length === 0) return new ArrayBuffer(0);
  const buf = existsSync(file) ? readFileSync(file) : Buffer.alloc(0);
  if (buf.length < length) {
    throw new Error(`Vector cache ${dir} is damaged: ${what} has ${buf.length} bytes, the manifest commits ${length}. Delete ${dir} to rebuild it.`);
  }
  // Large reads get their own ArrayBuffer at offset 0; copy only when that is not the case
  // (small files come from Node's shared pool at arbitrary offsets, unusable for Float32Array).
  if (buf.byteOffset === 0 && buf.buffer.byteLength === length) return buf.buffer as ArrayBuffer;
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + length) as ArrayBuffer;
}

export interface CacheContents {
  manifest: CacheManifest;
  /** count x dim floats, row-major. */
  vectors: Float32Array;
  /** count x 32 bytes. */
  keys: Uint8Array;
}

/** Loads the committed part of a cache dir (null when the dir has no cache yet). */
export function readVectorCache(dir: string): CacheContents | null {
  const manifest = readManifest(dir);
  if (!manifest) return null;
  const { count, dim } = manifest;
  const vectors = new Float32Array(readPrefix(path.join(dir, VECTORS), count * dim * 4, VECTORS, dir));
  const keys = new Uint8Array(readPrefix(path.join(dir, KEYS), count * KEY_BYTES, KEYS, dir));
  return { manifest, vectors, keys };
}

/**
 * The committed keys of a cache dir, without its vectors (null when the dir has no cache yet):
 * a server that packs what it needs reads rows on demand (`readCachedRows`) instead of holding
 * every vector twice.
 */
export function readVectorCacheKeys(dir: string): { manifest: CacheManifest; keys: Uint8Array } | null {
  const manifest = readManifest(dir);
  if (!manifest) return null;
  return { manifest, keys: new Uint8Array(readPrefix(path.join(dir, KEYS), manifest.count * KEY_BYTES, KEYS, dir)) };
}

/**
 * A cache's vectors file held open for reading rows on demand (a served build reads a query's
 * candidates' rows); consecutive rows are read at once. Committed rows never change (appends go
 * past them), so a reader needs no lock.
 */
export class CachedRowReader {
  private readonly fd: number;

  constructor(
    private readonly dir: string,
    private readonly manifest: CacheManifest,
  ) {
    this.fd = openSync(path.join(dir, VECTORS), "r");
  }

  /** Rows `rows[i]` of the cache's vectors into `into` at i·dim. */
  read(rows: ArrayLike<number>, into: Float32Array): void {
    const { dim, count } = this.manifest;
    const bytes = dim * 4;
    const out = new Uint8Array(into.buffer, into.byteOffset, into.byteLength);
    for (let i = 0; i < rows.length;) {
      const row = rows[i];
      if (row < 0 || row >= count) throw new Error(`Vector cache ${this.dir}: row ${row} is not committed (count ${count})`);
      let j = i + 1;
      while (j < rows.length && rows[j] === rows[j - 1] + 1 && rows[j] < count) j++;
      const want = (j - i) * bytes;
      for (let done = 0; done < want;) {
        const n = readSync(this.fd, out, i * bytes + done, want - done, row * bytes + done);
        if (n === 0)
          throw new Error(
            `Vector cache ${this.dir} is damaged: ${VECTORS} ends inside row ${row + Math.floor(done / bytes)}. Delete ${this.dir} to rebuild it.`,
          );
        done += n;
      }
      i = j;
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Rows `rows[i]` of the cache's vectors into `into` at i·dim (one open, read, close). */
export function readCachedRows(dir: string, manifest: CacheManifest, rows: ArrayLike<number>, into: Float32Array): void {
  const reader = new CachedRowReader(dir, manifest);
  try {
    reader.read(rows, into);
  } finally {
    reader.close();
  }
}

function assertSameEmbedder(dir: string, manifest: CacheManifest, embedder: { id: string; dim: number }): void {
  if (manifest.embedder !== embedder.id || manifest.dim !== embedder.dim) {
    throw new Error(
      `Vector cache ${dir} holds vectors of embedder "${manifest.embedder}" (dim ${manifest.dim}); ` +
        `refusing to mix in "${embedder.id}" (dim ${embedder.dim}). Use one cache dir per embedder ` +
        `(cacheDirFor(corpus, embedder.id)) or delete ${dir}.`,
    );
  }
}

/** Writes `fd`'s data at `offset`, first cutting off anything an interrupted append left there. */
function writeAt(fd: number, offset: number, data: Uint8Array): void {
  if (fstatSync(fd).size !== offset) ftruncateSync(fd, offset);
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done, offset + done);
  fdatasyncSync(fd);
}

/** Test hook: runs after the data files are written and flushed, before the manifest commit. */
export interface CacheTestHooks {
  beforeCommit?(): void;
}

/** An open cache dir, held under its write lock until `close()`. */
export class VectorCacheWriter {
  private readonly index = new Map<string, number>();
  private vectors: Float32Array;
  private count: number;
  private closed = false;

  private constructor(
    readonly dir: string,
    readonly embedderId: string,
    readonly dim: number,
    contents: CacheContents | null,
    private readonly hooks: CacheTestHooks,
  ) {
    this.vectors = contents?.vectors ?? new Float32Array(0);
    this.count = contents?.manifest.count ?? 0;
    if (contents) {
      const hex = Buffer.from(contents.keys.buffer, contents.keys.byteOffset, contents.keys.byteLength);
      for (let i = 0; i < this.count; i++) this.index.set(hex.toString("hex", i * KEY_BYTES, (i + 1) * KEY_BYTES), i);
    }
  }

  /** Opens (creating if needed) `dir` for `embedder`; throws if it belongs to another embedder. */
  static open(dir: string, embedder: { id: string; dim: number }, hooks: CacheTestHooks = {}): VectorCacheWriter {
    mkdirSync(dir, { recursive: true });
    const releaseLock = acquireLock(dir);
    try {
      const contents = readVectorCache(dir);
      if (contents) assertSameEmbedder(dir, contents.manifest, embedder);
      else commitManifest(dir, { format: CACHE_FORMAT, version: CACHE_VERSION, embedder: embedder.id, dim: embedder.dim, count: 0 });
      const w = new VectorCacheWriter(dir, embedder.id, embedder.dim, contents, hooks);
      w.release = releaseLock;
      return w;
    } catch (err) {
      releaseLock();
      throw err;
    }
  }

  private release: () => void = () => {};

  get size(): number {
    return this.count;
  }

  /** The cached vector for a key (a view into the loaded matrix), if any. */
  get(key: Buffer): Float32Array | undefined {
    const i = this.index.get(key.toString("hex"));
    return i === undefined ? undefined : this.vectors.subarray(i * this.dim, (i + 1) * this.dim);
  }

  /** Appends rows and commits them atomically. Keys already present must not be passed. */
  append(keys: Buffer[], rows: Float32Array[]): void {
    if (this.closed) throw new Error("VectorCacheWriter is closed");
    if (keys.length !== rows.length) throw new Error(`append: ${keys.length} keys for ${rows.length} rows`);
    if (rows.length === 0) return;
    const n = rows.length;
    const vecBytes = new Float32Array(n * this.dim);
    rows.forEach((r, i) => {
      if (r.length !== this.dim) throw new Error(`append: row ${i} has ${r.length} values, the cache's dim is ${this.dim}`);
      vecBytes.set(r, i * this.dim);
    });
    const keyBytes = Buffer.concat(keys);
    if (keyBytes.length !== n * KEY_BYTES) throw new Error("append: every key must be a 32-byte SHA-256 digest");

    for (const [file, offset, data] of [
      [VECTORS, this.count * this.dim * 4, new Uint8Array(vecBytes.buffer)],
      [KEYS, this.count * KEY_BYTES, keyBytes],
    ] as const) {
      // turbopackIgnore: a runtime data path (GRAFT_DATA_ROOT), not a file for `next build` to trace.
      const target = path.join(/* turbopackIgnore: true */ this.dir, file);
      const fd = openSync(/* turbopackIgnore: true */ target, existsSync(/* turbopackIgnore: true */ target) ? "r+" : "w+");
      try {
        writeAt(fd, offset, data);
      } finally {
        closeSync(fd);
      }
    }
    this.hooks.beforeCommit?.();
    const count = this.count + n;
    commitManifest(this.dir, { format: CACHE_FORMAT, version: CACHE_VERSION, embedder: this.embedderId, dim: this.dim, count });

    // Keep serving reads from memory: grow the matrix (amortised doubling) and the index.
    if (this.vectors.length < count * this.dim) {
      const grown = new Float32Array(Math.max(count, this.count * 2) * this.dim);
      grown.set(this.vectors.subarray(0, this.count * this.dim));
      this.vectors = grown;
    }
    this.vectors.set(vecBytes, this.count * this.dim);
    keys.forEach((k, i) => this.index.set(k.toString("hex"), this.count + i));
    this.count = count;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.release();
  }
}

// ---------------------------------------------------------------------------------------------
// Write lock: one writer per cache dir, across processes (a second build on the same corpus
// would otherwise interleave appends). A lock whose process is gone is taken over.

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

const heldLocks = new Set<string>();

function acquireLock(dir: string): () => void {
  const file = path.join(dir, LOCK);
  if (heldLocks.has(file)) throw new Error(`Vector cache ${dir} is already open for writing in this process.`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: "wx" });
      heldLocks.add(file);
      return () => {
        heldLocks.delete(file);
        rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const owner = Number.parseInt(readFileSync(file, "utf8"), 10);
      if (Number.isInteger(owner) && owner !== process.pid && pidAlive(owner)) {
        throw new Error(`Vector cache ${dir} is being written by process ${owner}; wait for it to finish.`);
      }
      rmSync(file, { force: true }); // stale: its writer died
    }
  }
  throw new Error(`Could not take the write lock ${file}.`);
}

// ---------------------------------------------------------------------------------------------

export interface EmbedWithCacheOptions {
  dir: string;
  /** Texts embedded and committed per step (default 4096): what a crash can lose at most. */
  chunkSize?: number;
  /** (done, total) over the texts that need embedding; called once with (0, total) first. */
  onProgress?(done: number, total: number): void;
  /** @internal tests only */
  hooks?: CacheTestHooks;
}

/**
 * Progress over embedWithCache that also moves inside a chunk: `committed` is embedWithCache's
 * onProgress, `within` the embedder's own (texts done of the chunk it is embedding), so a slow
 * chunk of 4096 texts still shows movement every few hundred texts.
 */
export function chunkedProgress(report: (done: number, total: number) => void) {
  let committed = 0;
  let total = 0;
  return {
    committed(done: number, of: number) {
      committed = done;
      total = of;
      report(done, of);
    },
    within(done: number) {
      report(Math.min(committed + done, total), total);
    },
  };
}

/**
 * Vectors for `texts` (in order; duplicates allowed), embedding only texts whose exact string
 * is not yet in the cache at `dir`, and committing new vectors chunk by chunk.
 */
export async function embedWithCache(embedder: Embedder, texts: string[], options: EmbedWithCacheOptions): Promise<Float32Array[]> {
  const chunkSize = options.chunkSize ?? 4096;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new Error(`chunkSize must be a positive integer, got ${chunkSize}`);
  const cache = VectorCacheWriter.open(options.dir, embedder, options.hooks);
  try {
    const keys = texts.map(textKey);
    const missing: number[] = []; // first index of each distinct missing text
    const queued = new Set<string>();
    keys.forEach((k, i) => {
      if (cache.get(k)) return;
      const hex = k.toString("hex");
      if (!queued.has(hex)) {
        queued.add(hex);
        missing.push(i);
      }
    });
    options.onProgress?.(0, missing.length);
    for (let s = 0; s < missing.length; s += chunkSize) {
      const idx = missing.slice(s, s + chunkSize);
      const rows = await embedder.embed(idx.map((i) => texts[i]));
      if (rows.length !== idx.length) throw new Error(`Embedder ${embedder.id} returned ${rows.length} vectors for ${idx.length} texts`);
      cache.append(
        idx.map((i) => keys[i]),
        rows,
      );
      options.onProgress?.(Math.min(s + chunkSize, missing.length), missing.length);
    }
    // Rows are views into the cache's matrix: copy-free, and identical for repeated texts.
    return keys.map((k) => cache.get(k) as Float32Array);
  } finally {
    cache.close();
  }
}
