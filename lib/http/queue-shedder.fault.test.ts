import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { Agent, type IncomingMessage, type ServerResponse } from "node:http";
import { after, describe, test } from "node:test";
import { SERVER, send, startFront, until } from "@/lib/http/testing";

// Issue 28: 32 keep-alive clients queued ≈ 1 s each behind one another's synchronous queries.
// scripts/server.mjs's front process sheds a query the backend would keep waiting longer than
// GRAFT_MAX_QUEUE_MS, and answers it at once: the front never does query work, so a 503 does not
// wait for the backend's ≈ 30 ms of synchronous work to end (shed in the same process, it did).

type Shed = (req: IncomingMessage, res: ServerResponse) => boolean;
const { queryShedder } = (await import(SERVER)) as {
  queryShedder(o: { maxMs: number; retryAfterSec?: number; repeatPauseMs?: number; now?: () => number }): Shed;
};

/** A response that records what the shedder wrote; `close()` is its answer complete. */
function response() {
  const out = { status: 0, headers: {} as Record<string, string>, body: "" };
  const res = Object.assign(new EventEmitter(), {
    writeHead(status: number, headers: Record<string, string>) {
      Object.assign(out, { status, headers });
      return res;
    },
    end(body: string) {
      out.body = body;
    },
  });
  return { res: res as unknown as ServerResponse, out, close: () => res.emit("close") };
}
const query = (url = "/api/related", socket: object = {}) => ({ url, socket }) as unknown as IncomingMessage;

describe("the front's query shedder", () => {
  test("with nothing learnt a query is taken to cost the limit: one waits behind another, a third is answered 503 busy with Retry-After", () => {
    const shed = queryShedder({ maxMs: 100, now: () => 0 });
    const first = response();
    assert.equal(shed(query(), first.res), false, "nothing in flight: forwarded");
    assert.equal(shed(query(), response().res), false, "one ahead, ≈ 100 ms: forwarded");
    const third = response();
    assert.equal(shed(query("/api/papers/acl/P1/related?k=5"), third.res), true, "two ahead: shed (the corpus-paper route too)");
    assert.equal(third.out.status, 503);
    assert.equal(third.out.headers["retry-after"], "1");
    const { error } = JSON.parse(third.out.body) as { error: { code: string; message: string } };
    assert.equal(error.code, "busy");
    assert.match(error.message, /2 queries in hand/);
  });

  test("the time per query is learnt from the answers (the median: a cold start does not count), and the queue is kept to the limit", () => {
    let t = 0;
    const shed = queryShedder({ maxMs: 100, now: () => t });
    const cold = response();
    shed(query(), cold.res);
    t = 3000;
    cold.close(); // loading the build: 3 s
    for (let i = 0; i < 4; i++) {
      const r = response();
      shed(query(), r.res);
      t += 30;
      r.close();
    }
    // Median of 3000, 30, 30, 30, 30: 30 ms a query. Up to three ahead (90 ms): forwarded; four (120 ms): shed.
    const inHand = [response(), response(), response(), response()];
    for (const r of inHand) assert.equal(shed(query(), r.res), false);
    assert.equal(shed(query(), response().res), true, "four ahead");
    t += 30;
    inHand[0].close();
    assert.equal(shed(query(), response().res), false, "one answered: room again");
  });

  test("a backend stuck on one query longer than the limit: the next is shed whatever the count", () => {
    let t = 0;
    const shed = queryShedder({ maxMs: 100, now: () => t });
    const quick = response();
    shed(query(), quick.res);
    t = 10;
    quick.close(); // 10 ms a query
    shed(query(), response().res);
    t = 50;
    assert.equal(shed(query(), response().res), false, "one ahead for 40 ms");
    t = 150;
    assert.equal(shed(query(), response().res), true, "the oldest has been in flight 140 ms");
  });

  test("a connection refused and asking again within Retry-After gets its refusal after a pause of 0.4 × the limit; others and later ones at once", async () => {
    let t = 0;
    const shed = queryShedder({ maxMs: 100, now: () => t });
    shed(query(), response().res);
    shed(query(), response().res);
    const socket = {};
    const first = response();
    assert.equal(shed(query("/api/related", socket), first.res), true);
    assert.equal(first.out.status, 503, "its first refusal: at once");
    t = 5;
    const again = response();
    const asked = performance.now();
    assert.equal(shed(query("/api/related", socket), again.res), true);
    assert.equal(again.out.status, 0, "asked again at once: not answered yet");
    const other = response();
    shed(query("/api/related", {}), other.res);
    assert.equal(other.out.status, 503, "another connection: at once");
    await until(() => again.out.status === 503);
    assert.ok(performance.now() - asked >= 39, "after the pause (40 ms)");
    assert.equal(again.out.headers["retry-after"], "1");
    t = 1500;
    const later = response();
    shed(query("/api/related", socket), later.res);
    assert.equal(later.out.status, 503, "after Retry-After: at once again");
  });

  test("pages and other routes always pass, and 0 turns it off", () => {
    const shed = queryShedder({ maxMs: 100, now: () => 0 });
    for (let i = 0; i < 5; i++) shed(query(), response().res);
    for (const url of ["/", "/paper/acl/P1", "/api/auth/sign-in", "/api/relatedness", "/api/related-things"])
      assert.equal(shed(query(url), response().res), false, url);
    const off = queryShedder({ maxMs: 0, now: () => 0 });
    for (let i = 0; i < 20; i++) assert.equal(off(query(), response().res), false);
  });
});

