/**
 * The one atomic file write: the data goes to a temporary file beside the target
 * (`<file>.<pid>.tmp`), which is then renamed over it, so a reader (the server following the
 * newest build, a resumed job, a spreadsheet) sees the old file or the new one, never half of
 * one. Interrupted writes leave only `*.tmp` files, which resuming a build removes
 * (lib/builds/build-dir.ts).
 *
 * `durable: true` also flushes the data to disk before the rename and the directory entry after
 * it (best effort: not every platform can fsync a directory), for commit records that must
 * survive a power loss (the vector cache's manifest).
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";

export interface AtomicWriteOptions {
  /** fsync the file before the rename and its directory after it. */
  durable?: boolean;
}

/** The temporary name a write of `file` uses. */
export const atomicTempFile = (file: string): string => `${file}.${process.pid}.tmp`;

/** Writes `data` to `file` through a temporary file and a rename. The directory must exist. */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const tmp = atomicTempFile(file);
  try {
    if (options.durable) writeDurably(tmp, data);
    else writeFileSync(tmp, data);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  if (options.durable) syncDirectory(path.dirname(file));
}

/**
 * The same for a file that a library writes itself (`write(tmp)`, e.g. an index's own writer):
 * the temporary file it wrote is renamed over `file`, or removed when anything fails.
 */
export async function writeFileAtomicWith(file: string, write: (tmp: string) => Promise<void> | void, options: AtomicWriteOptions = {}): Promise<void> {
  const tmp = atomicTempFile(file);
  try {
    await write(tmp);
    if (options.durable) flushFile(tmp);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  if (options.durable) syncDirectory(path.dirname(file));
}

function flushFile(file: string): void {
  const fd = openSync(file, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeDurably(file: string, data: string | Uint8Array): void {
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  const fd = openSync(file, "w");
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes a rename in `dir` durable (power loss); best effort, as not every platform allows it. */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // best effort
  }
}
