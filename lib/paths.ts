/**
 * Where Graft's files are: the repository root, and the folders the settings of lib/config.ts
 * name, resolved. Relative settings resolve against the repository root, not the process's cwd,
 * so the CLI, the workers, the tests and Next agree on every path.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { config } from "./config";

/** Repository root, found from this file. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Where Graft keeps its database, builds, vector caches and models (GRAFT_DATA_ROOT). */
export function dataRoot(): string {
  return path.resolve(repoRoot, config().GRAFT_DATA_ROOT);
}

/** The shared data directory of read-only inputs (GRAFT_SHARED_DATA). */
export function sharedDataDir(): string {
  return path.resolve(repoRoot, config().GRAFT_SHARED_DATA);
}

/** The demo corpus that `graft import` reads when no path is given (GRAFT_DEMO_CORPUS). */
export function defaultCorpusPath(): string {
  return path.resolve(repoRoot, config().GRAFT_DEMO_CORPUS ?? path.join(sharedDataDir(), "acl-citegraph"));
}
