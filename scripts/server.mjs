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

async function main() {
  const { values } = parseArgs({ options: { port: { type: "string", short: "p" }, hostname: { type: "string", short: "H" } } });
  const port = Number(values.port ?? 3000);
  const hostname = values.hostname;
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const { default: next } = await import("next");
  const app = next({ dev: false, dir, hostname: hostname ?? "localhost", port });
  const handle = app.getRequestHandler();
  await app.prepare();
  const server = createServer((req, res) => {
    appendPeer(req);
    void handle(req, res);
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
