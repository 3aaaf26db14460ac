import { z } from "zod";
import { corpusName, NotFoundError } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import { queryGate, errorResponse, searchParamsObject, segmentCandidates, json } from "@/lib/http";
import { relatedOptions } from "@/lib/query";
import { relatedPapersOf } from "@/lib/query/request";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const params = z.object({
  corpus: corpusName,
  id: z.string().min(1, "paper id is empty").max(500, "paper id is too long"),
});

/**
 * GET /api/papers/:corpus/:id/related?k=20&retriever=dense-graph&fusion=graph-rrf&facets=problems,methods&yearFrom=&yearTo=&venue=&direction=both
 * → related papers with provenance ("why related") and per-facet lists: the RelatedResult of
 * lib/query/types.ts. Works for corpus papers and for the corpus's stored out-of-corpus query
 * papers. The graph is loaded once per process (lib/retrieve/graph-store.ts) and shared. Past
 * GRAFT_MAX_CONCURRENT_QUERIES queries at once: 503 with Retry-After (lib/http/admission.ts).
 */
export async function GET(req: Request, ctx: { params: Promise<{ corpus: string; id: string }> }): Promise<Response> {
  return queryGate().run(() => related(req, ctx));
}

async function related(req: Request, ctx: { params: Promise<{ corpus: string; id: string }> }): Promise<Response> {
  try {
    const { corpus, id } = params.parse(await ctx.params);
    const options = relatedOptions.parse(searchParamsObject(new URL(req.url).searchParams));
    // The id segment may arrive encoded or decoded (see lib/http/segments.ts): try both forms.
    let lastMiss: unknown = null;
    for (const candidate of segmentCandidates(id)) {
      try {
        return json(await relatedPapersOf(getDb(), { corpus, paperId: candidate }, options));
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        lastMiss = err;
      }
    }
    throw lastMiss;
  } catch (err) {
    return errorResponse(err, `GET ${new URL(req.url).pathname}`);
  }
}
