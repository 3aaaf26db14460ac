// `npm run worker`: a pipeline worker. Claims queued jobs from the store (DATABASE_URL), runs
// their stages, renews its lease while it works, and on SIGTERM/SIGINT hands the running job
// back to the queue and exits 0. Any number of workers may share one store. A worker that only
// helps with sharded graph builds (`--stages graph-block`) needs nothing but DATABASE_URL: the
// blocks' inputs and lists travel through the store (lib/graph/shards.ts). With
// --exit-when-idle, start it once the blocks are queued, or it may find nothing and stop.
//
//   npm run worker [-- --stages graph,import] [--exit-when-idle] [--max-jobs N]
import { parseArgs } from "node:util";
import { defaultOf } from "@/lib/config";
import { disconnectDb, getDb } from "@/lib/db";
import { listStages, type LogLevel, runWorker } from "@/lib/jobs";
import "@/lib/jobs/stages";

const USAGE = `usage: npm run worker -- [--stages a,b] [--exit-when-idle] [--max-jobs N]

  --stages a,b       take only these stages (default: all: ${listStages()
    .map((s) => s.name)
    .join(", ")})
  --exit-when-idle   exit once the queue has nothing for this worker
  --max-jobs N       exit after N jobs
Environment (README "Configuration"): DATABASE_URL, GRAFT_DATA_ROOT,
${(["GRAFT_JOB_LEASE_S", "GRAFT_JOB_MAX_ATTEMPTS", "GRAFT_WORKER_POLL_MS", "GRAFT_WORKER_GRACE_S"] as const).map((n) => `${n} (${defaultOf(n)})`).join(", ")}.`;

function line(text: string, level: LogLevel): void {
  const out = level === "info" ? process.stdout : process.stderr;
  out.write(`${new Date().toISOString()} ${level.padEnd(5)} ${text}\n`);
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        stages: { type: "string" },
        "exit-when-idle": { type: "boolean", default: false },
        "max-jobs": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const maxJobs = values["max-jobs"] === undefined ? undefined : Number(values["max-jobs"]);
  if (maxJobs !== undefined && (!Number.isInteger(maxJobs) || maxJobs < 1)) {
    process.stderr.write(`--max-jobs must be a positive integer\n`);
    return 2;
  }
  const stages = values.stages
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);

  const shutdown = new AbortController();
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      line(`second ${sig}: exiting now (the job's lease will expire and another worker resumes it)`, "warn");
      process.exit(1);
    }
    line(`${sig}: finishing up (the running job goes back to the queue)`, "warn");
    shutdown.abort();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);

  try {
    const report = await runWorker(getDb(), { stages, exitWhenIdle: values["exit-when-idle"], maxJobs, signal: shutdown.signal, echo: line, progress: true });
    line(`worker ${report.workerId} stopped after ${report.jobs.length} job(s)`, "info");
    return report.jobs.some((j) => j.outcome === "failed") && values["exit-when-idle"] ? 1 : 0;
  } catch (err) {
    line(`worker failed: ${err instanceof Error ? err.message : String(err)}`, "error");
    return 1;
  } finally {
    await disconnectDb();
  }
}

process.exitCode = await main();
// Embedding worker processes and timers must not keep a stopped worker alive.
setTimeout(() => process.exit(), 2000).unref();
