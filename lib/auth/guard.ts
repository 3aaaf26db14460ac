import { cookies } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { getDb } from "@/lib/db";
import { CodedError } from "@/lib/errors";
import { localPath } from "./redirect";
import { resolveSession, SESSION_COOKIE, sessionTokenOf } from "./session";
import type { Role, SessionUser } from "./users";

// Server-side access checks for pages and route handlers. Every admin and annotation page and
// API calls one of these itself: layouts and the proxy are not enough, since a layout does not
// re-run on client navigation and route handlers do not pass through layouts at all.

export type CurrentUser = SessionUser;

/** The signed-in user of the current request (reads the session cookie), or null. */
export const getCurrentUser = cache(async (): Promise<CurrentUser | null> => {
  const store = await cookies();
  return resolveSession(getDb(), store.get(SESSION_COOKIE)?.value);
});

/** Where a signed-out visitor goes: the sign-in page, then back to `next` (a local path only). */
export function loginPath(next: string | undefined): string {
  const path = localPath(next);
  return path ? `/login?next=${encodeURIComponent(path)}` : "/login";
}

/** A same-site path such as "/admin/studies/3" (not "//evil.example", "/\tevil", "https://…"): lib/auth/redirect.ts. */
export function isLocalPath(p: string): boolean {
  return localPath(p) !== undefined;
}

/**
 * For server components: the signed-in user, redirecting to /login?next=… when signed out and
 * answering 404 when the role is wrong (an annotator learns nothing about admin pages). Pages
 * pass their own path as `next`, since a server component cannot read its URL.
 */
export async function requireUser(role?: Role, options: { next?: string } = {}): Promise<CurrentUser> {
  const user = await getCurrentUser();
  if (!user) redirect(loginPath(options.next ?? (role === "admin" ? "/admin" : "/annotate")));
  if (role && user.role !== role) notFound();
  return user;
}

/** For route handlers: the signed-in user, or a CodedError unauthorized (signed out) / forbidden (wrong role). */
export async function requireApiUser(request: Request, role?: Role): Promise<CurrentUser> {
  const user = await resolveSession(getDb(), sessionTokenOf(request));
  if (!user) throw new CodedError("unauthorized", "Sign in to use this API.");
  if (role && user.role !== role) throw new CodedError("forbidden", `This needs the ${role} role.`);
  return user;
}
