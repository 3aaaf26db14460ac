/** Messages between lib/facets/offline/pool.ts and its worker threads (worker.ts). */
import type { ExtractionResult, PaperInput } from "@/lib/facets/extractor";
import type { OfflineModel } from "./model";

export type ToWorker = { type: "init"; model: OfflineModel } | { type: "extract"; job: number; papers: PaperInput[] };

/** A paper's result, or the message of what the extractor threw on it. */
export type Outcome = { result: ExtractionResult } | { thrown: string };

export type FromWorker = { type: "ready" } | { type: "done"; job: number; outcomes: Outcome[] };
