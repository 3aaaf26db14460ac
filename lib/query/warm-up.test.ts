import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { WARM_UP_PAPER, warmUp } from "./warm-up";

// The server's start-up warm-up (instrumentation.ts): one pasted paper sent to the server's own
// POST /api/related; a refusal or no server is only logged.

function recorder() {
  const lines: { level: "info" | "warn"; line: string }[] = [];
  return { lines, log: { info: (line: string) => lines.push({ level: "info", line }), warn: (line: string) => lines.push({ level: "warn", line }) } };
}

const requests: { method?: string; url?: string; type?: string; body: unknown }[] = [];
let answer: (res: ServerResponse) => void = (res) => res.end();
const server = createServer((req: IncomingMessage, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    requests.push({ method: req.method, url: req.url, type: req.headers["content-type"], body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
    answer(res);
  });
});
const origin = await new Promise<string>((resolve) =>
  server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
);
after(() => server.close());

test("sends the paper to the server's own /api/related and says it is warm", async () => {
  answer = (res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results: [] }));
  const r = recorder();
  assert.equal(await warmUp(origin, r.log, "mini"), true);
  assert.deepEqual(requests.at(-1), { method: "POST", url: "/api/related", type: "application/json", body: { corpus: "mini", text: WARM_UP_PAPER } });
  assert.equal(r.lines.length, 1);
  assert.equal(r.lines[0].level, "info");
  assert.match(r.lines[0].line, /warmed up: the served build and models of "mini" loaded in \d+\.\d s/);
});

test("a refusal (no graph build yet) is logged with the server's reason, never thrown", async () => {
  const message = 'corpus "mini" has no graph build yet: run `npm run graft -- build --stage graph --corpus mini`';
  answer = (res) => res.writeHead(409, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "not_ready", message } }));
  const r = recorder();
  assert.equal(await warmUp(origin, r.log, "mini"), false);
  assert.deepEqual(r.lines, [{ level: "warn", line: `graft: not warmed up (HTTP 409: ${message}); the first query loads what it needs` }]);
});

test("no server there: logged, never thrown", async () => {
  const closed = createServer();
  const port = await new Promise<number>((resolve) => closed.listen(0, "127.0.0.1", () => resolve((closed.address() as AddressInfo).port)));
  await new Promise((resolve) => closed.close(resolve));
  const r = recorder();
  assert.equal(await warmUp(`http://127.0.0.1:${port}`, r.log), false);
  assert.equal(r.lines.length, 1);
  assert.match(r.lines[0].line, /^graft: not warmed up \(.+\); the first query loads what it needs$/);
});
