/**
 * Private temp folders for uploads, named by the process that owns them, so one left behind by
 * a killed process (issue 28: a 19 MB upload copy after a kill) is removed by the next one made.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Where Graft's temp folders live: `<tmp>/graft-tmp/<prefix>-<pid>-<random>`. */
export const tempRoot = (): string => path.join(os.tmpdir(), "graft-tmp");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes the temp folders whose owning process is gone; returns their names. */
export function sweepTempDirs(root = tempRoot()): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  const stale = names.filter((n) => {
    const pid = Number(/-(\d+)-[^-]+$/.exec(n)?.[1]);
    return Number.isInteger(pid) && pid > 0 && !alive(pid);
  });
  for (const n of stale) rmSync(path.join(root, n), { recursive: true, force: true });
  return stale;
}

/** A new private temp folder for this process, after sweeping the ones killed processes left. */
export function makeTempDir(prefix: string, root = tempRoot()): string {
  sweepTempDirs(root);
  mkdirSync(root, { recursive: true });
  return mkdtempSync(path.join(root, `${prefix}-${process.pid}-`));
}
