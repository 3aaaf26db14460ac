import { clearedSessionCookie, deleteSession, isSecureRequest, sessionTokenOf } from "@/lib/auth";
import { getDb } from "@/lib/db";
import { handleRoute, json } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * POST /api/auth/logout: ends the session and clears the cookie. A plain HTML form (the sign-out
 * button) gets a 303 to the sign-in page; a fetch gets JSON.
 */
export const POST = handleRoute(async (req: Request) => {
  await deleteSession(getDb(), sessionTokenOf(req));
  const cookie = clearedSessionCookie({ secure: isSecureRequest(req) });
  const isForm = /application\/x-www-form-urlencoded|multipart\/form-data/.test(req.headers.get("content-type") ?? "");
  const res = isForm ? new Response(null, { status: 303, headers: { location: "/login?signedOut=1" } }) : json({ signedOut: true });
  res.headers.append("set-cookie", cookie);
  return res;
});
