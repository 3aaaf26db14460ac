#!/usr/bin/env node
// The production web server (scripts/serve.sh runs it): Next's request handler behind a plain
// node:http server that appends the address that really connected to X-Forwarded-For, as a
// reverse proxy does ($proxy_add_x_forwarded_for), so its rightmost entry cannot be forged.
// `next start` cannot be used for this: it fills the header only when the client sent none.
// lib/security/client.ts reads the entries from the right, past GRAFT_TRUSTED_PROXIES.
//
//   node scripts/server.mjs [-p PORT] [-H HOST]      (port 3000 and all interfaces by default)
import { createServer } from "node:http";
import { setTimeout } from "node:timers";
import { performance } from "node:perf_hooks";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

/** Appends the TCP peer's address to the request's X-Forwarded-For (every value the client sent kept in front). */
export function appendPeer(req) {
  const peer = req.socket.remoteAddress ?? "unknown";
  const sent = req.headers["x-forwarded-for"];
  const before = (Array.isArray(sent) ? sent.join(", ") : (sent ?? "")).trim();
  req.headers["x-forwarded-for"] = before ? `${before}, ${peer}` : peer;
}

const QUERY_ROUTE = /^\/api\/(related|papers\/[^/]+\/[^/]+\/related)(\?|$)/;

/**
 * Sheds queries that waited in line (issue 28). A query is ≈ 30 ms of synchronous work, so a burst
 * is not seen as requests in flight (each is answered before the next is read): it waits in the
 * sockets while the event loop works through them. Once the loop has been busy without a pause for
 * longer than `maxMs` (its idle time, performance.eventLoopUtilization().idle, has not grown), the
 * queries read next have waited at least that long: each is answered 503 busy with Retry-After at
 * once, before Next, so the loop drains and answers the rest promptly; the wait counts from
 * the connection's previous answer when that is later. Returns true when it answered. `maxMs`
 * 0 turns it off; other routes always pass.
 */
export function queueShedder({ maxMs, retryAfterSec = 1, now = () => performance.now(), idle = () => performance.eventLoopUtilization().idle }) {
  let lastIdle = idle();
  let busySince = now();
  // When each connection's last answer went out: a keep-alive client's next query cannot have
  // waited longer than that (one client asking again at once has waited behind no one).
  const answeredAt = new WeakMap();
  return (req, res) => {
    if (!(maxMs > 0) || !QUERY_ROUTE.test(req.url ?? "")) return false;
    const [t, i] = [now(), idle()];
    if (i !== lastIdle) [lastIdle, busySince] = [i, t];
    res.once("finish", () => answeredAt.set(req.socket, now()));
    const waited = t - Math.max(busySince, answeredAt.get(req.socket) ?? -Infinity);
    if (waited <= maxMs) return false;
    const message = `The server has been busy for ${Math.round(waited)} ms with the queries before this one; try again in ${retryAfterSec} s.`;
    res.writeHead(503, { "content-type": "application/json", "retry-after": String(retryAfterSec) });
    res.end(JSON.stringify({ error: { code: "busy", message } }));
    return true;
  };
}

async function main() {
  const { values } = parseArgs({ options: { port: { type: "string", short: "p" }, hostname: { type: "string", short: "H" } } });
  const port = Number(values.port ?? 3000);
  const hostname = values.hostname;
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const { default: next } = await import("next");
  const app = next({ dev: false, dir, hostname: hostname ?? "localhost", port });
  const handle = app.getRequestHandler();
  await app.prepare();
  // GRAFT_MAX_QUEUE_MS (lib/config.ts documents it; this file runs without the TypeScript config).
  const shed = queueShedder({ maxMs: Number(process.env.GRAFT_MAX_QUEUE_MS ?? 100) });
  const server = createServer((req, res) => {
    appendPeer(req);
    if (!shed(req, res)) void handle(req, res);
  });
  server.listen(port, hostname, () => console.log(`Graft is serving on http://${hostname ?? "localhost"}:${port}`));
  // SIGTERM / SIGINT: stop taking connections, let requests in flight finish, then exit.
  for (const signal of ["SIGTERM", "SIGINT"])
    process.once(signal, () => {
      server.close(() => process.exit(0));
      server.closeIdleConnections();
      setTimeout(() => process.exit(0), 10_000).unref();
    });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
