import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import path from "node:path";
import { after, describe, test } from "node:test";
import { repoRoot } from "@/lib/paths";
import { SERVER, STAND_IN, type Running, alive, run, send, startFront, until } from "@/lib/http/testing";
import warmUpPaper from "@/lib/warm-up-paper.json";

// Issue 28: scripts/server.mjs is a front process that forwards to the backend (Next, here a
// stand-in) over a unix socket. What a server in one process did must still hold through it: the
// connecting address appended to X-Forwarded-For once, request and response bodies streamed, a
// graceful stop, and a backend that dies taking the front with it so that scripts/serve.sh
// restarts both. Issue 29: the front says it serves only once the backend has answered a warm-up
// paper (the served build and models loaded), so a reader's first paper does not wait for them.

const started: Running[] = [];
after(() => started.forEach((r) => r.proc.kill("SIGKILL")));

/** POST /echo with a body sent in parts: `lines` collects the answer's NDJSON lines as they arrive. */
function echo(port: number, headers: Record<string, string> = {}) {
  const lines: Record<string, unknown>[] = [];
  let buffered = "";
  const req = request({ host: "127.0.0.1", port, method: "POST", path: "/echo", headers, agent: false });
  const done = new Promise<number>((resolve, reject) => {
    req.once("response", (res) => {
      res.setEncoding("utf8").on("data", (chunk: string) => {
        buffered += chunk;
        const parts = buffered.split("\n");
        buffered = parts.pop() ?? "";
        for (const p of parts) lines.push(JSON.parse(p) as Record<string, unknown>);
      });
      res.once("end", () => resolve(res.statusCode ?? 0));
    });
    req.once("error", reject);
  });
  return { req, lines, done };
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });

