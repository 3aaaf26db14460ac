import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { NotFoundError, paperListQuery } from "@/lib/corpus";
import { CodedError } from "@/lib/errors";
import { errorResponse, handleRoute, jsonError, parseSearchParams, searchParamsObject, type ApiErrorBody } from "./respond";

async function body(res: Response): Promise<ApiErrorBody> {
  return (await res.json()) as ApiErrorBody;
}

// Silence the deliberate 500-path logging but keep what was logged for assertions.
function captureConsoleError(): { lines: unknown[][]; restore: () => void } {
  const original = console.error;
  const lines: unknown[][] = [];
  console.error = (...args: unknown[]) => void lines.push(args);
  return { lines, restore: () => (console.error = original) };
}

test("jsonError builds the typed error body with no-store caching", async () => {
  const res = jsonError(404, "not_found", "no such paper");
  assert.equal(res.status, 404);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.deepEqual(await body(res), { error: { code: "not_found", message: "no such paper" } });
});

test("searchParamsObject drops empty values and keeps the first of repeated keys", () => {
  const params = new URLSearchParams("q=parsing&yearFrom=&venue=%20&page=2&page=3");
  assert.deepEqual(searchParamsObject(params), { q: "parsing", page: "2" });
});

test("parseSearchParams applies the schema's coercion and defaults", () => {
  const q = parseSearchParams(paperListQuery, new URLSearchParams("yearFrom=2015&page=3"));
  assert.equal(q.yearFrom, 2015);
  assert.equal(q.page, 3);
  assert.equal(q.pageSize, 20);
  assert.equal(q.corpus, "acl-citegraph");
});

test("handleRoute turns a zod failure into 400 invalid_request with issue paths", async () => {
  const route = handleRoute(async (req: Request) => parseSearchParams(paperListQuery, new URL(req.url).searchParams));
  const res = await route(new Request("http://x/api/papers?yearFrom=abc"));
  assert.equal(res.status, 400);
  const b = await body(res);
  assert.equal(b.error.code, "invalid_request");
  assert.match(b.error.message, /^Invalid request: yearFrom: /);
  assert.equal(b.error.issues?.[0]?.path, "yearFrom");
});

test("whole-object refinements report their own path", async () => {
  const route = handleRoute(async (req: Request) => parseSearchParams(paperListQuery, new URL(req.url).searchParams));
  const b = await body(await route(new Request("http://x/api/papers?yearFrom=2019&yearTo=2010")));
  assert.deepEqual(b.error.issues, [{ path: "yearFrom", message: "yearFrom must not be after yearTo" }]);
  const bare = z.object({ a: z.number() }).refine(() => false, { message: "never" });
  const res = errorResponse(bare.safeParse({ a: 1 }).error);
  assert.deepEqual((await body(res)).error.issues, [{ path: "(root)", message: "never" }]);
});

test("handleRoute sends plain values as JSON and passes Responses through", async () => {
  const ok = await handleRoute(async () => ({ corpora: [] }))();
  assert.equal(ok.status, 200);
  assert.deepEqual(await ok.json(), { corpora: [] });
  const custom = await handleRoute(async () => new Response("x", { status: 201 }))();
  assert.equal(custom.status, 201);
});

test("NotFoundError and a route's own CodedError keep their status and message", async () => {
  const nf = await handleRoute(async () => {
    throw new NotFoundError('no corpus named "x"');
  })();
  assert.equal(nf.status, 404);
  assert.deepEqual(await body(nf), { error: { code: "not_found", message: 'no corpus named "x"' } });
  const he = errorResponse(new CodedError("not_found", "gone"));
  assert.equal(he.status, 404);
  assert.equal((await body(he)).error.message, "gone");
});

test("a missing table (never migrated) answers 503 not_ready with the fix", async () => {
  const res = errorResponse(Object.assign(new Error("The table `main.Corpus` does not exist"), { code: "P2021" }));
  assert.equal(res.status, 503);
  const b = await body(res);
  assert.equal(b.error.code, "not_ready");
  assert.match(b.error.message, /npm run graft -- db migrate/);
});

test("unexpected errors answer 500 without leaking, and are logged with a reference", async () => {
  const cap = captureConsoleError();
  try {
    const route = handleRoute(async (_req: Request) => {
      throw new Error("SQLITE_CORRUPT: secret path /var/db");
    });
    const res = await route(new Request("http://x/api/corpora"));
    assert.equal(res.status, 500);
    const b = await body(res);
    assert.equal(b.error.code, "internal");
    assert.match(b.error.message, /^Internal server error \(ref [0-9a-f]{8}\)$/);
    assert.doesNotMatch(JSON.stringify(b), /SQLITE|secret|stack/);
    assert.equal(cap.lines.length, 1);
    const ref = /ref ([0-9a-f]{8})/.exec(b.error.message)?.[1];
    assert.match(String(cap.lines[0]?.[0]), new RegExp(`GET /api/corpora failed \\(ref ${ref}\\)`));
  } finally {
    cap.restore();
  }
});
