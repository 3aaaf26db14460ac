import assert from "node:assert/strict";
import { test } from "node:test";
import { createChatClient, backoffMs, LlmRequestError, retryAfterMs, type ChatClientConfig } from "./client";
import { ApiKey } from "./config";
import { completion, sequence, startStubServer, stubServerStarter } from "./stub-server";

const stub = stubServerStarter();

/** Tiny backoff so retries cost milliseconds; a generous timeout (a busy machine can be slow on a
 * first request) that the timeout tests shorten. */
function cfg(baseUrl: string, over: Partial<ChatClientConfig> = {}): ChatClientConfig {
  return { baseUrl, apiKey: null, timeoutMs: 3000, maxRetries: 3, retryBaseDelayMs: 5, retryMaxDelayMs: 20, ...over };
}

const BODY = { model: "m", messages: [{ role: "user", content: "hi" }] };

test("success: POST {baseUrl}/chat/completions, content + usage + model returned", async () => {
  const s = await stub(() => completion("hello", { usage: { prompt_tokens: 11, completion_tokens: 3 }, model: "m-2025" }));
  const out = await createChatClient(cfg(s.baseUrl)).complete(BODY);
  assert.deepEqual(out, {
    content: "hello",
    refusal: null,
    finishReason: "stop",
    model: "m-2025",
    usage: { promptTokens: 11, completionTokens: 3 },
    attempts: 1,
  });
  assert.equal(s.requests.length, 1);
  assert.equal(s.requests[0].method, "POST");
  assert.equal(s.requests[0].path, "/v1/chat/completions");
  assert.equal(s.requests[0].headers["content-type"], "application/json");
  assert.deepEqual(s.requests[0].body, BODY);
});

test("Authorization: Bearer only when a key is set", async () => {
  const s = await stub(() => completion("x"));
  await createChatClient(cfg(s.baseUrl)).complete(BODY);
  await createChatClient(cfg(s.baseUrl, { apiKey: new ApiKey("sk-test-1") })).complete(BODY);
  assert.equal(s.requests[0].headers.authorization, undefined);
  assert.equal(s.requests[1].headers.authorization, "Bearer sk-test-1");
});

test("missing usage is reported as undefined, not zero", async () => {
  const s = await stub(() => completion("x", { usage: null }));
  const out = await createChatClient(cfg(s.baseUrl)).complete(BODY);
  assert.equal(out.usage, undefined);
});

test("429 with Retry-After seconds is honoured, then success", async () => {
  const s = await stub(sequence({ status: 429, headers: { "retry-after": "1" }, json: { error: { message: "slow down" } } }, completion("ok")));
  const t0 = Date.now();
  const out = await createChatClient(cfg(s.baseUrl)).complete(BODY);
  const waited = Date.now() - t0;
  assert.equal(out.content, "ok");
  assert.equal(out.attempts, 2);
  assert.ok(waited >= 950, `waited ${waited} ms, server asked for 1000`);
});

test("429 with an HTTP-date Retry-After, then success", async () => {
  // Second precision: 2-3 s away, so a loaded machine's slow stub start-up still leaves a wait.
  const at = new Date(Date.now() + 3000).toUTCString();
  const s = await stub(sequence({ status: 429, headers: { "retry-after": at }, text: "" }, completion("ok")));
  const t0 = Date.now();
  const out = await createChatClient(cfg(s.baseUrl)).complete(BODY);
  assert.equal(out.content, "ok");
  assert.ok(Date.now() - t0 >= 400, "waited for the date, not the 5 ms backoff");
});

test("500 then success; 503 then success", async () => {
  const s = await stub(sequence({ status: 500, json: { error: { message: "boom" } } }, { status: 503, text: "busy" }, completion("ok")));
  const out = await createChatClient(cfg(s.baseUrl)).complete(BODY);
  assert.equal(out.content, "ok");
  assert.equal(out.attempts, 3);
  assert.equal(s.requests.length, 3);
});

// The timeouts below leave a loaded machine time to answer the requests that do answer (at 100-150 ms,
// 4 runs of 6 beside each other failed); the stalled ones cost that time once each.
const SLOW_OK_MS = 1500;

test("a request that never answers times out and is retried", async () => {
  const s = await stub(sequence({ hang: true }, completion("ok")));
  const t0 = Date.now();
  const out = await createChatClient(cfg(s.baseUrl, { timeoutMs: SLOW_OK_MS })).complete(BODY);
  assert.equal(out.content, "ok");
  assert.equal(out.attempts, 2);
  assert.ok(Date.now() - t0 >= SLOW_OK_MS - 10);
});

test("a body that stalls after the headers also times out", async () => {
  const s = await stub(sequence({ ...completion("x"), stallBody: true }, completion("ok")));
  const out = await createChatClient(cfg(s.baseUrl, { timeoutMs: SLOW_OK_MS, maxRetries: 1 })).complete(BODY);
  assert.equal(out.content, "ok");
  const s2 = await stub(() => ({ ...completion("x"), stallBody: true }));
  await assert.rejects(
    createChatClient(cfg(s2.baseUrl, { timeoutMs: SLOW_OK_MS, maxRetries: 0 })).complete(BODY),
    new RegExp(`failed after 1 attempt: no answer within ${SLOW_OK_MS} ms \\(HTTP 200 headers arrived, body did not\\)`),
  );
});

