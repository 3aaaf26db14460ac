#!/usr/bin/env node
// The production web server (scripts/serve.sh runs it): two processes.
//   - The front (this file's main process) accepts the connections, appends the address that really
//     connected to X-Forwarded-For, as a reverse proxy does ($proxy_add_x_forwarded_for), so its
//     rightmost entry cannot be forged (lib/security/client.ts reads the entries from the right,
//     past GRAFT_TRUSTED_PROXIES), sheds queries the backend is too busy for (queryShedder), and
//     forwards everything else, streamed both ways, to
//   - the backend: Next's request handler in a child process, on a unix socket in a private folder.
// The front never does query work, so it answers a shed query at once even while the backend is in
// a ≈ 30 ms synchronous query (issue 28: shed in the same process, the 503s took p95 233 ms).
// `next start` cannot be used: it fills X-Forwarded-For only when the client sent none.
// The front listens, and says "Graft is serving on …", only once the backend has answered one
// pasted paper (warmUpBackend): the served build and models are loaded before a reader's first.
//
//   node scripts/server.mjs [-p PORT] [-H HOST]      (port 3000 and all interfaces by default)
//   --backend FILE [-- ARGS…]   run FILE as the backend instead of Next (tests): it is started with
//                    `--socket PATH -p PORT [-H HOST] ARGS…`, listens on PATH and sends "ready" over IPC.
import { fork } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout } from "node:timers";
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

/** How many recent queries the time per query is the median of: a page render or a cold start among them does not move it. */
const RECENT = 15;

/**
 * Sheds the queries the backend is too busy for (issue 28), deciding in the front at once. The
 * backend works through its queries one after another (each is ≈ 30 ms of synchronous work), so
 * a query forwarded now waits about (queries in flight) × (time per query): once that is over
 * `maxMs`, or the oldest query in flight has already taken longer than `maxMs` (the backend is
 * stuck on a slow one), it is answered 503 busy with Retry-After instead of being forwarded. The
 * time per query is the median over the last queries of the time each took once the backend got
 * to it (since the query before it finished, or since it arrived when nothing was ahead); until
 * one has finished it is taken to be `maxMs`. Returns true when it answered. A query counts as in
 * flight until its answer is complete or its connection closes. `maxMs` 0 turns shedding off;
 * other routes always pass.
 *
 * A connection refused less than Retry-After ago that asks again gets its refusal after
 * `repeatPauseMs` (0.4 × maxMs: still well inside it) instead of at once: a client that ignores
 * Retry-After and resends at once would otherwise make the front refuse thousands of queries a
 * second, CPU that the queries in hand need (32 such clients on 2 cores: 4,000 refusals a second,
 * served queries down from 17 to 7 a second). A client that waits, as the explorer does, never
 * sees the pause.
 */
export function queryShedder({ maxMs, retryAfterSec = 1, repeatPauseMs = Math.round(maxMs * 0.4), now = () => performance.now() }) {
  const inFlight = new Set();
  /** When each connection was last refused. */
  const refusedAt = new WeakMap();
  const recent = [];
  let lastDone = -Infinity;
  const perQuery = () => (recent.length ? [...recent].sort((a, b) => a - b)[recent.length >> 1] : maxMs);
  const oldestAge = (t) => Math.max(0, ...[...inFlight].map((q) => t - q.at));
  const finished = (q) => {
    if (!inFlight.delete(q)) return;
    const t = now();
    recent.push(t - Math.max(q.at, lastDone));
    if (recent.length > RECENT) recent.shift();
    lastDone = t;
  };
  return (req, res) => {
    if (!QUERY_ROUTE.test(req.url ?? "")) return false;
    const t = now();
    const wait = Math.max(inFlight.size * perQuery(), oldestAge(t));
    if (maxMs > 0 && inFlight.size > 0 && wait > maxMs) {
      const message = `The server has ${inFlight.size} ${inFlight.size === 1 ? "query" : "queries"} in hand (about ${Math.round(wait)} ms of work); try again in ${retryAfterSec} s.`;
      const refuse = () => {
        res.writeHead(503, { "content-type": "application/json", "retry-after": String(retryAfterSec) });
        res.end(JSON.stringify({ error: { code: "busy", message } }));
      };
      const before = refusedAt.get(req.socket);
      refusedAt.set(req.socket, t);
      if (repeatPauseMs > 0 && before !== undefined && t - before < retryAfterSec * 1000) setTimeout(refuse, repeatPauseMs);
      else refuse();
      return true;
    }
    const q = { at: t };
    inFlight.add(q);
    res.once("close", () => finished(q));
    return false;
  };
}

