import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createTestDb, type TestDb } from "@/lib/db/testing";
import { handleRelatedRequest, ndjsonResponse } from "./request";
import type { RelatedResult } from "./types";

// Issue 28: a client that goes away mid-query or mid-upload must not produce an uncaught
// exception or an unhandled rejection (either kills a process whose handlers re-throw).

const stray: unknown[] = [];
const record = (err: unknown) => void stray.push(err);
let t: TestDb;
before(async () => {
  process.on("uncaughtException", record);
  process.on("unhandledRejection", record);
  t = await createTestDb();
});
after(async () => {
  process.off("uncaughtException", record);
  process.off("unhandledRejection", record);
  await t.cleanup();
});

/** Resolves once `signal` is aborted. */
const aborted = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

describe("aborted requests", () => {
  test("the NDJSON stream: progress sent after the client left (also from a timer callback) is dropped, nothing escapes", async () => {
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const res = ndjsonResponse(async (send, signal) => {
      send({ step: "upload", message: "Receiving the paper" });
      await aborted(signal);
      // A progress callback outside the awaited chain, as a library's timer would call it.
      await new Promise<void>((resolve) =>
        setTimeout(() => {
          send({ step: "extract", message: "late" });
          resolve();
        }, 0),
      );
      send({ step: "fuse", message: "later" });
      finished();
      return {} as RelatedResult;
    }, "test");
    const reader = res.body!.getReader();
    const first = await reader.read();
    assert.match(new TextDecoder().decode(first.value), /Receiving the paper/);
    await reader.cancel();
    await done;
    // Let any stray error surface before looking.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(stray, []);
  });

  test("an upload whose body breaks off mid-way is a 400, not a crash or a 500", async () => {
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(new TextEncoder().encode('{"text": "a pasted abs'));
        } else controller.error(new Error("aborted"));
      },
    });
    const req = new Request("http://127.0.0.1/api/related", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    const res = await handleRelatedRequest(t.db, req);
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { error: { message: string } }).error.message, /ended before it was complete/);
    assert.deepEqual(stray, []);
  });
});
