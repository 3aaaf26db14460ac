import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createUseLiteEmbedder } from "./use-lite";

// Issue 28: the USE-lite runtime's process-wide handlers re-threw any stray error, so one aborted
// request after a pasted-abstract query killed the server.

const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "stays-up-server.ts");
const children: ChildProcess[] = [];
after(() => children.forEach((c) => c.kill("SIGKILL")));

async function startServer(...args: string[]): Promise<{ child: ChildProcess; base: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, ["--import", "tsx", SERVER, ...args], { stdio: ["ignore", "pipe", "ignore"] });
  children.push(child);
  const exited = once(child, "exit").then(([code]) => code as number | null);
  const [chunk] = (await once(child.stdout!, "data")) as [Buffer];
  return { child, base: `http://127.0.0.1:${chunk.toString().trim()}`, exited };
}

const get = async (url: string, signal?: AbortSignal) => (await fetch(url, { signal })).text();

/** 200 requests at once, every fourth one aborted by the client before it is answered. */
async function burst(base: string): Promise<void> {
  await Promise.allSettled(
    Array.from({ length: 200 }, (_, i) => {
      if (i % 4 !== 0) return get(`${base}/${i % 3 === 0 ? "throw" : "reject"}`);
      const ac = new AbortController();
      const p = get(`${base}/abort`, ac.signal);
      setTimeout(() => ac.abort(), 20);
      return p;
    }),
  );
}

describe("the server stays up after the USE-lite model is loaded", () => {
  test("loading the embedder leaves no uncaughtException / unhandledRejection listener behind", async () => {
    const before = { u: process.listeners("uncaughtException"), r: process.listeners("unhandledRejection") };
    const e = await createUseLiteEmbedder();
    await e.embed(["a pasted abstract"]);
    assert.deepEqual(process.listeners("uncaughtException"), before.u);
    assert.deepEqual(process.listeners("unhandledRejection"), before.r);
  });

  test("stray exceptions, rejections and 200 requests with aborts: the process still answers", async () => {
    const { child, base } = await startServer();
    await burst(base);
    assert.equal(await get(`${base}/`), "ok");
    assert.equal(child.exitCode, null, "the server process is still running");
  });

  test("without the guard, the first stray rejection kills the process (what the guard prevents)", async () => {
    const { base, exited } = await startServer("--unguarded");
    await get(`${base}/reject`).catch(() => {});
    assert.notEqual(await exited, 0);
  });
});