// Per-connection headers (RFC 9110 §7.6.1): each hop has its own connection, so they are not passed on.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"]);

/** rawHeaders (name, value, name, value …) without the hop-by-hop ones, for writeHead or request. */
function endToEnd(raw) {
  const out = [];
  for (let i = 0; i < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i].toLowerCase())) out.push(raw[i], raw[i + 1]);
  return out;
}

/**
 * Forwards a request to the backend on `socketPath` and its answer back, both bodies streamed
 * (uploads are not held in memory; NDJSON progress lines arrive as they are written).
 */
function forward(req, res, { socketPath, agent }) {
  // X-Forwarded-For as appendPeer left it: replace the client's raw header with it.
  const raw = endToEnd(req.rawHeaders).filter((_, i, a) => a[i - (i % 2)].toLowerCase() !== "x-forwarded-for");
  const upstream = request({ socketPath, agent, method: req.method, path: req.url, headers: [...raw, "x-forwarded-for", req.headers["x-forwarded-for"]] });
  upstream.on("response", (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
    answer.pipe(res);
    answer.once("error", () => res.destroy());
  });
  req.once("error", () => upstream.destroy());
  upstream.on("error", () => {
    if (res.destroyed) return;
    if (res.headersSent) res.destroy();
    else unavailable(res);
  });
  // A client that goes away: the backend's request is ended too, as it would have been without the front.
  res.once("close", () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

function unavailable(res) {
  res.writeHead(503, { "content-type": "application/json", "retry-after": "5" });
  res.end(JSON.stringify({ error: { code: "busy", message: "The server is restarting; try again in 5 s." } }));
}

const thisFile = fileURLToPath(import.meta.url);

/** Starts the backend on a unix socket in a folder of its own (mode 0700: only this user can connect and bypass the front). */
async function startBackend(file, { port, hostname, args }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-backend-"));
  const socketPath = path.join(dir, "http.sock");
  const child = fork(file, ["--socket", socketPath, "-p", String(port), ...(hostname ? ["-H", hostname] : []), ...args]);
  child.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const [ready] = await Promise.race([once(child, "message"), once(child, "exit").then(([code]) => [{ exited: code }])]);
  if (ready !== "ready") throw new Error(`the backend (${file}) exited with status ${ready.exited} before it was ready`);
  return { child, socketPath };
}

/** The paper the warm-up sends (lib/query/warm-up.ts sends the same one under `next start`). */
const WARM_UP_PAPER = JSON.parse(readFileSync(path.join(path.dirname(thisFile), "../lib/warm-up-paper.json"), "utf8")).text;

/** A backend that has not answered the warm-up by then is served as it is: a hung load must not keep the site down. */
const WARM_UP_LIMIT_MS = 120_000;

/**
 * Sends the warm-up paper to the backend's POST /api/related (default corpus and options), past the
 * shedder, and waits for the whole answer: the route then has the served graph build, the item
 * embedder, the facet extractor and the retrievers' indexes loaded (6-9 s on the first paper
 * otherwise). Never throws: a store without the corpus or a graph build answers 409, a normal
 * state before the first import, and the first query then loads what it needs. Returns whether
 * the backend answered at all.
 */
async function warmUpBackend(socketPath, signal) {
  const t0 = performance.now();
  const took = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  const body = JSON.stringify({ text: WARM_UP_PAPER });
  const outcome = await new Promise((resolve) => {
    const req = request({ socketPath, signal, method: "POST", path: "/api/related", headers: { "content-type": "application/json" } });
    req.setTimeout(WARM_UP_LIMIT_MS, () => req.destroy(new Error(`no answer in ${WARM_UP_LIMIT_MS / 1000} s`)));
    req.once("error", (err) => resolve({ error: err.message }));
    req.once("response", (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk) => (text += chunk));
      res.once("end", () => resolve({ status: res.statusCode, text }));
      res.once("error", (err) => resolve({ error: err.message }));
    });
    req.end(body);
  });
  if (signal.aborted) return false;
  if (outcome.status === 200) console.log(`graft: warmed up: the served build and models loaded in ${took()}`);
  else {
    const reason = outcome.error ?? `HTTP ${outcome.status}: ${errorMessage(outcome.text)}`;
    console.error(`graft: not warmed up after ${took()} (${reason}); the first query loads what it needs`);
  }
  return outcome.status !== undefined;
}

