import { randomUUID } from "node:crypto";
import { z } from "zod";
import { storeFault } from "@/lib/db/faults";
import { CodedError, type ErrorCode } from "@/lib/errors";
import type { ApiErrorBody, ApiErrorCode, ApiIssue } from "./types";

// Response helpers shared by every HTTP route. Plain web `Response` + zod only, so route
// handlers stay thin and this file can be unit-tested without a running framework.

export type { ApiErrorBody, ApiErrorCode, ApiIssue } from "./types";

/** The one table from the core's error codes (lib/errors.ts) to HTTP statuses. */
export const STATUS_OF_CODE = {
  invalid_request: 400,
  not_found: 404,
  not_ready: 409,
  conflict: 409,
  too_large: 413,
  store_unavailable: 503,
} as const satisfies Record<ErrorCode, number>;

/** A route handler's own error with a specific status and typed body (the core throws CodedErrors). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

// Browse data changes whenever a corpus is (re)imported, so no shared cache may keep it.
const NO_STORE = { "cache-control": "no-store" } as const;

export function json(data: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  for (const [k, v] of Object.entries(NO_STORE)) if (!headers.has(k)) headers.set(k, v);
  return Response.json(data, { ...init, headers });
}

export function jsonError(status: number, code: ApiErrorCode, message: string, issues?: ApiIssue[]): Response {
  const body: ApiErrorBody = { error: { code, message, ...(issues ? { issues } : {}) } };
  return json(body, { status });
}

/** zod issues as `{ path: "a.b", message }`; an empty path (a whole-object check) reads "(root)". */
export function zodIssues(err: z.ZodError): ApiIssue[] {
  return err.issues.map((i) => ({ path: i.path.map(String).join(".") || "(root)", message: i.message }));
}

/**
 * URL search params as a plain object for a zod schema. Empty values count as absent, because
 * HTML forms and shared links send `?yearFrom=` for an unset field; the first of repeated keys wins.
 */
export function searchParamsObject(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of params) if (v.trim() !== "" && !(k in out)) out[k] = v;
  return out;
}

/** Parse input with a schema; a failure throws the ZodError, which `handleRoute` answers with 400. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  return schema.parse(input);
}

export function parseSearchParams<S extends z.ZodType>(schema: S, params: URLSearchParams): z.output<S> {
  return schema.parse(searchParamsObject(params));
}

/** Prisma's "table does not exist" code: the database was never migrated. Duck-typed so this
 * file needs no Prisma import (and works for both generated clients). */
function isMissingTable(err: unknown): boolean {
  return typeof err === "object" && err !== null && "code" in err && (err as { code: unknown }).code === "P2021";
}

/** A known error's answer: its status, body and any headers (Retry-After for a store fault). */
export interface KnownError {
  status: number;
  body: ApiErrorBody;
  headers?: Record<string, string>;
}

/**
 * Status and body of a known error (zod, a route's HttpError, any coded error of the core, a
 * store that is busy, full or gone), or null for an unexpected one. lib/query/errors.ts adds its
 * own errors in front of this.
 */
export function knownErrorBody(err: unknown): KnownError | null {
  if (err instanceof z.ZodError) {
    const issues = zodIssues(err);
    const summary = issues.map((i) => (i.path === "(root)" ? i.message : `${i.path}: ${i.message}`)).join("; ");
    return { status: 400, body: { error: { code: "invalid_request", message: `Invalid request: ${summary}`, issues } } };
  }
  if (err instanceof HttpError) return { status: err.status, body: { error: { code: err.code, message: err.message } } };
  // Before the coded errors: a store fault may arrive wrapped in one (its cause).
  const fault = storeFault(err);
  if (fault)
    return {
      status: STATUS_OF_CODE[fault.code],
      body: { error: { code: fault.code, message: fault.message } },
      headers: { "retry-after": String(fault.retryAfterSeconds) },
    };
  if (err instanceof CodedError) return { status: STATUS_OF_CODE[err.code], body: { error: { code: err.code, message: err.message } } };
  return null;
}

/** Map any thrown value to a typed error response; unknown errors are logged, never leaked. */
export function errorResponse(err: unknown, context = "request"): Response {
  const known = knownErrorBody(err);
  if (known) return json(known.body, { status: known.status, headers: known.headers });
  if (isMissingTable(err)) return jsonError(503, "not_ready", "The database has no tables yet. Create them with: npm run graft -- db migrate");
  // A short reference lets an operator find the logged error from what the user reports.
  const ref = randomUUID().slice(0, 8);
  console.error(`[graft] ${context} failed (ref ${ref}):`, err);
  return jsonError(500, "internal", `Internal server error (ref ${ref})`);
}

/**
 * Wrap a route handler: a plain value is sent as JSON, a `Response` as is, and anything thrown
 * becomes a typed JSON error (400 for zod, a coded error's status from STATUS_OF_CODE, 500 otherwise).
 */
export function handleRoute<A extends unknown[]>(fn: (...args: A) => Promise<unknown>): (...args: A) => Promise<Response> {
  return async (...args: A) => {
    try {
      const result = await fn(...args);
      return result instanceof Response ? result : json(result);
    } catch (err) {
      const req = args[0];
      const context = req instanceof Request ? `${req.method} ${new URL(req.url).pathname}` : "request";
      return errorResponse(err, context);
    }
  };
}
