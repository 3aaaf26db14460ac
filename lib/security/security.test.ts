import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clientKey, normaliseAddress, trustedProxies, trustedProxiesFromEnv } from "./client";
import { checkCsrf } from "./csrf";
import { Limit, parseBucketSpec } from "@/lib/db/rate-limits";
import { redactSecrets } from "./redact";
import { createScreen, routePolicy, screenSettingsFromEnv, type ScreenSettings, type ScreenVerdict } from "./screen";

// Each attack the request screen exists for, tried against the pure functions: floods,
// forged client addresses, cross-site form posts, oversized and unbounded bodies, odd body
// types, huge URLs; and the secret redaction applied to logs and job records.

const settings = (over: Partial<ScreenSettings> = {}): ScreenSettings => ({
  ...screenSettingsFromEnv({}),
  ...over,
});

const req = (method: string, url: string, headers: Record<string, string> = {}) => ({
  method,
  url: new URL(url, "http://localhost:3000"),
  headers: new Headers({ host: "graft.example", ...headers }),
});

describe("limits", () => {
  test("a burst passes, the next request is refused with the time to wait; another key has its own count", async () => {
    const l = new Limit("test", { perMinute: 60, burst: 3 });
    assert.deepEqual(await Promise.all([0, 1, 2].map(async () => (await l.take("a")).allowed)), [true, true, true]);
    const denied = await l.take("a");
    assert.equal(denied.allowed, false);
    assert.ok(denied.retryAfterSec >= 1 && denied.retryAfterSec <= 3, `3 requests per 3 s window: ${denied.retryAfterSec}`);
    assert.equal((await l.take("b")).allowed, true, "another client has its own count");
    assert.equal((await l.peek("a")).allowed, false, "peek sees the refusal without counting");
    await l.reset("a");
    assert.equal((await l.take("a")).allowed, true, "reset forgets the count");
  });

  test("limits parse from the environment; typos are errors, not silent removals", () => {
    assert.deepEqual(parseBucketSpec("120:40", { perMinute: 1, burst: 1 }, "X"), { perMinute: 120, burst: 40 });
    assert.deepEqual(parseBucketSpec("30", { perMinute: 1, burst: 1 }, "X"), { perMinute: 30, burst: 15 });
    assert.equal(parseBucketSpec("off", { perMinute: 1, burst: 1 }, "X").perMinute, 0);
    assert.throws(() => parseBucketSpec("lots", { perMinute: 1, burst: 1 }, "GRAFT_RATE_QUERY"), /GRAFT_RATE_QUERY/);
    assert.throws(() => screenSettingsFromEnv({ GRAFT_TRUSTED_PROXIES: "2" }), /GRAFT_TRUSTED_PROXIES/, "a count of proxies is the old meaning");
    assert.throws(() => trustedProxies(["10.0.0.0/33"]), /GRAFT_TRUSTED_PROXIES/);
    assert.throws(() => trustedProxies(["10.0.0"]), /GRAFT_TRUSTED_PROXIES/);
    assert.ok(trustedProxiesFromEnv({ GRAFT_TRUSTED_PROXIES: "10.0.0.0/8, ::1, loopback" }).check("10.9.8.7"));
  });
});

