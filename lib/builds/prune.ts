/**
 * Removing builds that will never complete (issue 28: a failed build's files stayed, with no
 * command to remove them): failed builds, and builds left "running" or "pending" by a process
 * that was killed, that no job owns (a job's build is its job's to resume or cancel). A running
 * build is taken for abandoned only when neither it nor any file of its directory has changed
 * for `staleMinutes`: a build in progress in another terminal keeps writing.
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import type { Db } from "@/lib/db";
import { dataRoot } from "@/lib/paths";

export interface PruneOptions {
  /** Only this corpus's builds. */
  corpus?: string;
  /** List what would be removed, remove nothing. */
  dryRun?: boolean;
  /** A running or pending build untouched this long is abandoned (default 120 minutes). */
  staleMinutes?: number;
  now?: number;
}

export interface PrunedBuild {
  id: number;
  corpus: string;
  status: string;
  dir: string;
  bytes: number;
}

/** Bytes and newest modification time of the files directly in a build directory (builds are flat). */
function dirState(dir: string): { bytes: number; newest: number } {
  let bytes = 0;
  let newest = 0;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
    newest = statSync(dir).mtimeMs;
  } catch {
    return { bytes, newest };
  }
  for (const n of names) {
    try {
      const st = statSync(path.join(dir, n));
      bytes += st.isFile() ? st.size : 0;
      newest = Math.max(newest, st.mtimeMs);
    } catch {
      // Removed meanwhile: nothing to count.
    }
  }
  return { bytes, newest };
}

/** Removes (or with dryRun lists) the unfinished builds no job owns: their rows, edge rows and directories. */
export async function pruneBuilds(db: Db, options: PruneOptions = {}): Promise<PrunedBuild[]> {
  const now = options.now ?? Date.now();
  const staleMs = (options.staleMinutes ?? 120) * 60_000;
  const root = path.resolve(dataRoot());
  const rows = await db.build.findMany({
    where: { status: { in: ["failed", "running", "pending"] }, jobs: { none: {} }, ...(options.corpus ? { corpus: { name: options.corpus } } : {}) },
    include: { corpus: { select: { name: true } } },
    orderBy: { id: "asc" },
  });
  const pruned: PrunedBuild[] = [];
  for (const row of rows) {
    const dir = path.resolve(root, row.dir);
    // Never outside the data root, never the root itself (a row with an empty dir).
    const inside = row.dir !== "" && dir.startsWith(root + path.sep);
    const state = inside ? dirState(dir) : { bytes: 0, newest: 0 };
    const lastChange = Math.max(row.createdAt.getTime(), state.newest);
    if (row.status !== "failed" && now - lastChange < staleMs) continue;
    pruned.push({ id: row.id, corpus: row.corpus.name, status: row.status, dir: inside ? dir : "", bytes: state.bytes });
    if (options.dryRun) continue;
    // The row first (its edges and artefact rows go with it): a directory without a row is only disk.
    await db.build.delete({ where: { id: row.id } });
    if (inside) rmSync(dir, { recursive: true, force: true });
  }
  return pruned;
}
