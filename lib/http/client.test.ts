import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { ApiError, sendJson } from "./client";

describe("sendJson", () => {
  const realFetch = globalThis.fetch;
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it("sends the body as JSON with the method, keeps other init fields, and reads the JSON answer", async () => {
    let seen: { url: string; init: RequestInit } | undefined;
    globalThis.fetch = (async (url: string, init: RequestInit) => {
      seen = { url, init };
      return new Response(JSON.stringify({ id: 7 }), { status: 200, headers: { "content-type": "application/json" } });
    }) as typeof fetch;
    const signal = new AbortController().signal;
    const got = await sendJson<{ id: number }>("/api/x", "PATCH", { status: "open" }, { signal });
    assert.deepEqual(got, { id: 7 });
    assert.equal(seen?.url, "/api/x");
    assert.equal(seen?.init.method, "PATCH");
    assert.equal(seen?.init.body, '{"status":"open"}');
    assert.equal(seen?.init.signal, signal);
    assert.deepEqual(seen?.init.headers, { accept: "application/json", "content-type": "application/json" });
  });

  it("throws the server's typed error", async () => {
    globalThis.fetch = (async () =>
      new Response(JSON.stringify({ error: { code: "invalid_request", message: "bad status" } }), { status: 400 })) as typeof fetch;
    await assert.rejects(sendJson("/api/x", "POST", {}), (err: unknown) => err instanceof ApiError && err.status === 400 && err.message === "bad status");
  });
});
