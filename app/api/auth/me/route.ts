import { requireApiUser } from "@/lib/auth";
import { handleRoute } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** GET /api/auth/me → {user}, or 401 when signed out. */
export const GET = handleRoute(async (req: Request) => ({ user: await requireApiUser(req) }));