test("401: no retry, the server's message and a hint", async () => {
  const s = await stub(() => ({
    status: 401,
    json: { error: { message: "Incorrect API key provided: sk-bad-key", type: "invalid_request_error" } },
  }));
  const client = createChatClient(cfg(s.baseUrl, { apiKey: new ApiKey("sk-bad-key") }));
  await assert.rejects(client.complete(BODY), (e: Error) => {
    assert.ok(e instanceof LlmRequestError);
    assert.equal(e.status, 401);
    assert.equal(e.attempts, 1);
    assert.match(e.message, /HTTP 401 Unauthorized: Incorrect API key provided/);
    assert.match(e.message, /check GRAFT_LLM_API_KEY/);
    assert.doesNotMatch(e.message, /sk-bad-key/, "the key is redacted even when the server echoes it");
    return true;
  });
  assert.equal(s.requests.length, 1);
});

test("400 / 404 are not retried either; other error body shapes are read", async () => {
  const s = await stub(sequence({ status: 400, json: { detail: "response_format not supported" } }, { status: 404, json: { error: "model 'x' not found" } }));
  const client = createChatClient(cfg(s.baseUrl));
  await assert.rejects(client.complete(BODY), /HTTP 400 Bad Request: response_format not supported/);
  await assert.rejects(client.complete(BODY), /HTTP 404 Not Found: model 'x' not found \(check GRAFT_LLM_BASE_URL and GRAFT_LLM_MODEL\)/);
  assert.equal(s.requests.length, 2);
});

test("retries run out: error names the attempts and the last failure", async () => {
  const s = await stub(() => ({ status: 502, text: "bad gateway" }));
  await assert.rejects(createChatClient(cfg(s.baseUrl, { maxRetries: 2 })).complete(BODY), (e: Error) => {
    assert.ok(e instanceof LlmRequestError);
    assert.equal(e.attempts, 3);
    assert.equal(e.status, 502);
    assert.match(e.message, /failed after 3 attempts: HTTP 502 Bad Gateway: bad gateway/);
    return true;
  });
  assert.equal(s.requests.length, 3);
});

test("connection refused is a transport error, retried, then reported", async () => {
  const s = await startStubServer(() => completion("x"));
  const dead = s.baseUrl;
  await s.close();
  await assert.rejects(createChatClient(cfg(dead, { maxRetries: 1 })).complete(BODY), (e: Error) => {
    assert.ok(e instanceof LlmRequestError);
    assert.equal(e.status, null);
    assert.equal(e.attempts, 2);
    assert.match(e.message, /could not reach .*: ECONNREFUSED/);
    return true;
  });
});

test("a 200 that is not a chat completion fails at once with a base-URL hint", async () => {
  const s = await stub(() => ({ text: "<html>Welcome</html>" }));
  await assert.rejects(createChatClient(cfg(s.baseUrl)).complete(BODY), /answered 200 without a chat completion \(is GRAFT_LLM_BASE_URL/);
  assert.equal(s.requests.length, 1);
});

test("aborting the caller's signal ends a hanging request and a backoff wait at once", async () => {
  const s = await stub(sequence({ hang: true }));
  const client = createChatClient(cfg(s.baseUrl, { timeoutMs: 10_000 }));
  const ac = new AbortController();
  const t0 = Date.now();
  setTimeout(() => ac.abort(new Error("stop now")), 50);
  await assert.rejects(client.complete(BODY, { signal: ac.signal }), /stop now/);
  // Well under the 10 s timeout and the 30 s retry-after, with room for a machine under load.
  assert.ok(Date.now() - t0 < 5000);

  const s2 = await stub(() => ({ status: 429, headers: { "retry-after": "30" }, text: "" }));
  const ac2 = new AbortController();
  setTimeout(() => ac2.abort(), 50);
  const t1 = Date.now();
  await assert.rejects(createChatClient(cfg(s2.baseUrl)).complete(BODY, { signal: ac2.signal }), { name: "AbortError" });
  assert.ok(Date.now() - t1 < 5000);
});

test("Retry-After parsing and backoff bounds", () => {
  const h = (o: Record<string, string>) => new Headers(o);
  const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");
  assert.equal(retryAfterMs(h({ "retry-after": "7" }), now), 7000);
  assert.equal(retryAfterMs(h({ "retry-after": "Wed, 21 Oct 2015 07:28:05 GMT" }), now), 5000);
  assert.equal(retryAfterMs(h({ "retry-after": "Wed, 21 Oct 2015 07:27:00 GMT" }), now), 0);
  assert.equal(retryAfterMs(h({ "retry-after-ms": "250", "retry-after": "9" }), now), 250);
  assert.equal(retryAfterMs(h({ "retry-after": "soon" }), now), null);
  assert.equal(retryAfterMs(h({}), now), null);
  assert.equal(
    backoffMs(0, 1000, 60_000, () => 0),
    500,
  );
  assert.equal(
    backoffMs(0, 1000, 60_000, () => 1),
    1000,
  );
  assert.equal(
    backoffMs(3, 1000, 60_000, () => 0.5),
    6000,
  );
  assert.equal(
    backoffMs(20, 1000, 60_000, () => 1),
    60_000,
  );
});
