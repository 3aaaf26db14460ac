// The JSON error contract of Graft's HTTP API, shared by the server helpers and the browser client.

export type ApiErrorCode =
  | "invalid_request"
  | "not_found"
  | "not_ready"
  | "internal"
  | "unauthorized"
  | "forbidden"
  | "conflict"
  | "rate_limited"
  | "busy"
  | "too_large"
  | "length_required"
  | "unsupported_media_type"
  | "uri_too_long"
  | "store_unavailable";

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
