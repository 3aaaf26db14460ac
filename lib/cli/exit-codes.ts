// The CLI edge's one table from the core's error codes (lib/errors.ts) to exit codes, as the
// README's "The `graft` command" section lists them.
import { ConfigError } from "@/lib/config";
import { CorpusFormatError } from "@/lib/corpus";
import { storeFault } from "@/lib/db/faults";
import { CodedError, type ErrorCode } from "@/lib/errors";
import { UsageError } from "./output";

export const EXIT = {
  /** Anything unexpected: a bug or a broken environment (the message, and with GRAFT_DEBUG the stack). */
  failed: 1,
  /** The caller can fix it: flags, input, a missing corpus, paper or set-up step, a conflicting state. */
  usage: 2,
  /** Temporary: the store or the extractor's provider is unavailable; the same command may work later (sysexits' EX_TEMPFAIL). */
  tryLater: 75,
} as const;

export const EXIT_OF_CODE = {
  invalid_request: EXIT.usage,
  invalid_json: EXIT.usage,
  unsupported_media_type: EXIT.usage,
  too_large: EXIT.usage,
  empty: EXIT.usage,
  too_short: EXIT.usage,
  too_many_pages: EXIT.usage,
  not_pdf: EXIT.usage,
  encrypted: EXIT.usage,
  corrupt: EXIT.usage,
  no_text: EXIT.usage,
  invalid_record: EXIT.usage,
  no_facets: EXIT.usage,
  extraction_failed: EXIT.usage,
  unauthorized: EXIT.usage,
  forbidden: EXIT.usage,
  not_found: EXIT.usage,
  not_ready: EXIT.usage,
  conflict: EXIT.usage,
  store_unavailable: EXIT.tryLater,
  extractor_unreachable: EXIT.tryLater,
} as const satisfies Record<ErrorCode, (typeof EXIT)[keyof typeof EXIT]>;

/** The exit code for anything a command threw. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof UsageError || err instanceof ConfigError || err instanceof CorpusFormatError) return EXIT.usage;
  // Before the coded errors: a store fault may arrive wrapped in one (its cause).
  if (storeFault(err)) return EXIT.tryLater;
  if (err instanceof CodedError) return EXIT_OF_CODE[err.code];
  return EXIT.failed;
}

/** Whether the caller can fix the error (exit 2): shown as one line, without a stack trace. */
export function isUsageError(err: unknown): boolean {
  return exitCodeOf(err) === EXIT.usage;
}
