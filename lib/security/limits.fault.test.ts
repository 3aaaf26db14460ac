import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { createDb, type Db } from "@/lib/db";
import { Limit } from "@/lib/db/rate-limits";
import { createTestDb, type TestDb } from "@/lib/db/testing";
import { repoRoot } from "@/lib/paths";
import { trustedProxies } from "./client";
import { addressLimits, createScreen, type RateClass, type Screen, screenSettingsFromEnv, type ScreenSettings } from "./screen";

// Issue 28: forged X-Forwarded-For headers on ~1,500 sign-out posts emptied the shared sign-in
// allowance, and each instance counted its own limits (65 queries through two instances of 30).
// Here two "instances" are two Prisma clients on one store, as two processes would be.

const { appendPeer } = (await import(path.join(repoRoot, "scripts/server.mjs"))) as { appendPeer(req: IncomingMessage): void };

let t: TestDb;
let second: Db;
const servers: Server[] = [];
before(async () => {
  t = await createTestDb();
  second = createDb(t.config);
});
after(async () => {
  for (const s of servers) s.close();
  await second.$disconnect();
  await t.cleanup();
});

const settingsWith = (bucket: Partial<Record<RateClass, { perMinute: number; burst: number }>>, trusted: string[] = []): ScreenSettings => {
  const s = screenSettingsFromEnv({});
  return { ...s, buckets: { ...s.buckets, ...bucket }, trusted: trustedProxies(trusted) };
};

/** An instance: its own client on the shared store, its own screen. */
const instance = (db: Db, s: ScreenSettings): Screen => createScreen(s, addressLimits(s.buckets, db));

/**
 * A loopback HTTP server like scripts/server.mjs in front of proxy.ts: the peer appended to
 * X-Forwarded-For, then the screen; an allowed request answers 200.
 */
async function serve(screen: Screen): Promise<string> {
  const server = createServer((req, res) => {
    appendPeer(req);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    void screen.check({ method: req.method ?? "GET", url: new URL(req.url ?? "/", "http://127.0.0.1"), headers }).then((v) => {
      res.writeHead(v.ok ? 200 : v.status, v.headers).end(v.ok ? "" : v.message);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const post = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" }).then(async (r) => ({
    status: r.status,
    retryAfter: r.headers.get("retry-after"),
    text: await r.text(),
  }));

describe("limits shared by all instances, keyed by the real address", () => {
  test("two instances on one store together allow the limit once (30 queries of 65), not once each", async () => {
    const s = settingsWith({ query: { perMinute: 60, burst: 30 } });
    const [a, b] = [instance(t.db, s), instance(second, s)];
    const query = { method: "GET", url: new URL("http://127.0.0.1/api/papers/acl/P1/related"), headers: new Headers({ "x-forwarded-for": "198.51.100.20" }) };
    const verdicts = await Promise.all(Array.from({ length: 65 }, (_, i) => (i % 2 ? a : b).check(query)));
    assert.equal(verdicts.filter((v) => v.ok).length, 30);
    const refused = verdicts.find((v) => !v.ok);
    assert.ok(refused && !refused.ok && refused.status === 429 && Number(refused.headers["Retry-After"]) >= 1);
  });

  test("forged X-Forwarded-For from a client that is not a trusted proxy is ignored: 40 forged addresses share one allowance", async () => {
    const base = await serve(instance(t.db, settingsWith({ auth: { perMinute: 10, burst: 5 } })));
    const results = [];
    for (let i = 0; i < 40; i++) results.push(await post(`${base}/api/auth/login`, { "x-forwarded-for": `10.66.${i}.1` }));
    assert.equal(results.filter((r) => r.status === 200).length, 5);
    const refused = results.at(-1)!;
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.retryAfter) >= 1);
    assert.match(refused.text, /from your network address \(127\.0\.0\.1\)/, "the limit named, with the address it counted");
  });

  test("behind a trusted proxy, the address that proxy recorded is the client", async () => {
    const base = await serve(instance(t.db, settingsWith({ auth: { perMinute: 10, burst: 2 } }, ["loopback"])));
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(`${base}/api/auth/login`, { "x-forwarded-for": `203.0.113.${i % 3}` })).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200], "three clients, two attempts each");
    assert.equal((await post(`${base}/api/auth/login`, { "x-forwarded-for": "203.0.113.0" })).status, 429);
  });

  test("1,500 forged sign-out posts leave signing in open to everyone", async () => {
    const s = settingsWith({ auth: { perMinute: 10, burst: 3 } });
    // The store still holds this address's sign-ins from the test above: start it afresh.
    await new Limit("auth:addr", s.buckets.auth, t.db).reset("127.0.0.1");
    const base = await serve(instance(t.db, s));
    for (let round = 0; round < 15; round++) {
      const batch = await Promise.all(Array.from({ length: 100 }, (_, i) => post(`${base}/api/auth/logout`, { "x-forwarded-for": `10.77.${round}.${i}` })));
      assert.ok(batch.every((r) => r.status === 200));
    }
    assert.equal((await post(`${base}/api/auth/login`)).status, 200);
  });
});
