import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { describe, test } from "node:test";
import { EventEmitter } from "node:events";
import { repoRoot } from "@/lib/paths";

// Issue 28: 32 keep-alive clients queued ≈ 1 s each behind one another's synchronous queries,
// and the concurrency gate never saw more than one in flight. The production server sheds a query
// that arrives while the event loop has been busy without a pause for longer than GRAFT_MAX_QUEUE_MS.

type Shed = (req: IncomingMessage, res: ServerResponse) => boolean;
const { queueShedder } = (await import(path.join(repoRoot, "scripts/server.mjs"))) as {
  queueShedder(o: { maxMs: number; retryAfterSec?: number; now?: () => number; idle?: () => number }): Shed;
};

/** A response that records what the shedder wrote; `finish()` is the answer going out. */
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
  return { res: res as unknown as ServerResponse, out, finish: () => res.emit("finish") };
}
const request = (url: string, socket: object = {}) => ({ url, socket }) as unknown as IncomingMessage;

describe("the production server's queue shedder", () => {
  test("a query read after the loop has been busy past the limit is answered 503 busy with Retry-After; the next pause resets it", () => {
    let t = 0;
    let idle = 0;
    const shed = queueShedder({ maxMs: 100, now: () => t, idle: () => idle });
    t = 50;
    assert.equal(shed(request("/api/related"), response().res), false, "busy 50 ms: worked on");
    t = 180;
    const { res, out } = response();
    assert.equal(shed(request("/api/related"), res), true, "busy 180 ms without a pause: shed");
    assert.equal(out.status, 503);
    assert.equal(out.headers["retry-after"], "1");
    assert.equal((JSON.parse(out.body) as { error: { code: string } }).error.code, "busy");
    assert.equal(shed(request("/api/papers/acl/P1/related?k=5"), response().res), true, "the corpus-paper route too");
    idle = 3; // the loop waited for input: whoever is read next did not wait behind a burst
    t = 400;
    assert.equal(shed(request("/api/related"), response().res), false);
    t = 450;
    assert.equal(shed(request("/api/related"), response().res), false, "50 ms since the pause");
  });

  test("a keep-alive client asking again at once waited behind no one: not shed however long the loop has been busy", () => {
    let t = 0;
    const shed = queueShedder({ maxMs: 100, now: () => t, idle: () => 0 });
    const socket = {};
    const first = response();
    t = 20;
    assert.equal(shed(request("/api/related", socket), first.res), false);
    t = 950;
    first.finish();
    t = 990;
    assert.equal(shed(request("/api/related", socket), response().res), false, "40 ms after its own answer");
    assert.equal(shed(request("/api/related", {}), response().res), true, "another connection read now waited up to 990 ms");
  });

  test("pages and other routes always pass, and 0 turns it off", () => {
    let t = 0;
    const shed = queueShedder({ maxMs: 100, now: () => t, idle: () => 0 });
    t = 10_000;
    for (const url of ["/", "/paper/acl/P1", "/api/auth/sign-in", "/api/relatedness", "/api/related-things"])
      assert.equal(shed(request(url), response().res), false, url);
    const off = queueShedder({ maxMs: 0, now: () => t, idle: () => 0 });
    t = 20_000;
    assert.equal(off(request("/api/related"), response().res), false);
  });
});
