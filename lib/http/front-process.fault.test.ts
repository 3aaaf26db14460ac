import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import path from "node:path";
import { after, describe, test } from "node:test";
import { repoRoot } from "@/lib/paths";
import { SERVER, STAND_IN, type Running, alive, run, send, startFront, until } from "@/lib/http/testing";

// Issue 28: scripts/server.mjs is a front process that forwards to the backend (Next, here a
// stand-in) over a unix socket. What a server in one process did must still hold through it: the
// connecting address appended to X-Forwarded-For once, request and response bodies streamed, a
// graceful stop, and a backend that dies taking the front with it so that scripts/serve.sh
// restarts both.

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
