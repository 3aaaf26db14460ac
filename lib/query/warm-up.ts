/**
 * The start-up warm-up under `next start` and `next dev` (instrumentation.ts): one pasted paper
 * sent to the server's own POST /api/related as it starts, so the route loads the served graph
 * build, the item embedder, the facet extractor and the retrievers' indexes before a reader's
 * first paper, not on it (6-9 s cold). Through HTTP because instrumentation.ts runs in its own
 * bundle: what it loaded itself would be other copies of the routes' cached singletons. A paper a
 * reader sends meanwhile waits only for the part of the load still to come (the loads in flight
 * are shared). scripts/server.mjs (the production server) sends the same paper itself, from its
 * front process to the backend, and announces that it serves only once it is answered.
 */
import { DEFAULT_CORPUS } from "@/lib/corpus/browse";
import paper from "@/lib/warm-up-paper.json";

/** A made-up paper (a title line, then an abstract) long enough to pass the input checks; a JSON file because scripts/server.mjs sends it too. */
export const WARM_UP_PAPER: string = paper.text;

export interface WarmUpLog {
  info(line: string): void;
  warn(line: string): void;
}

/**
 * Asks the server at `origin` for WARM_UP_PAPER's related papers with the default options. Never
 * throws: a store without the corpus or a graph build is a normal state before the first import,
 * so a refusal is logged and the first query loads what it needs. Returns whether it answered.
 */
export async function warmUp(origin: string, log: WarmUpLog = console, corpus = DEFAULT_CORPUS): Promise<boolean> {
  const t0 = performance.now();
  const took = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  try {
    const res = await fetch(new URL("/api/related", origin), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ corpus, text: WARM_UP_PAPER }),
    });
    if (res.ok) {
      await res.arrayBuffer();
      log.info(`graft: warmed up: the served build and models of "${corpus}" loaded in ${took()}`);
      return true;
    }
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    log.warn(`graft: not warmed up (HTTP ${res.status}: ${body?.error?.message ?? res.statusText}); the first query loads what it needs`);
  } catch (err) {
    log.warn(`graft: not warmed up (${String((err as Error)?.message ?? err).split("\n")[0]}); the first query loads what it needs`);
  }
  return false;
}
