import { randomUUID } from "node:crypto";
import { z } from "zod";
import { storeFault } from "@/lib/db/faults";
import { CodedError, type ErrorCode } from "@/lib/errors";
import { apiCodeOf, STATUS_OF_CODE } from "./status";
import type { ApiErrorBody, ApiErrorCode, ApiIssue, EdgeErrorCode } from "./types";

// Response helpers shared by every HTTP route. Plain web `Response` + zod only, so route
// handlers stay thin and this file can be unit-tested without a running framework.

export type { ApiErrorBody, ApiErrorCode, ApiIssue, EdgeErrorCode } from "./types";
export { apiCodeOf, STATUS_OF_CODE } from "./status";

// Browse data changes whenever a corpus is (re)imported, so no shared cache may keep it.
const NO_STORE = { "cache-control": "no-store" } as const;

export function json(data: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  for (const [k, v] of Object.entries(NO_STORE)) if (!headers.has(k)) headers.set(k, v);
  return Response.json(data, { ...init, headers });
}

/** A raw error response; routes answer with codedResponse or a thrown CodedError, whose status comes from STATUS_OF_CODE. */
export function jsonError(status: number, code: ApiErrorCode, message: string, issues?: ApiIssue[]): Response {
  const body: ApiErrorBody = { error: { code, message, ...(issues ? { issues } : {}) } };
  return json(body, { status });
}

/** An error response whose status comes from STATUS_OF_CODE. */
export function codedResponse(
  code: ErrorCode | EdgeErrorCode,
  message: string,
  extra: { headers?: Record<string, string>; issues?: ApiIssue[] } = {},
): Response {
  const body: ApiErrorBody = { error: { code: apiCodeOf(code), message, ...(extra.issues ? { issues: extra.issues } : {}) } };
  return json(body, { status: STATUS_OF_CODE[code], headers: extra.headers });
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

/** An error's answer: its status, body and any headers (Retry-After for a store fault). */
export interface ErrorAnswer {
  status: number;
  body: ApiErrorBody;
  headers?: Record<string, string>;
}

/** The answer of a coded error: its status from STATUS_OF_CODE, its details as issues. */
function codedAnswer(err: CodedError, headers?: Record<string, string>): ErrorAnswer {
  const issues = err.details.length > 0 ? err.details.map((message) => ({ path: "(input)", message })) : undefined;
  return { status: STATUS_OF_CODE[err.code], body: { error: { code: apiCodeOf(err.code), message: err.message, ...(issues ? { issues } : {}) } }, headers };
}

/**
 * Status and body of a known error (zod, any coded error of the core, a store that is busy, full
 * or gone), or null for an unexpected one.
 */
export function knownErrorBody(err: unknown): ErrorAnswer | null {
  if (err instanceof z.ZodError) {
    const issues = zodIssues(err);
    const summary = issues.map((i) => (i.path === "(root)" ? i.message : `${i.path}: ${i.message}`)).join("; ");
    return { status: STATUS_OF_CODE.invalid_request, body: { error: { code: "invalid_request", message: `Invalid request: ${summary}`, issues } } };
  }
  // Before the coded errors: a store fault may arrive wrapped in one (its cause).
  const fault = storeFault(err);
  if (fault) return codedAnswer(fault, { "retry-after": String(fault.retryAfterSeconds) });
  if (err instanceof CodedError) return codedAnswer(err);
  return null;
}

/** The answer to anything thrown; an unexpected error is logged with a reference, never leaked. */
export function errorAnswer(err: unknown, context = "request"): ErrorAnswer {
  const known = knownErrorBody(err);
  if (known) return known;
  // An unmigrated database: a set-up step (not_ready), but one only an operator can take, so it is
  // answered with the status of a store that cannot serve (503), not not_ready's 409.
  if (isMissingTable(err))
    return {
      status: STATUS_OF_CODE.store_unavailable,
      body: { error: { code: "not_ready", message: "The database has no tables yet. Create them with: npm run graft -- db migrate" } },
    };
  // A short reference lets an operator find the logged error from what the user reports.
  const ref = randomUUID().slice(0, 8);
  console.error(`[graft] ${context} failed (ref ${ref}):`, err);
  return { status: STATUS_OF_CODE.internal, body: { error: { code: "internal", message: `Internal server error (ref ${ref})` } } };
}

/** Map any thrown value to a typed error response; unknown errors are logged, never leaked. */
export function errorResponse(err: unknown, context = "request"): Response {
  const a = errorAnswer(err, context);
  return json(a.body, { status: a.status, headers: a.headers });
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
