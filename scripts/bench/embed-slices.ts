/**
 * Sharded item embedding against one process, on a corpus in the store (issue 18, "beyond one
 * machine"): the embedding step of a sharded graph build, without the kernel after it.
 *
 *   DATABASE_URL=… GRAFT_DATA_ROOT=… npx tsx scripts/bench/embed-slices.ts --corpus acl-anthology \
 *     --embedder lsa:<folder> [--shards 3] [--workers 2] [--embed-workers 1] [--one-process]
 *
 * Reads the corpus's facet item texts in the graph stage's order, then either (--one-process)
 * embeds those missing from the vector cache as the unsharded graph stage does (embedWithCache
 * over a ParallelEmbedder of --embed-workers processes), or, on a scratch build row, cuts them
 * into slices (lib/embed/shards.ts), queues one embed-slice job per slice and starts --workers
 * `npm run worker -- --stages embed-slice --exit-when-idle` processes that take them, then appends
 * their vectors to the cache. Prints the phases' wall times and this process's peak RSS, then
 * removes the scratch build (its rows go with it). The cache is GRAFT_DATA_ROOT's usual one:
 * point GRAFT_DATA_ROOT at an empty folder for a cold run, and compare two runs' caches with cmp.
 * Writes to the store: use a copy, never a store others read.
 */
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { FACETS } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import { cacheDirFor, embedWithCache, createEmbedder } from "@/lib/embed";
import { ParallelEmbedder } from "@/lib/embed/parallel";
import { embedMissingInSlices, missingEmbedSlices } from "@/lib/embed/shards";
import { EMBED_SLICE_STAGE } from "@/lib/jobs/stages/embed-slice";
import { enqueueStage } from "@/lib/jobs";
import { repoRoot } from "@/lib/paths";

const { values: args } = parseArgs({
  options: {
    corpus: { type: "string", default: "acl-anthology" },
    embedder: { type: "string" },
    shards: { type: "string", default: "3" },
    workers: { type: "string", default: "2" },
    "embed-workers": { type: "string", default: "1" },
    "one-process": { type: "boolean", default: false },
  },
});
const positive = (name: string, v: string | undefined) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${v}`);
  return n;
};
if (!args.embedder) throw new Error("--embedder is required (e.g. lsa:<model folder>)");
const spec = args.embedder;
const shards = positive("shards", args.shards);
const workers = positive("workers", args.workers);
const embedWorkers = positive("embed-workers", args["embed-workers"]);

const db = getDb();
const t0 = performance.now();
const seconds = (from: number) => ((performance.now() - from) / 1000).toFixed(1);
const corpus = await db.corpus.findUniqueOrThrow({ where: { name: args.corpus } });
// The graph stage's query and order (lib/graph/build.ts loadFacetItems).
const items = await db.facetItem.findMany({
  where: { paper: { corpusId: corpus.id, role: "corpus" } },
  select: { facet: true, text: true },
  orderBy: [{ paperId: "asc" }, { position: "asc" }, { facet: "asc" }],
});
const texts = items.filter((i) => (FACETS as readonly string[]).includes(i.facet)).map((i) => i.text);
const probe = await createEmbedder(spec);
const embedder = { id: probe.id, dim: probe.dim };
await probe.close?.();
const dir = cacheDirFor(args.corpus, embedder.id);
console.log(`${texts.length.toLocaleString("en-US")} item texts of ${args.corpus} read in ${seconds(t0)} s; embedder ${embedder.id}; cache ${dir}`);

const t1 = performance.now();
if (args["one-process"]) {
  let embedded = 0;
  let pool: ParallelEmbedder | null = null;
  try {
    await embedWithCache(
      {
        ...embedder,
        embed: async (batch) => {
          embedded += batch.length;
          pool ??= await ParallelEmbedder.create(spec, { workers: embedWorkers });
          return pool.embed(batch);
        },
      },
      texts,
      { dir },
    );
  } finally {
    await (pool as ParallelEmbedder | null)?.close();
  }
  console.log(`one process (${embedWorkers} embedding processes): ${embedded.toLocaleString("en-US")} texts embedded in ${seconds(t1)} s`);
} else {
  const build = await db.build.create({ data: { corpusId: corpus.id, dir: `${args.corpus}/bench-embed-slices-${process.pid}`, status: "running" } });
  try {
    let slicesDone = 0;
    const appended = await embedMissingInSlices(db, build.id, texts, {
      dir,
      spec,
      embedder,
      shards,
      workers: embedWorkers,
      runSlices: async (plan) => {
        console.log(
          `plan ${plan.id.slice(0, 8)}: ${plan.texts.toLocaleString("en-US")} texts in ${plan.slices} slices of ${plan.sliceItems}; stored in ${seconds(t1)} s`,
        );
        const t2 = performance.now();
        for (const slice of await missingEmbedSlices(db, build.id, plan))
          await enqueueStage(db, EMBED_SLICE_STAGE, { corpus: args.corpus, build: build.id, plan: plan.id, slice }, { dedupe: true });
        const exits = Array.from(
          { length: workers },
          () =>
            new Promise<number | null>((resolve) => {
              const child = spawn(
                process.execPath,
                ["--import", "tsx", path.join(repoRoot, "workers/pipeline.ts"), "--stages", EMBED_SLICE_STAGE, "--exit-when-idle"],
                {
                  cwd: repoRoot,
                  env: process.env,
                  stdio: ["ignore", "inherit", "inherit"],
                },
              );
              child.on("exit", (code) => resolve(code));
            }),
        );
        const codes = await Promise.all(exits);
        slicesDone = plan.slices - (await missingEmbedSlices(db, build.id, plan)).length;
        console.log(
          `${workers} workers (${embedWorkers} embedding process(es) each): ${slicesDone}/${plan.slices} slices in ${seconds(t2)} s; exit codes ${codes.join(", ")}`,
        );
        if (slicesDone < plan.slices) throw new Error("some slices have no vectors");
      },
    });
    console.log(`sliced: ${appended.toLocaleString("en-US")} texts appended to the cache; ${seconds(t1)} s in all`);
  } finally {
    await db.build.delete({ where: { id: build.id } });
    await db.job.deleteMany({ where: { stage: EMBED_SLICE_STAGE, params: { contains: `"build":${build.id},` } } });
  }
}
console.log(
  `peak RSS of this process ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB; ${os.availableParallelism()} cores; load ${os.loadavg()[0].toFixed(2)}`,
);
await db.$disconnect();
