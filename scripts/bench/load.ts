/**
 * Load test of POST /api/related on a running production server (scripts/server.mjs), on loopback:
 * autocannon drives C concurrent clients for D seconds, each request asking for the related
 * papers of a random corpus paper; meanwhile a sampler loads pages (home and a paper page) once a
 * second to check the server stays responsive, and the server's resident memory is sampled.
 *
 *   npm run bench:load [-- --connections 50] [--duration 60] [--corpus acl-citegraph] [--k 20] [--rate r]
 *                         [--url http://127.0.0.1:3000] [--port 3300] [--dist .next] [--json] [--out file]
 *
 * By default each client sends its next request as soon as the previous answer arrives (closed
 * loop: the server runs flat out); --rate r paces each client to r requests a second instead.
 *
 * Without --url the script starts scripts/server.mjs itself (from --dist, default GRAFT_NEXT_DIST
 * or .next; run `npx next build` first) on DATABASE_URL with GRAFT_RATE_LIMITS=off, since this
 * measures serving capacity, not the limiter (the query admission gate, GRAFT_MAX_CONCURRENT_QUERIES,
 * stays as configured). With --url, the server is yours (its rate limits apply). The corpus needs
 * a graph build. Reports requests/s, latency p50/p95/p99/max of the answered requests, the 503s
 * (busy: the front's queue shedder or the admission gate) apart (how many, how fast, client side), errors (socket errors such as connection resets,
 * timeouts, non-2xx), page-load latency during the run and the server's RSS.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { config } from "@/lib/config";
import { repoRoot } from "@/lib/paths";
import { quantileNearestRank } from "@/lib/quantile";

// autocannon ships no types; this is the part of its API used here.
interface AutocannonClient {
  setHeaders(headers: Record<string, string>): void;
}
interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}
interface AutocannonResult {
  requests: { average: number; total: number };
  throughput: { average: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  duration: number;
  statusCodeStats?: Record<string, { count: number }>;
}
interface AutocannonInstance extends Promise<AutocannonResult> {
  on(event: "response", fn: (client: AutocannonClient, status: number, bytes: number, ms: number) => void): void;
}
type Autocannon = (opts: Record<string, unknown>) => AutocannonInstance;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

/** The page-load sampler (plain JS, run as a worker thread): 10 idle loads, then one a second until "stop". */
const SAMPLER = `
const { parentPort, workerData } = require("node:worker_threads");
let phase = "idle", stop = false, i = 0;
parentPort.on("message", (m) => { if (m === "run") phase = "run"; else if (m === "stop") stop = true; });
(async () => {
  while (!stop) {
    const kind = i % 2 === 0 ? "home" : "paper";
    const url = kind === "home" ? workerData.home : workerData.papers[i % workerData.papers.length];
    i++;
    const p = phase;
    const t = performance.now();
    let ms = null;
    try {
      const r = await fetch(url, { headers: { "x-forwarded-for": "10.255.0.1" }, signal: AbortSignal.timeout(30000) });
      await r.arrayBuffer();
      if (r.ok) ms = performance.now() - t;
    } catch {}
    if (!stop) parentPort.postMessage({ kind, ms, phase: p });
    if (p === "run") await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (performance.now() - t))));
  }
  process.exit(0);
})();
`;

