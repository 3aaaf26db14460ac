import { z } from "zod";
import { requireApiUser } from "@/lib/auth";
import { idSegment, readJson, getSheetItem, ratingInput, saveRating } from "@/lib/annotation";
import { getDb } from "@/lib/db";
import { codedResponse, handleRoute, parseWith } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Ctx = { params: Promise<{ id: string; itemId: string }> };
const params = z.object({ id: idSegment, itemId: idSegment });
// Items of other sheets answer exactly like items that do not exist.
const notYours = () => codedResponse("not_found", "This item is not on your sheet.");

/** GET /api/annotate/studies/:id/items/:itemId → the item, its paper, evidence and your rating. */
export const GET = handleRoute(async (req: Request, ctx: Ctx) => {
  const user = await requireApiUser(req);
  const { id, itemId } = parseWith(params, await ctx.params);
  return (await getSheetItem(getDb(), id, user.id, itemId)) ?? notYours();
});

/** PUT /api/annotate/studies/:id/items/:itemId {score, rationale} → saves your rating. */
export const PUT = handleRoute(async (req: Request, ctx: Ctx) => {
  const user = await requireApiUser(req);
  const { id, itemId } = parseWith(params, await ctx.params);
  const input = parseWith(ratingInput, await readJson(req));
  return (await saveRating(getDb(), id, user.id, itemId, input)) ?? notYours();
});
