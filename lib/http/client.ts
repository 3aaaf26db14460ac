import type { ApiErrorBody, ApiErrorCode, ApiIssue } from "./types";

// Browser-side counterpart of respond.ts: fetch JSON from Graft's API and surface its typed
// errors as exceptions whose message is the server's own, so the UI can show it verbatim.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode | "network",
    message: string,
    readonly issues: ApiIssue[] = [],
    /** Seconds until a rate-limited request may be retried (the Retry-After header of a 429). */
    readonly retryAfterSec?: number,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

function isErrorBody(v: unknown): v is ApiErrorBody {
  if (typeof v !== "object" || v === null || !("error" in v)) return false;
  const e = (v as { error: unknown }).error;
  return typeof e === "object" && e !== null && typeof (e as { message?: unknown }).message === "string";
}

export async function fetchJson<T>(url: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers: { accept: "application/json", ...init?.headers } });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiError(0, "network", "Could not reach the Graft server. Check that it is running.");
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const retryAfter = Number(res.headers.get("retry-after") ?? NaN);
    if (isErrorBody(body))
      throw new ApiError(res.status, body.error.code, body.error.message, body.error.issues, Number.isFinite(retryAfter) ? retryAfter : undefined);
    throw new ApiError(res.status, "internal", `The server answered ${res.status} ${res.statusText}`.trim());
  }
  return body as T;
}

/** Sends `body` as JSON with `method` (POST, PUT, PATCH, …) and reads the JSON answer as fetchJson does. */
export function sendJson<T>(url: string, method: string, body: unknown, init?: Omit<RequestInit, "method" | "body">): Promise<T> {
  return fetchJson<T>(url, { ...init, method, headers: { "content-type": "application/json", ...init?.headers }, body: JSON.stringify(body) });
}

/** Client errors (4xx) and an unmigrated database need a person, not a retry; other failures may pass. */
export function isRetryable(err: unknown): boolean {
  if (!(err instanceof ApiError)) return true;
  return !((err.status >= 400 && err.status < 500) || err.code === "not_ready");
}