const { values: args } = parseArgs({
  options: {
    connections: { type: "string", default: "50" },
    duration: { type: "string", default: "60" },
    corpus: { type: "string", default: "acl-citegraph" },
    k: { type: "string", default: "20" },
    url: { type: "string" },
    port: { type: "string", default: "3300" },
    dist: { type: "string", default: config().GRAFT_NEXT_DIST },
    rate: { type: "string" },
    json: { type: "boolean", default: false },
    out: { type: "string" },
  },
});
const num = (name: "connections" | "duration" | "k" | "port") => {
  const v = Number(args[name]);
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer`);
  return v;
};
const CONNECTIONS = num("connections");
const DURATION = num("duration");
const K = num("k");
/** Requests per second per client (open loop); default: closed loop, each client sends its next request as soon as the last answer arrives. */
const RATE = args.rate === undefined ? undefined : Number(args.rate);
if (RATE !== undefined && !(RATE > 0)) throw new Error("--rate must be a positive number (requests per second per client)");
const log = (s: string) => process.stderr.write(`${s}\n`);

// ── the server ───────────────────────────────────────────────────────────────────────────────

function startServer(port: number): ChildProcess {
  // The production server (scripts/serve.sh runs it): Next behind the peer-recording server.
  const child = spawn(process.execPath, [path.join(repoRoot, "scripts/server.mjs"), "-H", "127.0.0.1", "-p", String(port)], {
    cwd: repoRoot,
    env: { ...process.env, GRAFT_NEXT_DIST: args.dist, GRAFT_RATE_LIMITS: "off", NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group, so the whole tree stops with it
  });
  child.stdout?.on("data", () => {});
  child.stderr?.on("data", (d) => config().GRAFT_DEBUG && process.stderr.write(d));
  return child;
}

async function waitReady(base: string, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  for (;;) {
    try {
      if ((await fetch(`${base}/`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - start > timeoutMs) throw new Error(`the server at ${base} did not come up in ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Resident memory of a process and all its descendants, in bytes (Linux /proc). */
function treeRss(rootPid: number): number {
  const children = new Map<number, number[]>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone meanwhile
    }
  }
  let rss = 0;
  const stack = [rootPid];
  while (stack.length) {
    const pid = stack.pop() as number;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (m) rss += Number(m[1]) * 1024;
    } catch {
      // gone meanwhile
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return rss;
}

/** The pid listening on a local TCP port (for a server given by --url), via /proc. */
function pidOfPort(port: number): number | null {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const f of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    try {
      for (const line of readFileSync(f, "utf8").split("\n").slice(1)) {
        const cols = line.trim().split(/\s+/);
        if (cols[1]?.endsWith(`:${hex}`) && cols[3] === "0A") inodes.add(cols[9]);
      }
    } catch {
      // no IPv6
    }
  }
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      for (const fd of readdirSync(`/proc/${d}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${d}/fd/${fd}`));
        if (m && inodes.has(m[1])) return Number(d);
      }
    } catch {
      // not ours to read, or gone
    }
  }
  return null;
}

// ── statistics ───────────────────────────────────────────────────────────────────────────────

// Latency percentiles by nearest rank, as load-testing tools report them.
function summary(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: quantileNearestRank(s, 0.5), p95: quantileNearestRank(s, 0.95), p99: quantileNearestRank(s, 0.99), max: s[s.length - 1] ?? NaN };
}

const r0 = (x: number) => (Number.isFinite(x) ? Math.round(x) : NaN);
const mb = (b: number) => Math.round(b / 1024 / 1024);

// ── main ─────────────────────────────────────────────────────────────────────────────────────

const relatedBody = (id: string) => JSON.stringify({ corpus: args.corpus, paperId: id, k: K });

/** Paper ids to ask about: a few pages of the corpus, through the API itself. */
async function corpusPaperIds(base: string): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; page <= 5; page++) {
    const r = await fetch(`${base}/api/papers?corpus=${encodeURIComponent(args.corpus)}&pageSize=100&page=${page}`);
    if (!r.ok) throw new Error(`GET /api/papers answered ${r.status}: ${await r.text()}`);
    ids.push(...((await r.json()) as { items: { externalId: string }[] }).items.map((p) => p.externalId));
  }
  if (ids.length === 0) throw new Error(`corpus "${args.corpus}" has no papers`);
  return ids;
}

/** Warm-up: loads the graph build, the embedder and the JIT; returns the first query's ms, which is reported apart. */
async function warmUp(base: string, ids: string[]): Promise<number> {
  const w0 = performance.now();
  const warm = await fetch(`${base}/api/related`, { method: "POST", headers: { "content-type": "application/json" }, body: relatedBody(ids[0]) });
  const warmMs = performance.now() - w0;
  if (!warm.ok) throw new Error(`the warm-up query failed (${warm.status}): ${(await warm.text()).slice(0, 300)} — does the corpus have a graph build?`);
  await warm.arrayBuffer();
  for (const id of ids.slice(1, 6))
    await (await fetch(`${base}/api/related`, { method: "POST", headers: { "content-type": "application/json" }, body: relatedBody(id) })).arrayBuffer();
  return warmMs;
}

type PageSample = { kind: "home" | "paper"; ms: number | null; phase: "idle" | "run" };

/** What the run measured, for its report. */
interface LoadMeasures {
  base: string;
  warmMs: number;
  result: AutocannonResult;
  statuses: ReadonlyMap<number, number>;
  latencies: number[];
  busyLatencies: number[];
  samples: PageSample[];
  rss: number[];
  rssBefore: number;
  rssAfter: number;
}

