import { createHash, randomBytes } from "node:crypto";
import type { Db } from "@/lib/db";
import { type Role, toSessionUser, type SessionUser } from "./users";

// Server-side sessions: the browser holds a random token in an HTTP-only cookie; the store holds
// only its SHA-256 (Session.id), so a leaked database cannot be replayed as cookies.

export const SESSION_COOKIE = "graft_session";
/** Fixed lifetime from sign-in; signing out or disabling the account ends it earlier. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export function newSessionToken(): string {
  return randomBytes(32).toString("base64url");
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export interface NewSession {
  token: string;
  expiresAt: Date;
}

export async function createSession(db: Db, userId: number, now = new Date()): Promise<NewSession> {
  const token = newSessionToken();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await db.session.create({ data: { id: hashToken(token), userId, expiresAt } });
  return { token, expiresAt };
}

/** The signed-in user for a cookie token; null when unknown, expired or the account is disabled. */
export async function resolveSession(db: Db, token: string | undefined | null, now = new Date()): Promise<SessionUser | null> {
  // Tokens are 43 base64url characters; anything else cannot be ours and needs no lookup.
  if (!token || !/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const id = hashToken(token);
  const session = await db.session.findUnique({ where: { id }, include: { user: true } });
  if (!session) return null;
  if (session.expiresAt.getTime() <= now.getTime()) {
    await db.session.deleteMany({ where: { id } });
    return null;
  }
  if (session.user.disabled) return null;
  return toSessionUser(session.user);
}

export async function deleteSession(db: Db, token: string | undefined | null): Promise<void> {
  if (token) await db.session.deleteMany({ where: { id: hashToken(token) } });
}

export async function deleteUserSessions(db: Db, userId: number): Promise<number> {
  return (await db.session.deleteMany({ where: { userId } })).count;
}

export async function deleteExpiredSessions(db: Db, now = new Date()): Promise<number> {
  return (await db.session.deleteMany({ where: { expiresAt: { lte: now } } })).count;
}

// ── Cookies ──────────────────────────────────────────────────────────────────

/** Whether the request reached us over HTTPS (directly, or per a reverse proxy's header). */
export function isSecureRequest(request: Request): boolean {
  const forwarded = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  if (forwarded) return forwarded === "https";
  return new URL(request.url).protocol === "https:";
}

interface CookieOptions {
  secure: boolean;
}

/** Set-Cookie for a new session: HttpOnly (no script access), SameSite=Lax, Secure on HTTPS. */
export function sessionCookie(token: string, expiresAt: Date, { secure }: CookieOptions): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    `Expires=${expiresAt.toUTCString()}`,
    `Max-Age=${Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000))}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

export function clearedSessionCookie({ secure }: CookieOptions): string {
  return [`${SESSION_COOKIE}=`, "Path=/", "Expires=Thu, 01 Jan 1970 00:00:00 GMT", "Max-Age=0", "HttpOnly", "SameSite=Lax", ...(secure ? ["Secure"] : [])].join(
    "; ",
  );
}

/** One cookie's value from a Cookie request header. */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sessionTokenOf(request: Request): string | undefined {
  return readCookie(request.headers.get("cookie"), SESSION_COOKIE);
}

export type { Role, SessionUser };
