import { requireApiUser } from "@/lib/auth";
import { getDb } from "@/lib/db";
import { errorResponse } from "@/lib/http";
import { handleCorpusUpload } from "@/lib/query/corpus-upload";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * POST /api/admin/corpora/import (admins only) — "bring your own papers" (issue 19): multipart
 * "file" (BibTeX, RIS, OpenAlex, Semantic Scholar, arXiv or Graft JSONL), "corpus", optional
 * "format" (default "detect"), "description", "skipInvalid" → what `graft import` would report.
 * A refused file is a 400 whose issues name each problem as "file:line"; nothing is written then.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    await requireApiUser(req, "admin");
  } catch (err) {
    return errorResponse(err, "POST /api/admin/corpora/import");
  }
  return handleCorpusUpload(req, getDb());
}