/** The run's report (written with --out, printed with --json). */
function loadReport({ base, warmMs, result, statuses, latencies, busyLatencies, samples, rss, rssBefore, rssAfter }: LoadMeasures) {
  const pageFailures = samples.filter((x) => x.ms === null).length;
  const pagesOf = (phase: "idle" | "run", kind: "home" | "paper") =>
    samples.filter((x) => x.phase === phase && x.kind === kind && x.ms !== null).map((x) => x.ms as number);

  const lat = summary(latencies);
  const busy = summary(busyLatencies);
  const pageStats = (ms: number[]) => {
    const x = summary(ms);
    return { n: x.n, p50: r0(x.p50), p95: r0(x.p95), max: r0(x.max) };
  };
  return {
    date: new Date().toISOString(),
    machine: { cores: os.availableParallelism(), cpu: os.cpus()[0]?.model ?? "", memoryGB: Math.round(os.totalmem() / 2 ** 30), loadAvg1m: os.loadavg()[0] },
    target: {
      url: `${base}/api/related`,
      corpus: args.corpus,
      k: K,
      connections: CONNECTIONS,
      durationSeconds: DURATION,
      perClientRate: RATE ?? "closed loop",
      rateLimits: args.url ? "as configured" : "off",
    },
    warmupMs: r0(warmMs),
    requests: { total: result.requests.total, perSecond: Math.round(result.requests.average * 10) / 10, statuses: Object.fromEntries(statuses) },
    errors: { total: result.errors + result.timeouts + result.non2xx, socket: result.errors, timeouts: result.timeouts, non2xx: result.non2xx },
    /** Refused as busy with Retry-After: by scripts/server.mjs's front (GRAFT_MAX_QUEUE_MS) or the admission gate (GRAFT_MAX_CONCURRENT_QUERIES). */
    busy: { count: busy.n, p95Ms: r0(busy.p95), maxMs: r0(busy.max) },
    latencyMs: { p50: r0(lat.p50), p95: r0(lat.p95), p99: r0(lat.p99), max: r0(lat.max) },
    pageLoads: {
      idle: { home: pageStats(pagesOf("idle", "home")), paper: pageStats(pagesOf("idle", "paper")) },
      duringRun: { home: pageStats(pagesOf("run", "home")), paper: pageStats(pagesOf("run", "paper")), failures: pageFailures },
    },
    serverRssMB: { before: mb(rssBefore), peak: rss.length ? mb(Math.max(...rss)) : NaN, after: mb(rssAfter) },
    targets: {
      zeroErrors: result.errors + result.timeouts + result.non2xx === 0,
      noResetsOrTimeouts: result.errors + result.timeouts === 0,
      p95UnderTwoSeconds: lat.p95 <= 2000,
    },
  };
}
type LoadReport = ReturnType<typeof loadReport>;

/** The report as lines for a terminal. */
function printLoadReport(report: LoadReport): void {
  const pageFailures = report.pageLoads.duringRun.failures;
  process.stdout.write(
    [
      `POST /api/related · ${CONNECTIONS} clients${RATE ? ` at ${RATE} req/s each` : " (closed loop)"} · ${DURATION} s · ${report.machine.cores} cores (${report.machine.cpu}) · rate limits ${report.target.rateLimits}`,
      `requests      ${report.requests.total} (${report.requests.perSecond}/s)   statuses ${JSON.stringify(report.requests.statuses)}`,
      `errors        ${report.errors.total} (socket/resets ${report.errors.socket}, timeouts ${report.errors.timeouts}, non-2xx ${report.errors.non2xx})`,
      `busy (503)    ${report.busy.count} refused busy (front shedder or admission gate) · p95 ${report.busy.p95Ms} ms · max ${report.busy.maxMs} ms`,
      `latency       p50 ${report.latencyMs.p50} ms · p95 ${report.latencyMs.p95} ms · p99 ${report.latencyMs.p99} ms · max ${report.latencyMs.max} ms`,
      ...(["home", "paper"] as const).map((k) => {
        const idle = report.pageLoads.idle[k];
        const run = report.pageLoads.duringRun[k];
        return `${`${k} page`.padEnd(14)}idle p50 ${idle.p50} ms · during the run (${run.n} loads) p50 ${run.p50} ms · p95 ${run.p95} ms · max ${run.max} ms`;
      }),
      `page failures ${pageFailures}`,
      `server RSS    ${report.serverRssMB.before} MB before · ${report.serverRssMB.peak} MB peak · ${report.serverRssMB.after} MB after`,
      `targets       0 errors: ${report.targets.zeroErrors ? "yes" : "NO"} · no resets or timeouts: ${report.targets.noResetsOrTimeouts ? "yes" : "NO"} · p95 ≤ 2 s (answered, not 503): ${report.targets.p95UnderTwoSeconds ? "yes" : "NO"}`,
    ].join("\n") + "\n",
  );
}

