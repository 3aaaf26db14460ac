import { getDb } from "@/lib/db";
import { queryGate } from "@/lib/http";
import { handleRelatedRequest } from "@/lib/query/request";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * POST /api/related — related papers for a paper given as
 *   application/json     { corpus?, paperId } | { corpus?, text } | { corpus?, paper: { title, abstract?, facets?, … } }
 *   application/json     { corpus?, seeds: [id | {paperId} | {text} | {paper}] }: several papers at once,
 *                        fused across seeds (lib/query/multi-seed.ts: MultiSeedResult, with per-seed provenance)
 *   multipart/form-data  a "file" field (PDF, .txt or .json record), or a "text" field
 * with the options k, retriever, fusion, facets, yearFrom, yearTo, venue, direction beside it. Answers the
 * RelatedResult of lib/query/types.ts; with ?stream=1, NDJSON lines {"step", "message"} as
 * work proceeds and then {"result"} or {"error"}. Errors: { error: { code, message, issues? } }
 * with 400, 404, 409 (no graph build / no model), 413, 415 or 422. The graph, the embedder and
 * the extractor are loaded once per process and shared (lib/retrieve/graph-store.ts, lib/query/services.ts).
 */
export async function POST(req: Request): Promise<Response> {
  return queryGate().run(() => handleRelatedRequest(getDb(), req));
}
