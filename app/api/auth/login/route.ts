import { z } from "zod";
import { afterSignIn } from "@/lib/auth/redirect";
import { createSession, deleteSession, isSecureRequest, sessionCookie, sessionTokenOf } from "@/lib/auth/session";
import { authenticate } from "@/lib/auth/users";
import { readJson } from "@/lib/annotation/api";
import { getDb } from "@/lib/db/client";
import { HttpError, handleRoute, json, parseWith } from "@/lib/http/respond";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const body = z.object({
  email: z.string().max(254),
  password: z.string().max(1024),
  next: z.string().max(2000).optional(),
});

/** POST /api/auth/login {email, password, next?} → {user, redirect} and a session cookie. */
export const POST = handleRoute(async (req: Request) => {
  const input = parseWith(body, await readJson(req));
  const db = getDb();
  const user = await authenticate(db, input.email, input.password);
  // One message for every failure, so the form does not reveal which accounts exist.
  if (!user) throw new HttpError(401, "unauthorized", "Wrong email or password, or the account is disabled.");
  // A fresh token on every sign-in; an earlier session of this browser ends.
  await deleteSession(db, sessionTokenOf(req));
  const session = await createSession(db, user.id);
  const home = user.role === "admin" ? "/admin" : "/annotate";
  const redirect = afterSignIn(input.next, home);
  const res = json({ user, redirect });
  res.headers.append("set-cookie", sessionCookie(session.token, session.expiresAt, { secure: isSecureRequest(req) }));
  return res;
});
