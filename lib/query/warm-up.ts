/**
 * Loads what the first query needs before the server reports ready: the served graph build, the
 * item embedder, the facet extractor and the retrievers' indexes, by answering one pasted paper
 * through the same cached singletons the routes use (lib/query/services.ts, lib/retrieve/). The
 * first reader's paper then takes what a warm one does instead of 6-9 s.
 */
import { DEFAULT_CORPUS } from "@/lib/corpus/browse";
import type { Db } from "@/lib/db/client";
import { relatedOptions } from "./options";
import { relatedPapersOf } from "./request";

/** A made-up paper (a title line, then an abstract) long enough to pass the input checks. */
export const WARM_UP_PAPER = `Warming up the related-papers pipeline

We propose a neural sequence labeling model with character embeddings for named entity recognition and evaluate it on standard benchmarks, where it improves over word-level baselines.`;

export interface WarmUpLog {
  info(line: string): void;
  warn(line: string): void;
}

/**
 * Answers WARM_UP_PAPER on `corpus` with the default options. Never throws: a store without the
 * corpus or a graph build is a normal state before the first import, so a failure is logged
 * and the first query loads what it needs itself. Returns whether the pipeline is now warm.
 */
export async function warmUp(db: Db, log: WarmUpLog = console, corpus = DEFAULT_CORPUS): Promise<boolean> {
  const t0 = performance.now();
  try {
    await relatedPapersOf(db, { corpus, text: WARM_UP_PAPER }, relatedOptions.parse({}));
    log.info(`graft: the served build and models of "${corpus}" loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return true;
  } catch (err) {
    const reason = String((err as Error)?.message ?? err).split("\n")[0];
    log.warn(`graft: not warmed up (${reason}); the first query loads what it needs`);
    return false;
  }
}