async function main(): Promise<void> {
  let server: ChildProcess | null = null;
  const base = args.url?.replace(/\/+$/, "") ?? `http://127.0.0.1:${num("port")}`;
  if (!args.url) {
    log(
      `starting scripts/server.mjs from ${args.dist} on ${base} (DATABASE_URL=${(config().DATABASE_URL ?? "(default)").replace(/\/\/[^@]*@/, "//…@")}, rate limits off)`,
    );
    server = startServer(num("port"));
  }
  const stopServer = () => {
    if (server?.pid) {
      try {
        process.kill(-server.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
  };
  process.on("SIGINT", () => {
    stopServer();
    process.exit(130);
  });
  try {
    await waitReady(base);
    const serverPid = server?.pid ?? pidOfPort(Number(new URL(base).port || 80));

    const ids = await corpusPaperIds(base);
    const warmMs = await warmUp(base, ids);
    const rssBefore = serverPid ? treeRss(serverPid) : NaN;
    log(`warm-up ${r0(warmMs)} ms; RSS ${mb(rssBefore)} MB; ${CONNECTIONS} clients for ${DURATION} s …`);

    // Page loads: the home page and a paper page (server-rendered, with its related papers),
    // timed to the last byte, first on the idle server, then once a second during the run. The
    // sampler runs on its own thread: autocannon keeps this thread's event loop busy, and its lag
    // would otherwise be counted as the server's.
    const paperUrls = Array.from(
      { length: 30 },
      (_, i) => `${base}/papers/${encodeURIComponent(args.corpus)}/${encodeURIComponent(ids[(i * 7) % ids.length])}`,
    );
    const sampler = new Worker(SAMPLER, { eval: true, workerData: { home: `${base}/`, papers: paperUrls } });
    const samples: PageSample[] = [];
    sampler.on("message", (m: (typeof samples)[number]) => samples.push(m));
    while (samples.filter((x) => x.phase === "idle").length < 10) await new Promise((r) => setTimeout(r, 50));
    sampler.postMessage("run");
    const rss: number[] = [];
    const rssTimer = setInterval(() => serverPid && rss.push(treeRss(serverPid)), 1000);

    let clientNo = 0;
    const latencies: number[] = [];
    /** Answers refused as busy (503, by the front's shedder or the admission gate): fast by design, so apart from the others' latency. */
    const busyLatencies: number[] = [];
    const statuses = new Map<number, number>();
    const instance = autocannon({
      url: base,
      connections: CONNECTIONS,
      duration: DURATION,
      timeout: 30,
      ...(RATE ? { connectionRate: RATE } : {}),
      // One distinct client address per connection, as 50 separate users would have.
      setupClient: (client: AutocannonClient) => {
        const n = clientNo++;
        client.setHeaders({ "content-type": "application/json", "x-forwarded-for": `10.${(n >> 8) & 255}.${n & 255}.7` });
      },
      requests: [
        {
          method: "POST",
          path: "/api/related",
          setupRequest: (req: AutocannonRequest) => ({ ...req, body: relatedBody(ids[Math.floor(Math.random() * ids.length)]) }),
        },
      ],
    });
    instance.on("response", (_c, status, _b, ms) => {
      (status === 503 ? busyLatencies : latencies).push(ms);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    });
    const result = await instance;
    clearInterval(rssTimer);
    sampler.postMessage("stop");
    await new Promise((r) => sampler.once("exit", r));
    const rssAfter = serverPid ? treeRss(serverPid) : NaN;
    const report = loadReport({ base, warmMs, result, statuses, latencies, busyLatencies, samples, rss, rssBefore, rssAfter });
    if (args.out) writeFileSync(args.out, `${JSON.stringify(report, null, 2)}\n`);
    if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else printLoadReport(report);
  } finally {
    stopServer();
  }
}

await main();
