import { z } from "zod";
import { UserExistsError, UserNotFoundError } from "@/lib/auth/users";
import { HttpError } from "@/lib/http/respond";
import { StudyClosedError } from "./sheet";
import { StudyPlanError } from "./study";

// Helpers shared by the admin and annotation route handlers (plain Request/Response + zod).

/** A numeric id from a route segment ("/api/admin/studies/3"). */
export const idSegment = z.coerce.number({ error: "id must be a number" }).int("id must be an integer").positive("id must be positive");

/** The request's JSON body; a missing or malformed body is a 400, not a 500. */
export async function readJson(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch {
    throw new HttpError(400, "invalid_request", "Send a JSON body (Content-Type: application/json).");
  }
}

/** Domain errors of accounts and studies as the HTTP errors their callers should see. */
export async function withDomainErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof StudyPlanError) throw new HttpError(400, "invalid_request", err.message);
    if (err instanceof UserExistsError || err instanceof StudyClosedError) throw new HttpError(409, "conflict", err.message);
    if (err instanceof UserNotFoundError) throw new HttpError(404, "not_found", err.message);
    throw err;
  }
}

/** A CSV download. */
export function csvResponse(body: string, filename: string): Response {
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${filename.replace(/[^\w.-]+/g, "_")}"`,
      "cache-control": "no-store",
    },
  });
}
