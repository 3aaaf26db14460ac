import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clientKey, normaliseAddress, trustedProxyHops } from "./client";
import { checkCsrf } from "./csrf";
import { TokenBucketLimiter, parseBucketSpec } from "./rate-limit";
import { redactSecrets } from "./redact";
import { createScreen, routePolicy, screenSettingsFromEnv, type ScreenSettings } from "./screen";

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

describe("token bucket", () => {
  test("a burst passes, the next request waits, and the bucket refills at the set rate", () => {
    const l = new TokenBucketLimiter({ perMinute: 60, burst: 3 });
    const t = 1_000_000;
    assert.deepEqual(
      [0, 1, 2].map((i) => l.take("a", t + i).allowed),
      [true, true, true],
    );
    const denied = l.take("a", t + 3);
    assert.equal(denied.allowed, false);
    assert.equal(denied.retryAfterSec, 1, "one token per second at 60/min");
    assert.equal(l.take("b", t + 3).allowed, true, "another client has its own bucket");
    assert.equal(l.take("a", t + 1003).allowed, true, "refilled after a second");
    assert.equal(l.take("a", t + 1004).allowed, false);
  });

  test("forged client keys cannot grow memory past the cap", () => {
    const l = new TokenBucketLimiter({ perMinute: 60, burst: 5 }, 1000);
    for (let i = 0; i < 10_000; i++) l.take(`forged-${i}`, 5_000_000 + i);
    assert.ok(l.size <= 1000, `tracked ${l.size}`);
  });

  test("limits parse from the environment; typos are errors, not silent removals", () => {
    assert.deepEqual(parseBucketSpec("120:40", { perMinute: 1, burst: 1 }, "X"), { perMinute: 120, burst: 40 });
    assert.deepEqual(parseBucketSpec("30", { perMinute: 1, burst: 1 }, "X"), { perMinute: 30, burst: 15 });
    assert.equal(parseBucketSpec("off", { perMinute: 1, burst: 1 }, "X").perMinute, 0);
    assert.throws(() => parseBucketSpec("lots", { perMinute: 1, burst: 1 }, "GRAFT_RATE_QUERY"), /GRAFT_RATE_QUERY/);
    assert.throws(() => screenSettingsFromEnv({ GRAFT_TRUSTED_PROXIES: "-1" }), /GRAFT_TRUSTED_PROXIES/);
    assert.equal(trustedProxyHops({ GRAFT_TRUSTED_PROXIES: "2" }), 2);
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

  test("behind N trusted proxies the Nth address from the right is used: a forged prefix changes nothing", () => {
    const h = (xff: string) => new Headers({ "x-forwarded-for": xff });
    assert.equal(clientKey(h("203.0.113.9"), 0), "203.0.113.9");
    assert.equal(clientKey(h("1.1.1.1, 203.0.113.9"), 1), "203.0.113.9", "the proxy appended the real address");
    assert.equal(clientKey(h("6.6.6.6, 7.7.7.7, 203.0.113.9"), 1), "203.0.113.9");
    assert.equal(clientKey(h("6.6.6.6, 203.0.113.9, 10.0.0.2"), 2), "203.0.113.9", "two proxies: the outer one wrote it");
    assert.equal(clientKey(new Headers(), 0), "unknown");
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
  test("a flood of queries from one client gets 429 with Retry-After; other clients are unaffected", () => {
    const screen = createScreen(settings({ buckets: { ...settings().buckets, query: { perMinute: 60, burst: 5 } } }));
    const now = 2_000_000;
    const from = (ip: string) => req("GET", "/api/papers/acl/P1/related", { "x-forwarded-for": ip });
    const verdicts = Array.from({ length: 8 }, (_, i) => screen.check({ ...from("198.51.100.1"), now: now + i }));
    assert.deepEqual(
      verdicts.map((v) => (v.ok ? 200 : v.status)),
      [200, 200, 200, 200, 200, 429, 429, 429],
    );
    const refused = verdicts[7];
    assert.ok(!refused.ok);
    assert.equal(refused.code, "rate_limited");
    assert.ok(Number(refused.headers["Retry-After"]) >= 1);
    assert.equal(screen.check({ ...from("198.51.100.2"), now }).ok, true);
    assert.equal(screen.check({ ...req("GET", "/api/papers?q=x", { "x-forwarded-for": "198.51.100.1" }), now }).ok, true, "browsing is not a query route");
  });

  test("too many sign-in attempts: the refusal says that even the right password waits, and for how long", () => {
    const screen = createScreen(settings({ buckets: { ...settings().buckets, auth: { perMinute: 10, burst: 3 } } }));
    const login = () =>
      screen.check({
        ...req("POST", "/api/auth/login", { "x-forwarded-for": "198.51.100.7", "content-type": "application/json", "content-length": "40" }),
        now: 4_000_000,
      });
    for (let i = 0; i < 3; i++) assert.equal(login().ok, true);
    const refused = login();
    assert.ok(!refused.ok);
    assert.equal(refused.status, 429);
    assert.equal(refused.code, "rate_limited");
    const wait = Number(refused.headers["Retry-After"]);
    assert.ok(wait >= 1);
    assert.equal(
      refused.message,
      `Too many sign-in attempts from your network address. Signing in is paused for ${wait} s, and until then even the right password is refused; wait, then try again.`,
    );
  });

  test("forged addresses cannot exceed the class's global budget", () => {
    const s = settings({ buckets: { ...settings().buckets, query: { perMinute: 60, burst: 2 } }, globalFactor: 3 });
    const screen = createScreen(s);
    let allowed = 0;
    for (let i = 0; i < 50; i++)
      if (
        screen.check({
          ...req("POST", "/api/related", { "x-forwarded-for": `10.9.${i}.1`, "content-type": "application/json", "content-length": "20" }),
          now: 3_000_000,
        }).ok
      )
        allowed++;
    assert.equal(allowed, 6, "burst 2 × global factor 3");
  });

  test("cross-site POSTs are refused before any rate or size check", () => {
    const screen = createScreen(settings());
    const v = screen.check(
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

  test("bodies: oversized → 413, unbounded chunked → 411, odd types → 415; uploads get the upload limit", () => {
    const s = settings({ maxJsonBytes: 1024, maxUploadBytes: 10_000 });
    const screen = createScreen(s);
    const status = (v: ReturnType<typeof screen.check>) => (v.ok ? 200 : v.status);
    assert.equal(status(screen.check(req("POST", "/api/corpora", { "content-type": "application/json", "content-length": "2000" }))), 413);
    assert.equal(status(screen.check(req("POST", "/api/admin/jobs", { "content-type": "application/json", "content-length": String(65 * 1024) }))), 413);
    assert.equal(status(screen.check(req("POST", "/api/related", { "content-type": "multipart/form-data; boundary=x", "content-length": "9000" }))), 200);
    assert.equal(status(screen.check(req("POST", "/api/related", { "content-type": "multipart/form-data; boundary=x", "content-length": "10001" }))), 413);
    // The admin's corpus upload takes a papers file: the upload limit, not the admin JSON cap.
    assert.equal(
      status(screen.check(req("POST", "/api/admin/corpora/import", { "content-type": "multipart/form-data; boundary=x", "content-length": "9000" }))),
      200,
    );
    assert.equal(
      status(screen.check(req("POST", "/api/admin/corpora/import", { "content-type": "multipart/form-data; boundary=x", "content-length": "10001" }))),
      413,
    );
    assert.equal(status(screen.check(req("POST", "/api/related", { "content-type": "application/json", "transfer-encoding": "chunked" }))), 411);
    assert.equal(status(screen.check(req("POST", "/api/related", { "content-type": "text/html", "content-length": "50" }))), 415);
    assert.equal(status(screen.check(req("POST", "/api/related", { "content-type": "application/json", "content-length": "abc" }))), 400);
    assert.equal(status(screen.check(req("GET", "/papers/acl/P1"))), 200);
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

  test("huge URLs and parameter floods are refused", () => {
    const screen = createScreen(settings());
    const long = screen.check(req("GET", `/api/papers?q=${"a".repeat(5000)}`));
    assert.ok(!long.ok && long.status === 414);
    const many = screen.check(req("GET", `/api/papers?${Array.from({ length: 100 }, (_, i) => `p${i}=1`).join("&")}`));
    assert.ok(!many.ok && many.status === 400);
  });

  test("GRAFT_RATE_LIMITS=off lifts the rate limits (benchmarks), nothing else", () => {
    const screen = createScreen(screenSettingsFromEnv({ GRAFT_RATE_LIMITS: "off" }));
    for (let i = 0; i < 200; i++) assert.ok(screen.check(req("GET", "/api/papers/acl/P1/related")).ok);
    assert.equal(screen.check(req("POST", "/api/related", { origin: "https://evil.example" })).ok, false);
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
