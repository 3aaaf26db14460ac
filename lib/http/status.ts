// The HTTP edge's one table from error codes to statuses, without dependencies so that the
// request screen (proxy.ts) and the route helpers (respond.ts) read the same one.
import type { ErrorCode } from "@/lib/errors";
import type { ApiErrorCode, EdgeErrorCode } from "./types";

/**
 * The one table from error codes to HTTP statuses: the core's (lib/errors.ts) and the few that
 * only this edge answers (a server fault, the request screen's and the admission limit's refusals).
 */
export const STATUS_OF_CODE = {
  invalid_request: 400,
  invalid_json: 400,
  empty: 400,
  not_pdf: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  not_ready: 409,
  conflict: 409,
  length_required: 411,
  too_large: 413,
  too_many_pages: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  too_short: 422,
  encrypted: 422,
  corrupt: 422,
  no_text: 422,
  invalid_record: 422,
  no_facets: 422,
  extraction_failed: 422,
  rate_limited: 429,
  internal: 500,
  extractor_unreachable: 502,
  busy: 503,
  store_unavailable: 503,
} as const satisfies Record<ErrorCode | EdgeErrorCode, number>;

/** Codes the API reports under another name: an unreachable extractor is, to clients, a failed extraction (502 tells them apart). */
const REPORTED_AS: Partial<Record<ErrorCode, ApiErrorCode>> = { extractor_unreachable: "extraction_failed" };

/** The code a client sees for an error code. */
export function apiCodeOf(code: ErrorCode | EdgeErrorCode): ApiErrorCode {
  return REPORTED_AS[code as ErrorCode] ?? (code as ApiErrorCode);
}
