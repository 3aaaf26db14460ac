import { configFrom, type Env } from "@/lib/config";

// CSRF: a state-changing request (POST, PUT, PATCH, DELETE) must come from a page of this site.
// Browsers say where a request comes from in Sec-Fetch-Site (all current browsers) and Origin
// (every cross-origin request, and same-origin POSTs); neither can be set by a page's script.
// Requests with neither header are not from a browser (curl, the CLI, server-to-server) and
// carry no ambient browser credentials for an attacker to ride on, so they pass; session
// cookies should also be SameSite=Lax, which stops cross-site POSTs from old browsers.

export const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export interface CsrfInput {
  method: string;
  headers: Headers;
  /** Origins allowed besides the request's own (GRAFT_ALLOWED_ORIGINS, comma-separated). */
  allowedOrigins?: readonly string[];
}

export type CsrfVerdict = { ok: true } | { ok: false; reason: string };

/** GRAFT_ALLOWED_ORIGINS (lib/config.ts) as origins: lower case, no trailing slash. */
export function allowedOriginsFromEnv(env?: Env): string[] {
  return configFrom(env)
    .GRAFT_ALLOWED_ORIGINS.map((s) => s.replace(/\/+$/, "").toLowerCase())
    .filter(Boolean);
}

/** The origins this request's own site can have: the Host it was sent to, over http or https. */
function ownOrigins(headers: Headers): string[] {
  const host = headers.get("host")?.trim().toLowerCase();
  return host ? [`http://${host}`, `https://${host}`] : [];
}

export function checkCsrf({ method, headers, allowedOrigins = [] }: CsrfInput): CsrfVerdict {
  if (!STATE_CHANGING.has(method.toUpperCase())) return { ok: true };
  const site = headers.get("sec-fetch-site")?.toLowerCase();
  // "none": typed into the address bar / a bookmark; "same-origin": our own pages.
  if (site && site !== "same-origin" && site !== "none") {
    const origin = headers.get("origin")?.toLowerCase();
    // A same-site or cross-site request is still fine from an origin the operator allowed.
    if (!(origin && allowedOrigins.includes(origin))) return { ok: false, reason: `cross-site request refused (Sec-Fetch-Site: ${site})` };
  }
  const origin = headers.get("origin");
  if (origin !== null) {
    const o = origin.trim().toLowerCase();
    if (o === "null") return { ok: false, reason: "request from an opaque origin refused" };
    if (!ownOrigins(headers).includes(o) && !allowedOrigins.includes(o)) return { ok: false, reason: `cross-origin request from ${origin} refused` };
  }
  return { ok: true };
}
