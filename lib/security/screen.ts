import type { BlockList } from "node:net";
import { configFrom, defaultOf, type Env, type SettingName } from "@/lib/config";
import { type Db, getDb } from "@/lib/db/client";
import type { ApiErrorCode } from "@/lib/http";
import { STATUS_OF_CODE } from "@/lib/http/status";
import { resolveLimits } from "@/lib/input/limits";
import { clientAddress, normaliseAddress, trustedProxies } from "./client";
import { allowedOriginsFromEnv, checkCsrf, STATE_CHANGING } from "./csrf";
import { type BucketSpec, Limit, parseBucketSpec } from "@/lib/db/rate-limits";

// The request screen run by proxy.ts in front of every route: URL and body-size limits, allowed
// body types, CSRF, and per-client-address rate limits on the expensive routes, counted in the
// store so all instances share them (lib/security/limits.ts). A function of the request's
// method, URL and headers plus the limits, so it is unit-tested without Next.

export type RateClass = "query" | "upload" | "auth" | "admin";

export interface RoutePolicy {
  /** Rate-limit bucket, if any. */
  rate?: RateClass;
  /** Largest accepted body (Content-Length) for this request. */
  maxBodyBytes: number;
}

export interface ScreenSettings {
  buckets: Record<RateClass, BucketSpec>;
  maxJsonBytes: number;
  maxUploadBytes: number;
  maxUrlLength: number;
  maxQueryParams: number;
  /** Proxies whose X-Forwarded-For entries are believed (GRAFT_TRUSTED_PROXIES). */
  trusted: BlockList;
  allowedOrigins: string[];
}

const KB = 1024;
const MB = 1024 * KB;
/** Multipart framing and the other form fields around an uploaded file. */
const MULTIPART_OVERHEAD = 256 * KB;

/** The setting of each class's bucket (defaults in lib/config.ts: a person exploring papers
 * clicks in bursts, uploads cost far more than a query, sign-ins are password guesses). */
const RATE_SETTING = { query: "GRAFT_RATE_QUERY", upload: "GRAFT_RATE_UPLOAD", auth: "GRAFT_RATE_AUTH", admin: "GRAFT_RATE_ADMIN" } as const satisfies Record<
  RateClass,
  SettingName
>;

const OFF: BucketSpec = { perMinute: 0, burst: 1 };

export const DEFAULT_BUCKETS = Object.fromEntries(Object.entries(RATE_SETTING).map(([c, name]) => [c, parseBucketSpec(defaultOf(name), OFF, name)])) as Record<
  RateClass,
  BucketSpec
>;

/** The screen's settings from this process's configuration (lib/config.ts), or from `env` (tests). */
export function screenSettingsFromEnv(env?: Env): ScreenSettings {
  const c = configFrom(env);
  const bucket = (cls: RateClass) => (c.GRAFT_RATE_LIMITS === "off" ? OFF : parseBucketSpec(c[RATE_SETTING[cls]], DEFAULT_BUCKETS[cls], RATE_SETTING[cls]));
  return {
    buckets: { query: bucket("query"), upload: bucket("upload"), auth: bucket("auth"), admin: bucket("admin") },
    maxJsonBytes: c.GRAFT_MAX_JSON_KB * KB,
    maxUploadBytes: resolveLimits({}, c).maxBytes + MULTIPART_OVERHEAD,
    maxUrlLength: 4096,
    maxQueryParams: 64,
    trusted: trustedProxies(c.GRAFT_TRUSTED_PROXIES),
    allowedOrigins: allowedOriginsFromEnv(env),
  };
}

/** Body types an API route may receive; anything else is refused before a handler parses it. */
const API_BODY_TYPES = [
  "application/json",
  "multipart/form-data",
  "application/pdf",
  "application/octet-stream",
  "text/plain",
  "application/x-www-form-urlencoded",
];

const isUploadType = (contentType: string) => /^(multipart\/form-data|application\/pdf|application\/octet-stream)\b/i.test(contentType);

/** A pasted paper longer than this costs as much to parse and extract as an uploaded file. */
const LARGE_QUERY_BODY = 64 * KB;

/** Where passwords are tried (the sign-in form posts to the first). */
const SIGN_IN_PATH = /^\/(api\/auth\/login|api\/(login|signin|signup|register)|login|signin)$/;

/** Which limits apply to a request. Paths are matched after Next's normalisation (no trailing slash). */
export function routePolicy(
  method: string,
  pathname: string,
  contentType: string,
  s: Pick<ScreenSettings, "maxJsonBytes" | "maxUploadBytes">,
  length = 0,
): RoutePolicy {
  const m = method.toUpperCase();
  const p = pathname.toLowerCase();
  if (p === "/api/related" || p.startsWith("/api/related/") || p.startsWith("/api/query")) {
    if (m === "POST" && (isUploadType(contentType) || length > LARGE_QUERY_BODY)) return { rate: "upload", maxBodyBytes: s.maxUploadBytes };
    // A pasted paper or a JSON record may carry a full text: the upload size applies, at the query rate.
    return { rate: "query", maxBodyBytes: s.maxUploadBytes };
  }
  if (/^\/api\/papers\/[^/]+\/[^/]+\/related$/.test(p)) return { rate: "query", maxBodyBytes: s.maxJsonBytes };
  if (p.startsWith("/api/uploads") || p.startsWith("/api/upload")) return { rate: "upload", maxBodyBytes: s.maxUploadBytes };
  // The admin's corpus upload (issue 19) carries a papers file: the upload size, not the admin JSON cap.
  if (m === "POST" && p === "/api/admin/corpora/import") return { rate: "admin", maxBodyBytes: s.maxUploadBytes };
  if (STATE_CHANGING.has(m) && SIGN_IN_PATH.test(p)) return { rate: "auth", maxBodyBytes: 64 * KB };
  // Signing out and the session probe are not password guesses: they must not use up the sign-in allowance.
  if (p.startsWith("/api/auth/")) return { maxBodyBytes: 64 * KB };
  if (STATE_CHANGING.has(m) && p.startsWith("/api/admin/")) return { rate: "admin", maxBodyBytes: 64 * KB };
  return { maxBodyBytes: s.maxJsonBytes };
}

