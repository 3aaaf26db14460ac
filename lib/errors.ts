/**
 * Errors of the core carry a code, never an HTTP status: lib/http alone maps codes to statuses
 * (STATUS_OF_CODE in lib/http/respond.ts), and the CLI to exit codes. A folder with errors of
 * its own subclasses CodedError (RetrievalError in lib/retrieve, NotFoundError in lib/corpus).
 */

/** What went wrong, as the API reports it in `error.code`. */
export type ErrorCode =
  /** The request or its options are wrong (HTTP 400). */
  | "invalid_request"
  /** A named thing (corpus, paper) does not exist (404). */
  | "not_found"
  /** A set-up step is missing: a graph build, a trained model (409); the message names the step. */
  | "not_ready"
  /** The request contradicts the current state (409). */
  | "conflict"
  /** The input is larger than a limit allows, e.g. a compressed file that expands too far (413). */
  | "too_large"
  /** The store (database) is busy, full or unreachable for now (503, with a Retry-After). */
  | "store_unavailable";

export class CodedError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "CodedError";
  }
}
