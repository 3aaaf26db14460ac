/**
 * Embedding throughput on the demo corpus's facet items.
 *
 *   npx tsx scripts/bench/embed.ts [--sample 2000] [--embedder use-lite] [--threads]
 *                                  [--all [--cache-dir DIR]]
 *
 * (--sample 0 skips the comparisons, e.g. to time --all alone.)
 *
 * Takes the first --sample facet items (papers in file order, facets in paper order) and embeds
 * them with the model in this process, then with 2 worker processes (and, with --threads, 2
 * worker threads), printing items/s (model loading excluded, reported apart) and peak RSS.
 * With --all it embeds every item of the corpus into a vector cache (default: the location a
 * graph build uses, cacheDirFor("acl-citegraph", embedder id) under .graft/) with 2 workers, then
 * runs again to show that nothing is embedded twice.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { defaultCorpusPath } from "@/lib/paths";
import { readCorpus } from "@/lib/corpus/read";
import { FACETS } from "@/lib/corpus";
import { cacheDirFor, embedWithCache, createEmbedder, embedderSpecFromEnv } from "@/lib/embed";
import { ParallelEmbedder, type WorkerMode } from "@/lib/embed/parallel";

const { values: args } = parseArgs({
  options: {
    sample: { type: "string", default: "2000" },
    embedder: { type: "string" },
    threads: { type: "boolean", default: false },
    all: { type: "boolean", default: false },
    "cache-dir": { type: "string" },
  },
});
const spec = args.embedder ?? embedderSpecFromEnv();
const sampleSize = Number(args.sample);
if (!Number.isInteger(sampleSize) || sampleSize < 0) throw new Error(`--sample must be a non-negative integer, got ${args.sample}`);

/** Peak resident set of a process in MB, from /proc (Linux); null where unavailable. */
function peakRssMb(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}
const mb = (x: number | null) => (x === null ? "n/a" : `${x.toFixed(0)} MB`);

const corpusPath = defaultCorpusPath();
const corpus = await readCorpus(corpusPath);
const items: string[] = [];
for (const p of corpus.papers) for (const f of FACETS) for (const t of p.facets?.[f] ?? []) items.push(t);
const sample = items.slice(0, sampleSize);
console.log(
  `corpus ${corpusPath}: ${corpus.papers.length} papers, ${items.length} facet items; sample ${sample.length}; ` +
    `embedder "${spec}"; node ${process.version}; ${availableParallelism()} cores`,
);

async function runPool(mode: WorkerMode, texts: string[]): Promise<void> {
  const t0 = performance.now();
  const pool = await ParallelEmbedder.create(spec, { workers: 2, mode });
  const loadS = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  await pool.embed(texts);
  const s = (performance.now() - t1) / 1000;
  // Read the workers' peaks before they exit; threads share this process's RSS.
  const workerPeaks = mode === "process" ? pool.pids.map(peakRssMb) : [];
  await pool.close();
  const rss = mode === "process" ? `peak RSS per worker ${workerPeaks.map(mb).join(", ")}` : "(threads: RSS is this process's, below)";
  console.log(
    `2 worker ${mode === "process" ? "processes" : "threads"}${mode === "process" ? "" : "  "}  ${(texts.length / s).toFixed(1).padStart(6)} items/s  ` +
      `(${texts.length} in ${s.toFixed(1)} s; start + model load ${loadS.toFixed(1)} s)  ${rss}`,
  );
}

async function runInProcess(texts: string[]): Promise<void> {
  const peakBefore = process.resourceUsage().maxRSS / 1024;
  const t0 = performance.now();
  const embedder = await createEmbedder(spec);
  const loadS = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  await embedder.embed(texts);
  const s = (performance.now() - t1) / 1000;
  await embedder.close?.();
  console.log(
    `1 process (in-process)  ${(texts.length / s).toFixed(1).padStart(6)} items/s  (${texts.length} in ${s.toFixed(1)} s; ` +
      `model load ${loadS.toFixed(1)} s)  peak RSS of this process ${mb(peakBefore)} before the model, ` +
      `${mb(process.resourceUsage().maxRSS / 1024)} with it`,
  );
}

// Order matters for the RSS figures: the process pool leaves this process light, the in-process
// model then sets its peak, and worker threads (whose memory is this process's) come last.
if (sample.length > 0) {
  await runPool("process", sample);
  await runInProcess(sample);
  if (args.threads) {
    await runPool("thread", sample);
    console.log(`peak RSS of this process after the thread pool: ${mb(process.resourceUsage().maxRSS / 1024)}`);
  }
}

if (args.all) {
  const pool = await ParallelEmbedder.create(spec, { workers: 2, mode: "process" });
  try {
    const dir = args["cache-dir"] ?? cacheDirFor("acl-citegraph", pool.id);
    console.log(`--all: cache ${dir}`);
    for (const run of ["first run", "re-run"]) {
      let total = 0;
      let lastPct = -1;
      const t0 = performance.now();
      const vectors = await embedWithCache(pool, items, {
        dir,
        onProgress: (done, n) => {
          total = n;
          const pct = n === 0 ? 100 : Math.floor((done / n) * 10) * 10;
          if (pct !== lastPct && n > 0) process.stderr.write(`  ${run}: ${done}/${n} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
          lastPct = pct;
        },
      });
      const s = (performance.now() - t0) / 1000;
      console.log(
        `--all ${run.padEnd(9)}  ${vectors.length} items, ${total} new, ${vectors.length - total} from cache, ${s.toFixed(1)} s` +
          (total > 0 ? `  (${(total / s).toFixed(1)} new items/s)` : ""),
      );
    }
  } finally {
    await pool.close();
  }
}
