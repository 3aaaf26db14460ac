import { type NextRequest, NextResponse } from "next/server";
import { getScreen } from "@/lib/security/screen";

// Next 16's request proxy (formerly middleware), in front of every route but static assets:
// URL and body-size limits, allowed body types, CSRF and per-client rate limits (counted in the
// store, shared by all instances), decided by
// lib/security/screen.ts. A refused request gets a typed JSON error and never reaches a route.
// Response security headers (CSP, frame-ancestors, referrer policy, …) are set in next.config.ts.

export async function proxy(request: NextRequest): Promise<NextResponse> {
  const verdict = await getScreen().check({ method: request.method, url: request.nextUrl, headers: request.headers });
  if (!verdict.ok) {
    return NextResponse.json(
      { error: { code: verdict.code, message: verdict.message } },
      {
        status: verdict.status,
        headers: {
          ...verdict.headers,
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
          "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
          // The body was not read: the connection must not be reused for a next request.
          ...(verdict.status === 413 || verdict.status === 411 ? { connection: "close" } : {}),
        },
      },
    );
  }
  const res = NextResponse.next();
  for (const [k, v] of Object.entries(verdict.headers)) res.headers.set(k, v);
  return res;
}

export const config = {
  // Everything except build assets (immutable files Next serves itself).
  matcher: ["/((?!_next/static|_next/image|favicon\\.svg).*)"],
};
