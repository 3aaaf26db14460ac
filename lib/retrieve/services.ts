/**
 * Process-wide singletons of the retrievers: the onnxruntime max-sim engine for ephemeral
 * insertion (the dense-graph walk of an unseen paper) and the item embedders by id (a graph
 * build's, a generative model's). Created on first use and shared by every request; a failed
 * creation is not cached, so the next request retries.
 */
import { createEmbedder, type Embedder } from "@/lib/embed";
import { MaxSimEngine } from "@/lib/graph";

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

const embedders = new Map<string, () => Promise<Embedder>>();

/** The embedder an id names (a build manifest's or a generative model's id is a valid spec), loaded once. */
export function itemEmbedder(embedderId: string): Promise<Embedder> {
  let get = embedders.get(embedderId);
  if (!get) embedders.set(embedderId, (get = once(() => createEmbedder(embedderId))));
  return get();
}
