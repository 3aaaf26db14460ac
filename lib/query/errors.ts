/**
 * Errors of the query pipeline, and their one mapping to the API's error body
 * `{ error: { code, message, issues? } }` with an HTTP status (used by POST /api/related, its
 * streaming form and GET /api/papers/:corpus/:id/related).
 */
import { randomUUID } from "node:crypto";
import { errorResponse, json, knownErrorBody as httpKnownErrorBody } from "@/lib/http/respond";
import { InputError } from "@/lib/input";
import type { QueryErrorBody, QueryErrorCode } from "./types";

/** A request the pipeline cannot serve, with a status and a code beyond the shared ones. */
export class QueryError extends Error {
  constructor(
    readonly status: number,
    readonly code: QueryErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "QueryError";
  }
}

/** The error body and status of a known error, or null for an unexpected one. */
function knownErrorBody(err: unknown): { status: number; body: QueryErrorBody; headers?: Record<string, string> } | null {
  if (err instanceof QueryError) return { status: err.status, body: { error: { code: err.code, message: err.message } } };
  if (err instanceof InputError) {
    const issues = err.details.length > 0 ? err.details.map((message) => ({ path: "(input)", message })) : undefined;
    return { status: err.status, body: { error: { code: err.code, message: err.message, ...(issues ? { issues } : {}) } } };
  }
  // zod, HttpError and the core's coded errors (not_found, not_ready, …): lib/http's one mapping.
  return httpKnownErrorBody(err);
}

/** Status and body for anything thrown; an unexpected error is logged with a reference, never leaked. */
export function queryErrorBody(err: unknown, context: string): { status: number; body: QueryErrorBody } {
  const known = knownErrorBody(err);
  if (known) return known;
  const ref = randomUUID().slice(0, 8);
  console.error(`[graft] ${context} failed (ref ${ref}):`, err);
  return { status: 500, body: { error: { code: "internal", message: `Internal server error (ref ${ref})` } } };
}

/** A JSON error response for anything thrown. */
export function queryErrorResponse(err: unknown, context: string): Response {
  const known = knownErrorBody(err);
  // Unexpected errors (and an unmigrated database) go through the shared handler.
  return known ? json(known.body, { status: known.status, headers: known.headers }) : errorResponse(err, context);
}
