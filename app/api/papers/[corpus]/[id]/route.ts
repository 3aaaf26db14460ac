import { z } from "zod";
import { corpusName, getPaperDetail } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import { codedResponse, handleRoute, parseWith, resolveSegment } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const params = z.object({
  corpus: corpusName,
  id: z.string().min(1, "paper id is empty").max(500, "paper id is too long"),
});

/** GET /api/papers/:corpus/:id → PaperDetail. Clients encode the id (ids may contain "/"). */
export const GET = handleRoute(async (_req: Request, ctx: { params: Promise<{ corpus: string; id: string }> }) => {
  const { corpus, id } = parseWith(params, await ctx.params);
  // Same lookup as the paper page: the literal segment first, then its decoded form.
  const paper = await resolveSegment(id, (candidate) => getPaperDetail(getDb(), corpus, candidate));
  return paper ?? codedResponse("not_found", `no paper "${id}" in corpus "${corpus}"`);
});
