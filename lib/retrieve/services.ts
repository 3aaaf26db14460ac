/**
 * Process-wide singletons of the retrievers: the onnxruntime max-sim engine for ephemeral
 * insertion (the dense-graph walk of an unseen paper). Created on first use and shared by every
 * request; a failed creation is not cached, so the next request retries.
 */
import { MaxSimEngine } from "@/lib/graph/maxsim-engine";

export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | null = null;
  return () => {
    p ??= make().catch((err: unknown) => {
      p = null;
      throw err;
    });
    return p;
  };
}

/**
 * One thread: a query's max-sim is a few small Gemms (milliseconds), and concurrent requests
 * are better served by one core each than by all of them contending for both.
 */
export const maxSimEngine = once(() => MaxSimEngine.create({ threads: 1 }));