/** Whether something listens on the unix socket. */
function listening(socketPath) {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** The message of an { error: { message } } answer, or the start of any other. */
function errorMessage(text) {
  try {
    return JSON.parse(text).error?.message ?? text.slice(0, 200);
  } catch {
    return text.slice(0, 200);
  }
}

/** The front: starts the backend, warms it up, then listens on `port`, sheds and forwards to it. */
async function serveFront({ port, hostname, backend, backendArgs }) {
  const { child, socketPath } = await startBackend(backend, { port, hostname, args: backendArgs });
  const agent = new Agent({ keepAlive: true });
  // GRAFT_MAX_QUEUE_MS (lib/config.ts documents it; this file runs without the TypeScript config).
  const shed = queryShedder({ maxMs: Number(process.env.GRAFT_MAX_QUEUE_MS ?? 100) });
  const server = createServer((req, res) => {
    appendPeer(req);
    if (!shed(req, res)) forward(req, res, { socketPath, agent });
  });
  let stopping = false;
  const backendExit = once(child, "exit");
  // A backend that dies takes the front with it, so that scripts/serve.sh starts both again (during the warm-up too).
  void backendExit.then(([code, signal]) => {
    if (stopping) return;
    console.error(`graft: the backend exited (${signal ?? `status ${code}`}); stopping the front so that it is started again`);
    process.exit(1);
  });
  const warmUp = new AbortController();
  // SIGTERM / SIGINT: stop taking connections, let requests in flight finish, then stop the backend and exit.
  for (const signal of ["SIGTERM", "SIGINT"])
    process.once(signal, () => {
      stopping = true;
      const stop = async () => {
        child.kill("SIGTERM");
        await backendExit;
        process.exit(0);
      };
      setTimeout(() => process.exit(0), 10_000).unref();
      if (!server.listening) {
        // Still warming up: no reader's request is in flight, and the warm-up's would hold the backend's graceful stop.
        warmUp.abort();
        return void stop();
      }
      server.close(stop);
      server.closeIdleConnections();
    });
  const answered = await warmUpBackend(socketPath, warmUp.signal);
  // No answer because the backend died: its exit (handled above) is on the way; never listen meanwhile.
  if (!answered && !stopping && !(await listening(socketPath))) await backendExit;
  if (stopping) return;
  server.listen(port, hostname, () => console.log(`Graft is serving on http://${hostname ?? "localhost"}:${server.address().port}`));
}

/** The backend: Next's request handler on the front's unix socket. */
async function serveBackend({ socketPath, port, hostname }) {
  const dir = path.resolve(path.dirname(thisFile), "..");
  const { default: next } = await import("next");
  const app = next({ dev: false, dir, hostname: hostname ?? "localhost", port });
  const handle = app.getRequestHandler();
  await app.prepare();
  // X-Forwarded-For comes complete from the front: nothing is appended here (the peer is the front).
  const server = createServer((req, res) => void handle(req, res));
  // The front is the only client and keeps its connections: never close one under it.
  server.keepAliveTimeout = 0;
  server.listen(socketPath, () => process.send?.("ready"));
  // Without the front (killed outright), nothing can reach this process: it ends.
  process.once("disconnect", () => process.exit(0));
  for (const signal of ["SIGTERM", "SIGINT"])
    process.once(signal, () => {
      server.close(() => process.exit(0));
      server.closeIdleConnections();
      setTimeout(() => process.exit(0), 10_000).unref();
    });
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      port: { type: "string", short: "p" },
      hostname: { type: "string", short: "H" },
      socket: { type: "string" },
      backend: { type: "string" },
    },
  });
  const port = Number(values.port ?? 3000);
  if (values.socket) await serveBackend({ socketPath: values.socket, port, hostname: values.hostname });
  else await serveFront({ port, hostname: values.hostname, backend: values.backend ? path.resolve(values.backend) : thisFile, backendArgs: positionals });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
