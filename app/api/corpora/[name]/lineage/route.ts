import { getDb } from "@/lib/db";
import { handleLineageRequest } from "@/lib/query/lineage";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * POST /api/corpora/:name/lineage { papers: [ids], exclude?: [ids], limit?: 10 } → prior works
 * (corpus papers cited by at least two of `papers`) and derivative works (citing at least two),
 * each with its count, and each paper's in-corpus citation count: the LineageResult of
 * lib/query/lineage.ts. 400 invalid_request (bad body, unknown ids), 404 no corpus, 409 no graph build.
 */
export async function POST(req: Request, ctx: { params: Promise<{ name: string }> }): Promise<Response> {
  return handleLineageRequest(getDb(), (await ctx.params).name, req);
}
