import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AdmissionGate } from "./admission";

// Issue 28: under load, a query past the concurrency limit is refused at once (503 with
// Retry-After) instead of waiting behind the others until the client times out.

/** A request whose work finishes when the test says so. */
function slowWork() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const work = async () => {
    await done;
    return Response.json({ ok: true });
  };
  return { work, finish };
}

describe("the query admission gate", () => {
  test("limit 1, a slow request in flight: the next gets 503 + Retry-After within 100 ms; after it, the next is admitted", async () => {
    const gate = new AdmissionGate(1);
    const slow = slowWork();
    const first = gate.run(slow.work);
    const refuse = async () => {
      const started = performance.now();
      const res = await gate.run(() => assert.fail("a refused request must not run"));
      return { res, ms: performance.now() - started };
    };
    // The first Response this process builds loads the fetch implementation: a server is past that.
    await refuse();
    const refusals = [];
    for (let i = 0; i < 20; i++) refusals.push(await refuse());
    for (const { res } of refusals) {
      assert.equal(res.status, 503);
      assert.equal(res.headers.get("retry-after"), "1");
    }
    assert.equal(((await refusals[0].res.json()) as { error: { code: string } }).error.code, "busy");
    const slowest = Math.max(...refusals.map((r) => r.ms));
    assert.ok(slowest < 100, `the slowest refusal took ${slowest.toFixed(1)} ms`);
    slow.finish();
    assert.equal((await first).status, 200);
    assert.equal((await gate.run(async () => new Response("again"))).status, 200);
    assert.equal(gate.busy, 0);
  });

  test("a failing request gives its place back", async () => {
    const gate = new AdmissionGate(1);
    await assert.rejects(
      gate.run(async () => {
        throw new Error("boom");
      }),
      /boom/,
    );
    assert.equal(gate.busy, 0);
  });

  test("a streamed answer holds its place until it is read to the end, or until the client cancels it", async () => {
    const gate = new AdmissionGate(1);
    const streamed = (lines: string[]) => async () => new Response(new Blob(lines).stream(), { headers: { "content-type": "application/x-ndjson" } });
    const res = await gate.run(streamed(['{"step":"upload"}\n', '{"result":{}}\n']));
    assert.equal(gate.busy, 1, "the stream is still being produced");
    assert.equal((await gate.run(async () => new Response("x"))).status, 503);
    assert.equal(await res.text(), '{"step":"upload"}\n{"result":{}}\n');
    assert.equal(gate.busy, 0);
    const cancelled = await gate.run(streamed(['{"step":"upload"}\n']));
    await cancelled.body!.cancel();
    assert.equal(gate.busy, 0);
  });

  test("limit 0 admits everything", async () => {
    const gate = new AdmissionGate(0);
    const slow = slowWork();
    const inFlight = Array.from({ length: 20 }, () => gate.run(slow.work));
    assert.equal(gate.busy, 20);
    slow.finish();
    assert.deepEqual(
      (await Promise.all(inFlight)).map((r) => r.status),
      Array(20).fill(200),
    );
  });
});
