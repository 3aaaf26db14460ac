import { requireApiUser } from "@/lib/auth";
import { myStudies } from "@/lib/annotation";
import { getDb } from "@/lib/db";
import { handleRoute } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** GET /api/annotate/studies → {studies}: the signed-in user's studies with their progress. */
export const GET = handleRoute(async (req: Request) => {
  const user = await requireApiUser(req);
  return { studies: await myStudies(getDb(), user.id) };
});
