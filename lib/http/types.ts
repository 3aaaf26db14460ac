// The JSON error contract of Graft's HTTP API, shared by the server helpers and the browser client.

import type { ErrorCode } from "@/lib/errors";

/** Codes only this edge answers with: no core error carries them. */
export type EdgeErrorCode = "internal" | "rate_limited" | "busy" | "length_required" | "uri_too_long";

/** Every code a client may see: the core's (lib/errors.ts; extractor_unreachable is reported as extraction_failed) and the edge's own. */
export type ApiErrorCode = Exclude<ErrorCode, "extractor_unreachable"> | EdgeErrorCode;

export interface ApiIssue {
  /** Dotted path of the offending input field, "(root)" for whole-input checks. */
  path: string;
  message: string;
}

export interface ApiErrorBody {
  error: {
    code: ApiErrorCode;
    message: string;
    issues?: ApiIssue[];
  };
}
