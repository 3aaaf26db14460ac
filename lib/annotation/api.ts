import { z } from "zod";
import { CodedError } from "@/lib/errors";

// Helpers shared by the admin and annotation route handlers (plain Request/Response + zod).

/** A numeric id from a route segment ("/api/admin/studies/3"). */
export const idSegment = z.coerce.number({ error: "id must be a number" }).int("id must be an integer").positive("id must be positive");

/** The request's JSON body; a missing or malformed body is a 400, not a 500. */
export async function readJson(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch {
    throw new CodedError("invalid_request", "Send a JSON body (Content-Type: application/json).");
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
