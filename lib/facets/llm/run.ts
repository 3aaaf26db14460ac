/**
 * Batch extraction: a bounded pool of concurrent extractions that hands each result to the
 * caller as soon as it is in.
 *
 * Resumability is the caller's part and stays simple: persist every result in `onResult`,
 * and on the next run pass only the papers that still lack facets. Nothing here is stateful
 * across runs.
 */
import type { ExtractionResult, FacetExtractor, PaperInput, TokenUsage } from "../extractor";

export interface ExtractProgress {
  total: number;
  /** Results delivered to onResult so far (ok + invalid + error). */
  done: number;
  ok: number;
  invalid: number;
  error: number;
  /** Extractions started and not yet delivered. */
  inFlight: number;
  /** Summed over every result that reported usage, failed ones included (they were billed). */
  usage: TokenUsage;
}

export interface ExtractAllSummary extends Omit<ExtractProgress, "inFlight"> {
  /** True when the signal aborted before every paper was done. */
  aborted: boolean;
}

export interface ExtractAllOptions<P extends PaperInput> {
  /** Extractions in flight at once (≥ 1). */
  concurrency: number;
  /**
   * Receives each paper's result as it finishes. Calls never overlap (each is awaited before
   * the next starts), so a caller may append to a file or write to a store without locking.
   * If it throws, no new paper is started and extractAll rejects with that error once the
   * extractions already in flight have settled.
   */
  onResult?: (paper: P, result: ExtractionResult) => void | Promise<void>;
  /** Called after each delivered result; an error thrown here ends the run as one from onResult does. */
  onProgress?: (progress: ExtractProgress) => void;
  /**
   * Aborting stops scheduling new papers and aborts the ones in flight; their results are
   * not delivered, so they stay unprocessed for the next run.
   */
  signal?: AbortSignal;
}

export async function extractAll<P extends PaperInput>(
  papers: readonly P[],
  extractor: FacetExtractor,
  opts: ExtractAllOptions<P>,
): Promise<ExtractAllSummary> {
  const { onResult, onProgress, signal } = opts;
  if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) {
    throw new RangeError(`concurrency must be a whole number ≥ 1, got ${opts.concurrency}`);
  }
  const progress: ExtractProgress = {
    total: papers.length,
    done: 0,
    ok: 0,
    invalid: 0,
    error: 0,
    inFlight: 0,
    usage: { promptTokens: 0, completionTokens: 0 },
  };
  let next = 0;
  let failure: { error: unknown } | null = null;
  let delivery: Promise<void> = Promise.resolve();

  const deliver = (paper: P, result: ExtractionResult): Promise<void> => {
    const run = delivery.then(async () => {
      if (failure) return; // a previous delivery failed: the run is stopping
      await onResult?.(paper, result);
      progress.done++;
      progress[result.ok ? "ok" : result.kind]++;
      if (result.usage) {
        progress.usage.promptTokens += result.usage.promptTokens;
        progress.usage.completionTokens += result.usage.completionTokens;
      }
      progress.inFlight--;
      onProgress?.({ ...progress, usage: { ...progress.usage } });
    });
    delivery = run.catch((error: unknown) => {
      failure ??= { error };
    });
    return delivery;
  };

  const worker = async (): Promise<void> => {
    while (!failure && !signal?.aborted && next < papers.length) {
      const paper = papers[next++];
      progress.inFlight++;
      let result: ExtractionResult;
      try {
        result = await extractor.extract(paper, { signal });
      } catch (err) {
        if (signal?.aborted) {
          progress.inFlight--;
          return;
        }
        // The interface promises results, not exceptions; a thrown error is a bug in the
        // extractor, reported for this paper rather than ending the whole run.
        result = { ok: false, kind: "error", reason: `extractor ${extractor.id} threw: ${String(err)}`, model: extractor.id };
      }
      await deliver(paper, result);
    }
  };

  await Promise.all(Array.from({ length: Math.min(opts.concurrency, papers.length) }, worker));
  await delivery;
  if (failure) throw (failure as { error: unknown }).error;
  const { inFlight: _inFlight, ...counts } = progress;
  return { ...counts, aborted: progress.done < progress.total && signal?.aborted === true };
}
