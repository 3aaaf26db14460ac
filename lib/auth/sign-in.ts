import { z } from "zod";
import { config } from "@/lib/config";
import { type Db, getDb } from "@/lib/db";
import { Limit, parseBucketSpec } from "@/lib/db/rate-limits";
import { CodedError } from "@/lib/errors";
import { codedResponse, json, parseWith } from "@/lib/http";
import { afterSignIn } from "./redirect";
import { createSession, deleteSession, isSecureRequest, sessionCookie, sessionTokenOf } from "./session";
import { authenticate } from "./users";

// POST /api/auth/login. Besides the per-address limit of the request screen (proxy.ts), every
// attempt counts against its account, from whatever address it comes (GRAFT_RATE_ACCOUNT, in the
// store, so shared by all instances): spreading guesses over many addresses or instances gains
// nothing. A successful sign-in clears the account's count.

const body = z.object({
  email: z.string().max(254),
  password: z.string().max(1024),
  next: z.string().max(2000).optional(),
});

/** The account lockout's counter key: the address as typed, compared loosely (the store keys exact strings). */
const accountKey = (email: string) => email.trim().toLowerCase();

/** The account limit of this process (GRAFT_RATE_ACCOUNT; GRAFT_RATE_LIMITS=off lifts it), counted in the store. */
export function accountLimitFromConfig(db: Db = getDb()): Limit {
  const c = config();
  const spec =
    c.GRAFT_RATE_LIMITS === "off" ? { perMinute: 0, burst: 1 } : parseBucketSpec(c.GRAFT_RATE_ACCOUNT, { perMinute: 1, burst: 10 }, "GRAFT_RATE_ACCOUNT");
  return new Limit("account", spec, db);
}

const holder = globalThis as unknown as { graftAccountLimit?: Limit };

/** Signs in from a JSON body {email, password, next?}: {user, redirect} and a session cookie, 401, or 429 for a locked account. */
export async function signIn(db: Db, req: Request, accounts: Limit = (holder.graftAccountLimit ??= accountLimitFromConfig(db))): Promise<Response> {
  const raw: unknown = await req.json().catch(() => {
    throw new CodedError("invalid_request", "Send a JSON body (Content-Type: application/json).");
  });
  const input = parseWith(body, raw);
  const attempt = await accounts.take(accountKey(input.email));
  if (!attempt.allowed) {
    // The same answer whether or not the account exists, so the lockout reveals nothing either.
    return codedResponse(
      "rate_limited",
      `Too many sign-in attempts for this account. It is locked for ${attempt.retryAfterSec} s, from every network address, and until then even the right password is refused; wait, then try again.`,
      { headers: { "retry-after": String(attempt.retryAfterSec) } },
    );
  }
  const user = await authenticate(db, input.email, input.password);
  // One message for every failure, so the form does not reveal which accounts exist.
  if (!user) throw new CodedError("unauthorized", "Wrong email or password, or the account is disabled.");
  await accounts.reset(accountKey(input.email));
  // A fresh token on every sign-in; an earlier session of this browser ends.
  await deleteSession(db, sessionTokenOf(req));
  const session = await createSession(db, user.id);
  const res = json({ user, redirect: afterSignIn(input.next, user.role === "admin" ? "/admin" : "/annotate") });
  res.headers.append("set-cookie", sessionCookie(session.token, session.expiresAt, { secure: isSecureRequest(req) }));
  return res;
}
