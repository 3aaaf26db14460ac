import { z } from "zod";
import { corpusName, corpusOverview } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import { handleRoute, parseWith } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const params = z.object({ name: corpusName });

/** GET /api/corpora/:name → CorpusOverview (404 when no such corpus). */
export const GET = handleRoute(async (_req: Request, ctx: { params: Promise<{ name: string }> }) => {
  const { name } = parseWith(params, await ctx.params);
  return corpusOverview(getDb(), name);
});
