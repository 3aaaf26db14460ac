import { configFrom, defaultOf, type Env, type SettingName } from "@/lib/config";
import { resolveLimits } from "@/lib/input/limits";
import { clientKey } from "./client";
import { allowedOriginsFromEnv, checkCsrf, STATE_CHANGING } from "./csrf";
import { type BucketSpec, parseBucketSpec, TokenBucketLimiter } from "./rate-limit";

// The request screen run by proxy.ts in front of every route: URL and body-size limits, allowed
// body types, CSRF, and per-client rate limits on the expensive routes. A pure function of the
// request's method, URL and headers plus the limiter state, so it is unit-tested without Next.

export type RateClass = "query" | "upload" | "auth" | "admin";

export interface RoutePolicy {
  /** Rate-limit bucket, if any. */
  rate?: RateClass;
  /** Largest accepted body (Content-Length) for this request. */
  maxBodyBytes: number;
}

export interface ScreenSettings {
  buckets: Record<RateClass, BucketSpec>;
  /** All clients together, per class: forged client keys cannot exceed this. */
  globalFactor: number;
  maxJsonBytes: number;
  maxUploadBytes: number;
  maxUrlLength: number;
  maxQueryParams: number;
  trustedHops: number;
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
    globalFactor: 20,
    maxJsonBytes: c.GRAFT_MAX_JSON_KB * KB,
    maxUploadBytes: resolveLimits({}, c).maxBytes + MULTIPART_OVERHEAD,
    maxUrlLength: 4096,
    maxQueryParams: 64,
    trustedHops: c.GRAFT_TRUSTED_PROXIES,
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
  if (STATE_CHANGING.has(m) && (/^\/api\/(auth|login|logout|session|signin|signup|register)\b/.test(p) || p === "/login" || p === "/signin"))
    return { rate: "auth", maxBodyBytes: 64 * KB };
  if (STATE_CHANGING.has(m) && p.startsWith("/api/admin/")) return { rate: "admin", maxBodyBytes: 64 * KB };
  return { maxBodyBytes: s.maxJsonBytes };
}

export interface ScreenInput {
  method: string;
  /** Path and query as received. */
  url: URL;
  headers: Headers;
  now?: number;
}

export type ScreenVerdict =
  { ok: true; headers: Record<string, string> } | { ok: false; status: number; code: string; message: string; headers: Record<string, string> };

export interface Screen {
  settings: ScreenSettings;
  check(input: ScreenInput): ScreenVerdict;
}

const reject = (status: number, code: string, message: string, headers: Record<string, string> = {}): ScreenVerdict => ({
  ok: false,
  status,
  code,
  message,
  headers,
});

export function createScreen(settings: ScreenSettings): Screen {
  const perClient = {} as Record<RateClass, TokenBucketLimiter>;
  const global = {} as Record<RateClass, TokenBucketLimiter>;
  for (const c of Object.keys(settings.buckets) as RateClass[]) {
    const b = settings.buckets[c];
    perClient[c] = new TokenBucketLimiter(b);
    global[c] = new TokenBucketLimiter({ perMinute: b.perMinute * settings.globalFactor, burst: b.burst * settings.globalFactor });
  }

  function check({ method, url, headers, now = Date.now() }: ScreenInput): ScreenVerdict {
    const m = method.toUpperCase();
    // ── URL limits ──
    if (url.pathname.length + url.search.length > settings.maxUrlLength)
      return reject(414, "uri_too_long", `The URL is longer than ${settings.maxUrlLength} characters.`);
    let params = 0;
    for (const _ of url.searchParams)
      if (++params > settings.maxQueryParams) return reject(400, "invalid_request", `Too many query parameters (more than ${settings.maxQueryParams}).`);

    // ── CSRF ──
    const csrf = checkCsrf({ method: m, headers, allowedOrigins: settings.allowedOrigins });
    if (!csrf.ok) return reject(403, "forbidden", `${csrf.reason}: state-changing requests must come from this site's own pages.`);

    // ── body: type and size ──
    const contentType = headers.get("content-type") ?? "";
    const lengthHeader = headers.get("content-length");
    const length = lengthHeader === null ? 0 : Number(lengthHeader);
    const policy = routePolicy(m, url.pathname, contentType, settings, Number.isFinite(length) ? length : 0);
    const chunked = /chunked/i.test(headers.get("transfer-encoding") ?? "");
    if (m !== "GET" && m !== "HEAD") {
      if (lengthHeader === null && chunked)
        // The proxy can only bound a body it knows the size of; every browser sends the length.
        return reject(411, "length_required", "Send the request body with a Content-Length header.");
      if (!Number.isInteger(length) || length < 0) return reject(400, "invalid_request", "Content-Length is not a number.");
      if (length > policy.maxBodyBytes)
        return reject(413, "too_large", `The request body is ${formatSize(length)}, more than the ${formatSize(policy.maxBodyBytes)} this route accepts.`);
      if (length > 0 && url.pathname.startsWith("/api/")) {
        const type = contentType.split(";")[0].trim().toLowerCase();
        if (!API_BODY_TYPES.includes(type))
          return reject(415, "unsupported_media_type", `Content-Type "${type || "(none)"}" is not accepted; send ${API_BODY_TYPES.slice(0, 3).join(", ")}.`);
      }
    }

    // ── rate limits ──
    if (!policy.rate) return { ok: true, headers: {} };
    const key = clientKey(headers, settings.trustedHops);
    const mine = perClient[policy.rate].take(key, now);
    const all = mine.allowed ? global[policy.rate].take("*", now) : mine;
    const info = { "RateLimit-Limit": String(mine.limit), "RateLimit-Remaining": String(mine.remaining) };
    if (!mine.allowed || !all.allowed) {
      const wait = Math.max(mine.retryAfterSec, all.retryAfterSec);
      const message =
        policy.rate === "auth"
          ? // Said plainly: the pause holds for the right password too, so a user does not think theirs stopped working.
            `Too many sign-in attempts from your network address. Signing in is paused for ${wait} s, and until then even the right password is refused; wait, then try again.`
          : `Too many ${policy.rate} requests; try again in ${wait} s.`;
      return reject(429, "rate_limited", message, { ...info, "Retry-After": String(wait) });
    }
    return { ok: true, headers: info };
  }

  return { settings, check };
}

function formatSize(n: number): string {
  return n >= MB ? `${Math.round((n / MB) * 10) / 10} MB` : n >= KB ? `${Math.round(n / KB)} KB` : `${n} bytes`;
}

// One screen per server process (proxy.ts and tests reset it through resetScreen).
const holder = globalThis as unknown as { graftScreen?: Screen };

export function getScreen(): Screen {
  return (holder.graftScreen ??= createScreen(screenSettingsFromEnv()));
}

export function resetScreen(settings?: ScreenSettings): Screen {
  holder.graftScreen = createScreen(settings ?? screenSettingsFromEnv());
  return holder.graftScreen;
}
