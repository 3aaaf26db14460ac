/**
 * The corpus stage's data folders. They are settings (GRAFT_SHARED_DATA, GRAFT_DEMO_CORPUS in
 * lib/config.ts) resolved in lib/paths.ts; this module keeps the names the corpus code and its
 * callers import.
 */
export { defaultCorpusPath, sharedDataDir } from "@/lib/paths";
