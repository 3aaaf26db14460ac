// A stand-in for Next behind scripts/server.mjs's front (its --backend), for the fault tests:
// started as `--socket PATH -p PORT [--work-ms N] [--warm-up hold|refuse]`, it listens on PATH and
// sends "ready" over IPC.
//   POST /api/related      N ms of synchronous work (as a real query is), then 200 {"pid"}; the first
//                          one (the front's warm-up), with --warm-up: "hold" prints a line
//                          `stand-in <pid> holds the warm-up <body>` and answers after SIGUSR2,
//                          "refuse" answers 409 as a store without a graph build does
//   POST /echo             streams back: a line {"pid", "xff"} as soon as the first body chunk
//                          arrives, then {"bytes", "sha256"} of the whole body once it has ended
//   GET /crash             the process exits with status 3
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    socket: { type: "string" },
    port: { type: "string", short: "p" },
    hostname: { type: "string", short: "H" },
    "work-ms": { type: "string" },
    "warm-up": { type: "string" },
  },
});
const workMs = Number(values["work-ms"] ?? 150);
let warmUp = values["warm-up"];

function answerQuery(res) {
  const until = performance.now() + workMs;
  while (performance.now() < until); // synchronous, like a query: the event loop is held
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ pid: process.pid }));
}

/** The first query under --warm-up: held until SIGUSR2, or refused as without a graph build. */
function answerWarmUp(mode, res, body) {
  if (mode === "refuse") {
    res.writeHead(409, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { code: "not_ready", message: 'corpus "acl-citegraph" has no graph build yet' } }));
    return;
  }
  process.once("SIGUSR2", () => answerQuery(res));
  console.log(`stand-in ${process.pid} holds the warm-up ${body}`);
}

const server = createServer((req, res) => {
  if (req.url === "/crash") process.exit(3);
  if (req.url?.startsWith("/api/related")) {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk) => (body += chunk));
    req.once("end", () => {
      const first = warmUp;
      warmUp = undefined;
      if (first) answerWarmUp(first, res, body);
      else answerQuery(res);
    });
    return;
  }
  if (req.url === "/echo") {
    res.writeHead(200, { "content-type": "application/x-ndjson" });
    const hash = createHash("sha256");
    let bytes = 0;
    req.on("data", (chunk) => {
      if (bytes === 0) res.write(`${JSON.stringify({ pid: process.pid, xff: req.headers["x-forwarded-for"] })}\n`);
      bytes += chunk.length;
      hash.update(chunk);
    });
    req.once("end", () => res.end(`${JSON.stringify({ bytes, sha256: hash.digest("hex") })}\n`));
    return;
  }
  res.writeHead(404).end();
});
server.keepAliveTimeout = 0;
server.listen(values.socket, () => process.send?.("ready"));
process.once("disconnect", () => process.exit(0));
process.once("SIGTERM", () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