export interface ScreenInput {
  method: string;
  /** Path and query as received. */
  url: URL;
  headers: Headers;
}

export type ScreenVerdict =
  { ok: true; headers: Record<string, string> } | { ok: false; status: number; code: ApiErrorCode; message: string; headers: Record<string, string> };

export interface Screen {
  settings: ScreenSettings;
  check(input: ScreenInput): Promise<ScreenVerdict>;
}

/** A refusal; its status comes from lib/http's one table. */
const reject = (code: ApiErrorCode, message: string, headers: Record<string, string> = {}): ScreenVerdict => ({
  ok: false,
  status: STATUS_OF_CODE[code],
  code,
  message,
  headers,
});

/** One limit per class, counted in `db` (shared by every instance on that store) or, without one, in memory. */
export function addressLimits(buckets: Record<RateClass, BucketSpec>, db?: Db): Record<RateClass, Limit> {
  return Object.fromEntries((Object.keys(buckets) as RateClass[]).map((c) => [c, new Limit(`${c}:addr`, buckets[c], db)])) as Record<RateClass, Limit>;
}

export function createScreen(settings: ScreenSettings, limits: Record<RateClass, Limit> = addressLimits(settings.buckets)): Screen {
  /** Everything but the rate limits: decided from the request alone. */
  function checkRequest({ method, url, headers }: ScreenInput): ScreenVerdict | RoutePolicy {
    const m = method.toUpperCase();
    // ── URL limits ──
    if (url.pathname.length + url.search.length > settings.maxUrlLength)
      return reject("uri_too_long", `The URL is longer than ${settings.maxUrlLength} characters.`);
    let params = 0;
    for (const _ of url.searchParams)
      if (++params > settings.maxQueryParams) return reject("invalid_request", `Too many query parameters (more than ${settings.maxQueryParams}).`);

    // ── CSRF ──
    const csrf = checkCsrf({ method: m, headers, allowedOrigins: settings.allowedOrigins });
    if (!csrf.ok) return reject("forbidden", `${csrf.reason}: state-changing requests must come from this site's own pages.`);

    // ── body: type and size ──
    const contentType = headers.get("content-type") ?? "";
    const lengthHeader = headers.get("content-length");
    const length = lengthHeader === null ? 0 : Number(lengthHeader);
    const policy = routePolicy(m, url.pathname, contentType, settings, Number.isFinite(length) ? length : 0);
    const chunked = /chunked/i.test(headers.get("transfer-encoding") ?? "");
    if (m !== "GET" && m !== "HEAD") {
      if (lengthHeader === null && chunked)
        // The proxy can only bound a body it knows the size of; every browser sends the length.
        return reject("length_required", "Send the request body with a Content-Length header.");
      if (!Number.isInteger(length) || length < 0) return reject("invalid_request", "Content-Length is not a number.");
      if (length > policy.maxBodyBytes)
        return reject("too_large", `The request body is ${formatSize(length)}, more than the ${formatSize(policy.maxBodyBytes)} this route accepts.`);
      if (length > 0 && url.pathname.startsWith("/api/")) {
        const type = contentType.split(";")[0].trim().toLowerCase();
        if (!API_BODY_TYPES.includes(type))
          return reject("unsupported_media_type", `Content-Type "${type || "(none)"}" is not accepted; send ${API_BODY_TYPES.slice(0, 3).join(", ")}.`);
      }
    }

    return policy;
  }

  async function check(input: ScreenInput): Promise<ScreenVerdict> {
    const policy = checkRequest(input);
    if ("ok" in policy) return policy;
    if (!policy.rate) return { ok: true, headers: {} };
    const address = normaliseAddress(clientAddress(input.headers, settings.trusted));
    const d = await limits[policy.rate].take(address);
    const info = { "RateLimit-Limit": String(d.limit), "RateLimit-Remaining": String(d.remaining) };
    if (d.allowed) return { ok: true, headers: info };
    const wait = d.retryAfterSec;
    const message =
      policy.rate === "auth"
        ? // Said plainly: the pause holds for the right password too, so a user does not think theirs stopped working.
          `Too many sign-in attempts from your network address (${address}). Signing in from it is paused for ${wait} s, and until then even the right password is refused; wait, then try again.`
        : `Too many ${policy.rate} requests from your network address (${address}); try again in ${wait} s.`;
    return reject("rate_limited", message, { ...info, "Retry-After": String(wait) });
  }

  return { settings, check };
}

function formatSize(n: number): string {
  return n >= MB ? `${Math.round((n / MB) * 10) / 10} MB` : n >= KB ? `${Math.round(n / KB)} KB` : `${n} bytes`;
}

// One screen per server process (proxy.ts and tests reset it through resetScreen).
const holder = globalThis as unknown as { graftScreen?: Screen };

/** The server's screen: its limits counted in the store (getDb), shared with every other instance. */
export function getScreen(): Screen {
  if (!holder.graftScreen) {
    const settings = screenSettingsFromEnv();
    holder.graftScreen = createScreen(settings, addressLimits(settings.buckets, getDb()));
  }
  return holder.graftScreen;
}