describe("client identity", () => {
  test("addresses are normalised; IPv6 clients share their /64", () => {
    assert.equal(normaliseAddress("::ffff:10.1.2.3"), "10.1.2.3");
    assert.equal(normaliseAddress("10.1.2.3:5555"), "10.1.2.3");
    assert.equal(normaliseAddress("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
    assert.equal(normaliseAddress("2001:db8:1:2:bbbb:cccc:dddd:eeee"), "2001:db8:1:2::/64");
    assert.equal(normaliseAddress("[2001:db8::1]"), "2001:db8:0:0::/64");
  });

  test("the rightmost entry that is not a trusted proxy is the client: what a client writes itself is ignored", () => {
    const h = (xff: string) => new Headers({ "x-forwarded-for": xff });
    const none = trustedProxies([]);
    // scripts/server.mjs appends the connecting address: the rightmost entry is the real peer.
    assert.equal(clientKey(h("203.0.113.9"), none), "203.0.113.9");
    assert.equal(clientKey(h("1.1.1.1, 203.0.113.9"), none), "203.0.113.9", "a forged entry in front is ignored");
    const proxy = trustedProxies(["10.0.0.2", "::1"]);
    assert.equal(clientKey(h("6.6.6.6, 203.0.113.9, 10.0.0.2"), proxy), "203.0.113.9", "the trusted proxy wrote the client's address");
    assert.equal(clientKey(h("6.6.6.6, 203.0.113.9, ::ffff:10.0.0.2"), proxy), "203.0.113.9", "an IPv4-mapped proxy address is the proxy");
    assert.equal(clientKey(h("6.6.6.6, 203.0.113.9"), proxy), "203.0.113.9", "not through the proxy: the peer itself");
    assert.equal(clientKey(h("6.6.6.6, 7.7.7.7, 203.0.113.9, 10.0.0.2, ::1"), proxy), "203.0.113.9", "two trusted hops");
    assert.equal(clientKey(new Headers(), none), "unknown");
    assert.equal(clientKey(new Headers({ "x-real-ip": "6.6.6.6" }), none), "unknown", "X-Real-IP is the client's to write");
  });
});

describe("CSRF", () => {
  const post = (headers: Record<string, string>) => checkCsrf({ method: "POST", headers: new Headers({ host: "graft.example", ...headers }) });
  test("cross-site form posts and fetches are refused", () => {
    assert.equal(post({ "sec-fetch-site": "cross-site", origin: "https://evil.example" }).ok, false);
    assert.equal(post({ origin: "https://evil.example" }).ok, false, "old browsers: Origin alone");
    assert.equal(post({ "sec-fetch-site": "same-site", origin: "https://sub.graft.example" }).ok, false, "a sibling subdomain is another origin");
    assert.equal(post({ origin: "null" }).ok, false, "sandboxed iframes and data: URLs send Origin: null");
    assert.equal(checkCsrf({ method: "DELETE", headers: new Headers({ host: "graft.example", origin: "http://evil.example" }) }).ok, false);
  });
  test("same-origin requests, safe methods, non-browser clients and allowed origins pass", () => {
    assert.equal(post({ "sec-fetch-site": "same-origin", origin: "http://graft.example" }).ok, true);
    assert.equal(post({ origin: "https://graft.example" }).ok, true);
    assert.equal(post({}).ok, true, "curl and the CLI send neither header");
    assert.equal(checkCsrf({ method: "GET", headers: new Headers({ "sec-fetch-site": "cross-site" }) }).ok, true, "GETs change nothing");
    assert.equal(
      checkCsrf({
        method: "POST",
        headers: new Headers({ host: "internal:3000", "sec-fetch-site": "cross-site", origin: "https://graft.example" }),
        allowedOrigins: ["https://graft.example"],
      }).ok,
      true,
      "a deployment behind a proxy lists its public origin",
    );
  });
});

describe("request screen", () => {
  test("a flood of queries from one client gets 429 with Retry-After; other clients are unaffected", async () => {
    const screen = createScreen(settings({ buckets: { ...settings().buckets, query: { perMinute: 60, burst: 5 } } }));
    const from = (ip: string) => req("GET", "/api/papers/acl/P1/related", { "x-forwarded-for": ip });
    const verdicts: ScreenVerdict[] = [];
    for (let i = 0; i < 8; i++) verdicts.push(await screen.check(from("198.51.100.1")));
    assert.deepEqual(
      verdicts.map((v) => (v.ok ? 200 : v.status)),
      [200, 200, 200, 200, 200, 429, 429, 429],
    );
    const refused = verdicts[7];
    assert.ok(!refused.ok);
    assert.equal(refused.code, "rate_limited");
    assert.ok(Number(refused.headers["Retry-After"]) >= 1);
    assert.equal((await screen.check(from("198.51.100.2"))).ok, true);
    assert.equal((await screen.check(req("GET", "/api/papers?q=x", { "x-forwarded-for": "198.51.100.1" }))).ok, true, "browsing is not a query route");
  });

  test("too many sign-in attempts: the refusal names the address, says that even the right password waits, and for how long", async () => {
    const screen = createScreen(settings({ buckets: { ...settings().buckets, auth: { perMinute: 10, burst: 3 } } }));
    const login = () =>
      screen.check(req("POST", "/api/auth/login", { "x-forwarded-for": "198.51.100.7", "content-type": "application/json", "content-length": "40" }));
    for (let i = 0; i < 3; i++) assert.equal((await login()).ok, true);
    const refused = await login();
    assert.ok(!refused.ok);
    assert.equal(refused.status, 429);
    assert.equal(refused.code, "rate_limited");
    const wait = Number(refused.headers["Retry-After"]);
    assert.ok(wait >= 1);
    assert.equal(
      refused.message,
      `Too many sign-in attempts from your network address (198.51.100.7). Signing in from it is paused for ${wait} s, and until then even the right password is refused; wait, then try again.`,
    );
  });

  test("signing out and the session probe do not use up the sign-in allowance", async () => {
    const screen = createScreen(settings({ buckets: { ...settings().buckets, auth: { perMinute: 10, burst: 2 } } }));
    const post = (path: string) =>
      screen.check(req("POST", path, { "x-forwarded-for": "198.51.100.8", "content-type": "application/json", "content-length": "2" }));
    for (let i = 0; i < 50; i++) assert.equal((await post("/api/auth/logout")).ok, true);
    assert.equal((await post("/api/auth/login")).ok, true);
    assert.equal((await post("/api/auth/login")).ok, true);
    assert.equal((await post("/api/auth/login")).ok, false, "the allowance is the sign-ins' own");
    assert.equal(routePolicy("POST", "/api/auth/logout", "application/json", settings()).rate, undefined);
    assert.equal(routePolicy("POST", "/login", "application/x-www-form-urlencoded", settings()).rate, "auth");
  });

  test("cross-site POSTs are refused before any rate or size check", async () => {
    const screen = createScreen(settings());
    const v = await screen.check(
      req("POST", "/api/admin/jobs", {
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site",
        "content-type": "application/json",
        "content-length": "10",
      }),
    );
    assert.ok(!v.ok);
    assert.equal(v.status, 403);
  });

  test("bodies: oversized → 413, unbounded chunked → 411, odd types → 415; uploads get the upload limit", async () => {
    const s = settings({ maxJsonBytes: 1024, maxUploadBytes: 10_000 });
    const screen = createScreen(s);
    const status = async (v: Promise<ScreenVerdict>) => ((await v).ok ? 200 : ((await v) as { status: number }).status);
    assert.equal(await status(screen.check(req("POST", "/api/corpora", { "content-type": "application/json", "content-length": "2000" }))), 413);
    assert.equal(await status(screen.check(req("POST", "/api/admin/jobs", { "content-type": "application/json", "content-length": String(65 * 1024) }))), 413);
    assert.equal(await status(screen.check(req("POST", "/api/related", { "content-type": "multipart/form-data; boundary=x", "content-length": "9000" }))), 200);
    assert.equal(
      await status(screen.check(req("POST", "/api/related", { "content-type": "multipart/form-data; boundary=x", "content-length": "10001" }))),
      413,
    );
    // The admin's corpus upload takes a papers file: the upload limit, not the admin JSON cap.
    assert.equal(
      await status(screen.check(req("POST", "/api/admin/corpora/import", { "content-type": "multipart/form-data; boundary=x", "content-length": "9000" }))),
      200,
    );
    assert.equal(
      await status(screen.check(req("POST", "/api/admin/corpora/import", { "content-type": "multipart/form-data; boundary=x", "content-length": "10001" }))),
      413,
    );
    assert.equal(await status(screen.check(req("POST", "/api/related", { "content-type": "application/json", "transfer-encoding": "chunked" }))), 411);
    assert.equal(await status(screen.check(req("POST", "/api/related", { "content-type": "text/html", "content-length": "50" }))), 415);
    assert.equal(await status(screen.check(req("POST", "/api/related", { "content-type": "application/json", "content-length": "abc" }))), 400);
    assert.equal(await status(screen.check(req("GET", "/papers/acl/P1"))), 200);
  });

  test("uploads have their own, tighter rate", () => {
    assert.equal(routePolicy("POST", "/api/related", "multipart/form-data; boundary=z", settings()).rate, "upload");
    assert.equal(routePolicy("POST", "/api/related", "application/json", settings()).rate, "query");
    assert.equal(
      routePolicy("POST", "/api/related", "application/json", settings(), 5 * 1024 * 1024).rate,
      "upload",
      "a pasted 5 MB paper costs what an upload costs",
    );
    assert.equal(routePolicy("POST", "/api/auth/login", "application/json", settings()).rate, "auth");
    assert.equal(routePolicy("GET", "/api/corpora", "", settings()).rate, undefined);
  });

  test("huge URLs and parameter floods are refused", async () => {
    const screen = createScreen(settings());
    const long = await screen.check(req("GET", `/api/papers?q=${"a".repeat(5000)}`));
    assert.ok(!long.ok && long.status === 414);
    const many = await screen.check(req("GET", `/api/papers?${Array.from({ length: 100 }, (_, i) => `p${i}=1`).join("&")}`));
    assert.ok(!many.ok && many.status === 400);
  });

  test("GRAFT_RATE_LIMITS=off lifts the rate limits (benchmarks), nothing else", async () => {
    const screen = createScreen(screenSettingsFromEnv({ GRAFT_RATE_LIMITS: "off" }));
    for (let i = 0; i < 200; i++) assert.ok((await screen.check(req("GET", "/api/papers/acl/P1/related"))).ok);
    assert.equal((await screen.check(req("POST", "/api/related", { origin: "https://evil.example" }))).ok, false);
  });
});

describe("secret redaction", () => {
  test("passwords in URLs, bearer tokens, API keys and secret env values are cut out", () => {
    assert.equal(redactSecrets("connect postgresql://graft:s3cret@db:5432/graft"), "connect postgresql://graft:***@db:5432/graft");
    assert.equal(redactSecrets("Authorization: Bearer abc.def.ghi"), "Authorization: ***");
    assert.equal(redactSecrets('{"api_key": "zzzzzzzz"}'), '{"api_key": "***"}');
    assert.equal(redactSecrets("key sk-proj-0123456789abcdefghij used"), "key sk-*** used");
    process.env.GRAFT_TEST_SECRET_TOKEN = "tok-4815162342";
    try {
      assert.equal(redactSecrets("sent tok-4815162342 upstream"), "sent *** upstream");
    } finally {
      delete process.env.GRAFT_TEST_SECRET_TOKEN;
    }
    assert.equal(redactSecrets("a plain message"), "a plain message");
  });
});
