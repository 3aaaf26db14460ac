/**
 * Errors of the core carry a code, never an HTTP status or an exit code: lib/http alone maps codes
 * to statuses (STATUS_OF_CODE in lib/http/respond.ts), and lib/cli to exit codes (EXIT_OF_CODE in
 * lib/cli/exit-codes.ts). A folder with errors of its own subclasses CodedError (RetrievalError in
 * lib/retrieve, NotFoundError in lib/corpus, InputError in lib/input, QueryError in lib/query).
 */

/**
 * Every code the core throws, each with its one meaning (what the API reports in `error.code`,
 * extractor_unreachable aside: see lib/http/respond.ts). A new code needs a row in both edge tables;
 * their tests fail until it has one.
 */
export const ERROR_CODES = {
  // ── the request or its input is wrong (the caller can fix it) ──
  invalid_request: "The request or its options are wrong.",
  invalid_json: "A body or paper record is not valid JSON.",
  unsupported_media_type: "The body's content type is not one the route reads.",
  too_large: "The input is larger than a limit allows (an upload, a compressed file that expands too far).",
  empty: "The paper given is empty.",
  too_short: "The paper's text is too short to retrieve with.",
  too_many_pages: "The PDF has more pages than the limit.",
  not_pdf: "The file is neither a PDF nor text.",
  encrypted: "The PDF is password-protected.",
  corrupt: "The PDF is damaged or incomplete.",
  no_text: "The PDF holds no extractable text (a scan).",
  invalid_record: "The paper record breaks its schema.",
  no_facets: "The query paper has no items in the requested facets.",
  extraction_failed: "The facet extractor gave no usable answer for the paper.",
  // ── who asks ──
  unauthorized: "Nobody is signed in, or the credentials are wrong.",
  forbidden: "The signed-in user's role may not do this.",
  // ── the state of the store ──
  not_found: "A named thing (corpus, paper, user, job) does not exist.",
  not_ready: "A set-up step is missing (a graph build, a trained model); the message names the step.",
  conflict: "The request contradicts the current state (a closed study, a taken email, a finished job).",
  // ── for now (try again later) ──
  store_unavailable: "The store (database) is busy, full or unreachable for now.",
  extractor_unreachable: "The facet extractor's provider could not be reached.",
} as const;

/** What went wrong, as a key of ERROR_CODES. */
export type ErrorCode = keyof typeof ERROR_CODES;

export class CodedError extends Error {
  /** Individual problems behind the message (e.g. a record's schema sentences), reported as issues. */
  readonly details: string[];

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { cause?: unknown; details?: string[] } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CodedError";
    this.details = options.details ?? [];
  }
}