describe("scripts/server.mjs under a burst, in front of a slow backend", () => {
  const fronts: Awaited<ReturnType<typeof startFront>>[] = [];
  after(() => fronts.forEach((f) => f.proc.kill("SIGKILL")));

  test("24 queries at once on a backend that holds its event loop 200 ms per query: the ones it has no room for get 503 + Retry-After within 100 ms", async () => {
    const front = await startFront(["--work-ms", "200"], { GRAFT_MAX_QUEUE_MS: "100" });
    fronts.push(front);
    // 24 keep-alive clients, connected first (as bench:load's are): the time is the answer's, not the connection's set-up.
    const clients = Array.from({ length: 24 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    after(() => clients.forEach((c) => c.destroy()));
    await Promise.all(clients.map((agent) => send(front.port, "GET", "/connect", "", {}, agent)));
    const answers = await Promise.all(clients.map((agent) => send(front.port, "POST", "/api/related", "{}", {}, agent)));
    const served = answers.filter((a) => a.status === 200);
    const shed = answers.filter((a) => a.status === 503);
    assert.equal(served.length + shed.length, 24, `statuses: ${answers.map((a) => a.status).join(" ")}`);
    // Nothing learnt yet: one in work and one behind it; a third only if it arrives after both are answered.
    assert.ok(served.length >= 1 && served.length <= 3, `forwarded: ${served.length}`);
    for (const a of shed) {
      assert.equal(a.headers["retry-after"], "1");
      assert.equal((JSON.parse(a.body) as { error: { code: string } }).error.code, "busy");
    }
    const slowest = Math.max(...shed.map((a) => a.ms));
    assert.ok(slowest < 100, `the slowest 503 took ${Math.round(slowest)} ms (the backend's work: 200 ms a query)`);
    assert.ok(Math.min(...served.map((a) => a.ms)) >= 200, "the served ones did wait for the backend's work");
  });

  test("a keep-alive client that ignores Retry-After and resends at once gets its next 503 after the pause, still within 100 ms", async () => {
    const front = await startFront(["--work-ms", "300"], { GRAFT_MAX_QUEUE_MS: "100" });
    fronts.push(front);
    const busy = [send(front.port, "POST", "/api/related", "{}"), send(front.port, "POST", "/api/related", "{}")];
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      let first = await send(front.port, "POST", "/api/related", "{}", {}, agent);
      while (first.status !== 503) first = await send(front.port, "POST", "/api/related", "{}", {}, agent);
      const again = await send(front.port, "POST", "/api/related", "{}", {}, agent);
      assert.equal(again.status, 503);
      assert.equal(again.headers["retry-after"], "1");
      assert.ok(again.ms >= 39 && again.ms < 100, `the repeated refusal took ${Math.round(again.ms)} ms (pause 40 ms)`);
    } finally {
      agent.destroy();
      await Promise.all(busy);
    }
  });
});