describe("scripts/server.mjs's front process", () => {
  test("appends the connecting address to X-Forwarded-For once (the backend adds nothing) and streams both bodies", async () => {
    const front = await startFront();
    started.push(front);
    const call = echo(front.port, { "x-forwarded-for": "203.0.113.9" });
    const first = randomBytes(1024);
    call.req.write(first);
    // The answer's first line arrives while the request body is still open: neither side is buffered.
    await until(() => call.lines.length === 1);
    assert.equal(call.lines[0].xff, "203.0.113.9, 127.0.0.1");
    const rest = randomBytes(5 * 1024 * 1024);
    call.req.end(rest);
    assert.equal(await call.done, 200);
    assert.deepEqual(call.lines[1], { bytes: first.length + rest.length, sha256: createHash("sha256").update(first).update(rest).digest("hex") });
  });

  test("SIGTERM: no new connections, the request in flight is answered in full, then the front and the backend exit", async () => {
    const front = await startFront();
    started.push(front);
    const call = echo(front.port);
    call.req.write("part one;");
    await until(() => call.lines.length === 1);
    const backend = call.lines[0].pid as number;
    front.proc.kill("SIGTERM");
    // Wait for the listener to close before finishing the request that is still in flight.
    while (!(await refused(front.port))) await new Promise((resolve) => setTimeout(resolve, 20));
    call.req.end("part two");
    assert.equal(await call.done, 200);
    assert.equal(call.lines[1].bytes, "part one;part two".length);
    assert.deepEqual(await front.exited, [0, null]);
    await until(() => !alive(backend));
  });

  test("a backend that dies takes the front with it (status 1), and scripts/serve.sh starts both again", async () => {
    const loop = run("bash", [path.join(repoRoot, "scripts/serve.sh"), "--", process.execPath, SERVER, "-p", "0", "-H", "127.0.0.1", "--backend", STAND_IN]);
    started.push(loop);
    await until(() => loop.ports.length === 1);
    const before = JSON.parse((await send(loop.ports[0], "POST", "/api/related", "{}")).body) as { pid: number };
    await send(loop.ports[0], "GET", "/crash").catch(() => undefined); // the connection ends with the backend
    await until(() => loop.ports.length === 2);
    assert.match(loop.stderr.join(""), /the backend exited \(status 3\)[^]*the server exited with status 1; restarting/);
    const again = await send(loop.ports[1], "POST", "/api/related", "{}");
    assert.equal(again.status, 200);
    assert.notEqual((JSON.parse(again.body) as { pid: number }).pid, before.pid, "a new backend");
    assert.equal(alive(before.pid), false);
    loop.proc.kill("SIGTERM");
    assert.deepEqual(await loop.exited, [0, null]);
  });

  /** The front, with the stand-in holding or refusing its warm-up (--warm-up hold|refuse). */
  const withWarmUp = (mode: "hold" | "refuse") => {
    const front = run(process.execPath, [SERVER, "-p", "0", "-H", "127.0.0.1", "--backend", STAND_IN, "--", "--warm-up", mode]);
    started.push(front);
    return front;
  };
  /** The held warm-up: the stand-in's pid and the request body it got. */
  const heldWarmUp = (front: Running) => {
    const m = /stand-in (\d+) holds the warm-up (.*)\n/.exec(front.stdout.join(""));
    return m ? { pid: Number(m[1]), body: JSON.parse(m[2]) as unknown } : null;
  };

  test("listens and says it is serving only once the backend has answered the warm-up paper", async () => {
    const front = withWarmUp("hold");
    await until(() => heldWarmUp(front) !== null);
    const held = heldWarmUp(front)!;
    assert.deepEqual(held.body, { text: warmUpPaper.text });
    assert.deepEqual(front.ports, [], "no serving line while the backend is still loading");
    process.kill(held.pid, "SIGUSR2");
    await until(() => front.ports.length === 1);
    assert.match(front.stdout.join(""), /holds the warm-up[^]*\ngraft: warmed up: the served build and models loaded in \d+\.\d s\nGraft is serving on /);
    const answer = await send(front.ports[0], "POST", "/api/related", "{}");
    assert.equal(answer.status, 200);
    assert.equal((JSON.parse(answer.body) as { pid: number }).pid, held.pid);
  });

  test("a warm-up the backend refuses (no graph build yet) is logged with its reason, and the front serves", async () => {
    const front = withWarmUp("refuse");
    await until(() => front.ports.length === 1);
    assert.match(
      front.stderr.join(""),
      /graft: not warmed up after \d+\.\d s \(HTTP 409: corpus "acl-citegraph" has no graph build yet\); the first query loads what it needs/,
    );
    assert.equal((await send(front.ports[0], "POST", "/api/related", "{}")).status, 200);
  });

  test("a backend that dies during the warm-up takes the front with it (status 1), never serving", async () => {
    const front = withWarmUp("hold");
    await until(() => heldWarmUp(front) !== null);
    process.kill(heldWarmUp(front)!.pid, "SIGKILL");
    // "close": its output read to the end, as "exit" does not wait for.
    assert.deepEqual(await once(front.proc, "close"), [1, null]);
    assert.deepEqual(front.ports, []);
    assert.match(front.stderr.join(""), /the backend exited \(SIGKILL\)/);
  });

  test("SIGTERM during the warm-up: the front and the backend exit at once, never serving", async () => {
    const front = withWarmUp("hold");
    await until(() => heldWarmUp(front) !== null);
    const { pid } = heldWarmUp(front)!;
    front.proc.kill("SIGTERM");
    assert.deepEqual(await once(front.proc, "close"), [0, null]);
    assert.deepEqual(front.ports, []);
    assert.equal(alive(pid), false);
    assert.doesNotMatch(front.stderr.join(""), /not warmed up/);
  });

  test("a front killed outright leaves no backend behind", async () => {
    const front = await startFront();
    started.push(front);
    const { pid } = JSON.parse((await send(front.port, "POST", "/api/related", "{}")).body) as { pid: number };
    front.proc.kill("SIGKILL");
    await until(() => !alive(pid));
  });

  test("the backend cannot be reached past the front: its socket's folder is private", async () => {
    const front = await startFront();
    started.push(front);
    const { pid } = JSON.parse((await send(front.port, "POST", "/api/related", "{}")).body) as { pid: number };
    const socket = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[3]; // node FILE --socket PATH
    assert.equal(statSync(path.dirname(socket)).mode & 0o777, 0o700);
  });
});
