/**
 * The interface every facet extractor implements (paper, "Facet Extraction and Citation
 * Signals": each paper is represented by four facets, each a short list of items).
 *
 * Two implementations exist: the LLM extractor (lib/facets/llm) and an offline one. Callers
 * depend on this file only, so they can switch between them and persist results the same way.
 */
import type { Facet } from "@/lib/corpus";

/** What an extractor reads. `body` is the parsed full text (sections under their headings). */
export interface PaperInput {
  title: string;
  abstract: string;
  body?: string | null;
  /** The paper's prompt carries the authors too; optional because not every source has them. */
  authors?: readonly string[];
}

/** Tokens a provider billed for one request, as it reported them. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export type ExtractionResult =
  | {
      ok: true;
      /** All four facets, each with 1-5 non-empty items, strings as returned (not rewritten). */
      facets: Record<Facet, string[]>;
      usage?: TokenUsage;
      /** True when the input was cut to fit the extractor's input budget. */
      truncated: boolean;
      /** The model that produced the facets (the provider's own name for it when it reports one). */
      model: string;
    }
  | {
      ok: false;
      reason: string;
      /**
       * "invalid": an answer arrived but was not usable (bad JSON, schema violation, refusal);
       * it is discarded and not retried, as in the paper. "error": no answer (transport, HTTP,
       * configuration); retrying the paper later may succeed.
       */
      kind: "invalid" | "error";
      /** Present when the provider billed the failed attempt (an invalid answer still costs). */
      usage?: TokenUsage;
      model: string;
    };

export interface FacetExtractor {
  /** Short stable name, e.g. "llm" or "offline", recorded as the facets' provenance. */
  readonly id: string;
  /**
   * Extracts the four facets of one paper. Failures are results, not exceptions; the promise
   * rejects only when `opts.signal` aborts (with the signal's reason), so an interrupted paper
   * can be told apart from a failed one and simply left for the next run.
   */
  extract(paper: PaperInput, opts?: { signal?: AbortSignal }): Promise<ExtractionResult>;
}
