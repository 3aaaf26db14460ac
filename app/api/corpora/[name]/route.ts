import { z } from "zod";
import { corpusName, corpusOverview } from "@/lib/corpus/browse";
import { getDb } from "@/lib/db/client";
import { handleRoute, parseWith } from "@/lib/http/respond";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const params = z.object({ name: corpusName });

/** GET /api/corpora/:name → CorpusOverview (404 when no such corpus). */
export const GET = handleRoute(async (_req: Request, ctx: { params: Promise<{ name: string }> }) => {
  const { name } = parseWith(params, await ctx.params);
  return corpusOverview(getDb(), name);
});
