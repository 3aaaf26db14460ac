import { z } from "zod";
import { corpusName } from "@/lib/corpus/browse";
import { getDb } from "@/lib/db/client";
import { handleRoute, parseSearchParams, parseWith } from "@/lib/http/respond";
import { segmentCandidates } from "@/lib/http/segments";
import { relatedOptions, relatedPapers } from "@/lib/query/related";
import { NotFoundError } from "@/lib/corpus/browse";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const params = z.object({
  corpus: corpusName,
  id: z.string().min(1, "paper id is empty").max(500, "paper id is too long"),
});

/**
 * GET /api/papers/:corpus/:id/related?k=20&fusion=graph-rrf&facets=problems,methods&yearFrom=&yearTo=&venue=
 * → related papers with provenance ("why related") and per-facet lists. The graph is loaded once
 * per process (lib/query/graph-store.ts) and shared by all requests.
 */
export const GET = handleRoute(async (req: Request, ctx: { params: Promise<{ corpus: string; id: string }> }) => {
  const { corpus, id } = parseWith(params, await ctx.params);
  const options = parseSearchParams(relatedOptions, new URL(req.url).searchParams);
  // The id segment may arrive encoded or decoded (see lib/http/segments.ts): try both forms.
  let lastMiss: unknown = null;
  for (const candidate of segmentCandidates(id)) {
    try {
      return await relatedPapers(getDb(), { corpus, paperId: candidate }, options);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      lastMiss = err;
    }
  }
  throw lastMiss;
});
