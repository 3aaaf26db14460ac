import { requireApiUser } from "@/lib/auth";
import { idSegment, getSheet } from "@/lib/annotation";
import { getDb } from "@/lib/db";
import { codedResponse, handleRoute, parseWith } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** GET /api/annotate/studies/:id → the signed-in user's sheet (404 when they have none there). */
export const GET = handleRoute(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const user = await requireApiUser(req);
  const id = parseWith(idSegment, (await ctx.params).id);
  return (await getSheet(getDb(), id, user.id)) ?? codedResponse("not_found", "You have no items in this study.");
});
