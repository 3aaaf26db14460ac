import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "@/lib/http/client";
import { runRequest, type RequestOptions } from "./use-request";

/** Runs a request against recorded state: the pending flags and error messages in the order set. */
async function record(request: () => Promise<void>, options: RequestOptions) {
  const pending: boolean[] = [];
  const errors: (string | null)[] = [];
  await runRequest(request, { setPending: (p) => pending.push(p), setError: (e) => errors.push(e) }, options);
  return { pending, errors };
}

test("a request clears the last error and is pending while it runs; it settles unless it leaves the page", async () => {
  assert.deepEqual(await record(async () => {}, { fallback: "x" }), { pending: [true, false], errors: [null] });
  assert.deepEqual(await record(async () => {}, { fallback: "x", leavesPage: true }), { pending: [true], errors: [null] });
});

test("a failure shows the server's message, or the form's fallback for anything else, and always settles", async () => {
  const seen: unknown[] = [];
  const limited = new ApiError(429, "rate_limited", "Too many attempts.", [], 30);
  const r = await record(
    async () => {
      throw limited;
    },
    { fallback: "Could not sign in.", leavesPage: true, onError: (err) => seen.push(err) },
  );
  assert.deepEqual(r, { pending: [true, false], errors: [null, "Too many attempts."] });
  assert.deepEqual(seen, [limited]);
  const other = await record(
    async () => {
      throw new TypeError("fetch failed");
    },
    { fallback: "Could not sign in." },
  );
  assert.deepEqual(other, { pending: [true, false], errors: [null, "Could not sign in."] });
});
