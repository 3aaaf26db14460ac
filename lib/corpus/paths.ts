import path from "node:path";
import { repoRoot } from "@/lib/db/config";

/** The shared data directory (read-only inputs); GRAFT_SHARED_DATA overrides it. */
export function sharedDataDir(): string {
  return path.resolve(repoRoot, process.env.GRAFT_SHARED_DATA ?? "../shared/data");
}

/** The demo corpus that `graft import` reads when no path is given; GRAFT_DEMO_CORPUS overrides it. */
export function defaultCorpusPath(): string {
  return path.resolve(repoRoot, process.env.GRAFT_DEMO_CORPUS ?? path.join(sharedDataDir(), "acl-citegraph"));
}
