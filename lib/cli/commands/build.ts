import path from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { hasIntactBuildWith } from "@/lib/builds";
import { corpusName, DEFAULT_CORPUS } from "@/lib/corpus";
import { type Db, getDb } from "@/lib/db";
import { buildGenretStage, DEFAULT_TRAINER, type GenretStageReport } from "@/lib/genret/build";
import { DISTILL_VARIANTS } from "@/lib/genret";
import { installPretrainedModel } from "@/lib/genret/pretrained";
import { buildGraphStage, type GraphStageReport } from "@/lib/graph/build";
import { DEFAULT_ITEM_SIMILARITY, itemSimilaritySpec, parseItemSimilarity } from "@/lib/graph";
import { enqueueStage, JobNotRunnableError, runJobInline, FINISHED_STATUSES, type JobStatus } from "@/lib/jobs";
import "@/lib/jobs/stages";
import { emit, fmt, parseOptions, table, UsageError } from "../output";
import { ProgressBar } from "../progress";

const STAGES = ["graph", "genret", "all"] as const;
const VARIANTS = Object.keys(DISTILL_VARIANTS) as [keyof typeof DISTILL_VARIANTS, ...(keyof typeof DISTILL_VARIANTS)[]];

const buildOptions = z
  .object({
    stage: z.enum(STAGES, { error: `stage must be one of: ${STAGES.join(", ")}` }),
    corpus: corpusName.default(DEFAULT_CORPUS),
    embedder: z.string().optional(),
    k: z.coerce.number().int().min(1).max(200).default(20),
    alpha: z.coerce.number().min(0).max(1).optional(),
    beta: z.coerce.number().min(0).max(1).optional(),
    similarity: z
      .string()
      .optional()
      .superRefine((v, ctx) => {
        if (v === undefined) return;
        try {
          parseItemSimilarity(v);
        } catch (err) {
          ctx.addIssue({ code: "custom", message: (err as Error).message });
        }
      }),
    workers: z.coerce.number().int().min(1).max(64).optional(),
    shards: z.coerce
      .number({ error: "shards must be a positive integer" })
      .int("shards must be a positive integer")
      .min(1, "shards must be a positive integer")
      .max(1024, "shards must be at most 1024 (row blocks per facet)")
      .optional(),
    variant: z.enum(VARIANTS, { error: `variant must be one of: ${VARIANTS.join(", ")}` }).default("uniform"),
    seed: z.coerce.number().int().min(0).default(0),
    trainMinutes: z.coerce
      .number()
      .positive()
      .max(100_000)
      .default(DEFAULT_TRAINER.timeBudget / 60),
    epochs: z.coerce.number().positive().max(10_000).default(DEFAULT_TRAINER.epochs),
    dModel: z.coerce.number().int().min(16).max(4096).default(DEFAULT_TRAINER.dModel),
    layers: z.coerce.number().int().min(1).max(48).default(DEFAULT_TRAINER.layers),
    heads: z.coerce.number().int().min(1).max(64).default(DEFAULT_TRAINER.heads),
    ff: z.coerce.number().int().min(16).max(16384).default(DEFAULT_TRAINER.ff),
    batch: z.coerce.number().int().min(1).max(65536).default(DEFAULT_TRAINER.batch),
    lr: z.coerce.number().positive().max(1).default(DEFAULT_TRAINER.lr),
    tokenPrior: z.boolean().default(DEFAULT_TRAINER.tokenPrior),
    device: z.enum(["auto", "cpu", "cuda"]).default("auto"),
    condition: z.enum(["vector", "tokens"], { error: "condition must be vector or tokens" }).default("vector"),
    pretrained: z.union([z.boolean(), z.string().min(1)]).optional(),
    ifMissing: z.boolean().default(false),
    json: z.boolean().default(false),
  })
  .refine((o) => o.dModel % o.heads === 0, { message: "--d-model must be a multiple of --heads", path: ["dModel"] })
  .refine((o) => o.shards === undefined || o.stage !== "genret", { message: "only the graph stage is sharded (--stage graph or all)", path: ["shards"] });

type BuildOptions = z.infer<typeof buildOptions>;

function graphLines(report: GraphStageReport, corpus: string): string {
  return [
    `build ${report.build} of ${corpus}: ${fmt(report.papers)} papers, ${fmt(report.items)} facet items → ${report.dir}`,
    `embed ${report.embedSeconds.toFixed(1)} s (${fmt(report.newlyEmbedded)} new with ${report.embedder}) · similarity ${report.similarity} · graph ${report.graphSeconds.toFixed(1)} s at ${report.gflops.toFixed(0)} GFLOP/s · ${report.edgeRows === false ? "no Edge rows (GRAFT_EDGE_ROWS_MAX_PAPERS)" : `store ${report.storeSeconds.toFixed(1)} s`}`,
    ...(report.annIndexes?.length
      ? [`ANN index files ${report.annSeconds.toFixed(1)} s: ${report.annIndexes.map((a) => `${a.facet} ${a.seconds.toFixed(1)} s`).join(" · ")}`]
      : []),
    "",
    table(
      ["facet", "items", "edges", "kernel s"],
      report.facets.map((f) => [f.facet, fmt(f.items), fmt(f.edges), f.kernelSeconds.toFixed(2)]),
    ),
    "",
    table(
      ["K", "coverage", ...report.facets.map((f) => f.facet)],
      report.coverage.map((c) => [
        c.k,
        `${(c.share * 100).toFixed(1)}%`,
        ...report.facets.map((f) => `${((c.perFacet[f.facet]?.share ?? 0) * 100).toFixed(1)}%`),
      ]),
    ),
  ].join("\n");
}

const POLL_MS = 1000;
/** How long the store may refuse the poll (SQLite is locked while the edge rows are stored). */
const POLL_PATIENCE_MS = 5 * 60 * 1000;
const isBusy = (err: unknown) => /database is locked|SQLITE_BUSY|timed out/i.test(String((err as Error)?.message ?? err));

/** A graph job another process runs (a worker claimed it first): its progress, then its report once it succeeds. */
export async function graphJobReport(db: Db, jobId: number, bar: ProgressBar): Promise<GraphStageReport> {
  let failingSince: number | null = null;
  for (;;) {
    let job: Awaited<ReturnType<typeof db.job.findUniqueOrThrow>> | null;
    try {
      job = await db.job.findUniqueOrThrow({ where: { id: jobId } });
      failingSince = null;
    } catch (err) {
      if (!isBusy(err)) throw err;
      failingSince ??= Date.now();
      if (Date.now() - failingSince > POLL_PATIENCE_MS) throw err;
      job = null;
    }
    if (job?.status === "succeeded") return JSON.parse(job.result ?? "null") as GraphStageReport;
    if (job && (FINISHED_STATUSES as readonly JobStatus[]).includes(job.status as JobStatus))
      throw new Error(`graph job ${jobId} ${job.status}${job.error ? `: ${job.error}` : ""}`);
    if (job) bar.update(Math.round(job.progress * 1000), 1000, job.message.replace(/\s*[\d,]+\/[\d,]+$/, ""));
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** The graph stage's options from the command's, sharded or not. */
function graphStageOptions(opts: BuildOptions) {
  return { corpus: opts.corpus, embedder: opts.embedder, k: opts.k, alpha: opts.alpha, beta: opts.beta, similarity: opts.similarity, workers: opts.workers };
}

/**
 * `--shards N`: the graph stage as a queued "graph" job with param shards, run here as its
 * coordinator (as `graft jobs run --stage graph --param shards=N` does). Its row blocks become
 * "graph-block" jobs that every `npm run worker` sharing the store claims; this process runs the
 * ones still queued, so it also finishes alone. Ctrl-C hands the job back to the queue.
 */
async function shardedGraphStage(db: Db, opts: BuildOptions, bar: ProgressBar): Promise<GraphStageReport> {
  const params = { ...graphStageOptions(opts), shards: opts.shards };
  let jobId: number;
  try {
    jobId = (await enqueueStage(db, "graph", params)).job.id;
  } catch (err) {
    // The job's own limits (e.g. at most 16 embedding workers) are the user's to fix.
    if (err instanceof z.ZodError)
      throw new UsageError(`invalid options:\n  ${err.issues.map((i) => `--${String(i.path[0] ?? "input")}: ${i.message}`).join("\n  ")}`);
    throw err;
  }
  process.stderr.write(`graft: graph job ${jobId}, ${opts.shards} shard(s) per facet: \`npm run worker\` processes sharing this store take its block jobs\n`);
  const shutdown = new AbortController();
  const onSigint = () => shutdown.abort();
  process.once("SIGINT", onSigint);
  try {
    const run = await runJobInline(db, jobId, {
      shutdown: shutdown.signal,
      // The stage's message ends with its counts, which the progress line prints itself.
      onProgress: (done, total, message) => bar.update(done, total ?? 0, message.replace(/\s*[\d,]+\/[\d,]+$/, "")),
      echo: (line, level) => {
        if (level !== "info") process.stderr.write(`\r\x1b[2K${level}: ${line}\n`);
      },
    });
    if (run.outcome === "released")
      throw new Error(`graph job ${jobId} handed back to the queue: \`npm run worker\` or \`graft jobs run ${jobId}\` resumes it`);
    if (run.outcome !== "succeeded") throw new Error(`graph job ${jobId} ${run.outcome}${run.error ? `: ${run.error}` : ""}`);
    return run.result as GraphStageReport;
  } catch (err) {
    // A worker claimed the job between the enqueue and this claim: it coordinates, we wait.
    if (!(err instanceof JobNotRunnableError)) throw err;
    process.stderr.write(`graft: a worker took graph job ${jobId}; waiting for it\n`);
    return graphJobReport(db, jobId, bar);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

function genretLines(r: GenretStageReport): string {
  const t = r.training as { seen?: number; epochs?: number; params?: number; trainSeconds?: number };
  return [
    `build ${r.build} (generative retriever, ${r.variant}${r.resumed ? ", resumed" : ""}) from graph build ${r.graphBuild} → ${r.dir}`,
    `training papers: ${r.trainingPapers.rule}`,
    `DocIDs ${fmt(r.distinctDocIds)} · vocabulary ${fmt(r.vocabSize)} tokens · ${fmt(r.examples)} training examples · target coverage ${(r.targetCoverage * 100).toFixed(1)}%`,
    `model ${fmt(t.params ?? 0)} parameters · ${fmt(t.seen ?? 0)} examples seen (${(t.epochs ?? 0).toFixed(2)} epochs) in ${((t.trainSeconds ?? 0) / 60).toFixed(1)} min`,
    `stages: docids ${r.seconds.docids.toFixed(1)} s · examples ${r.seconds.examples.toFixed(1)} s · train ${r.seconds.train.toFixed(1)} s · export ${r.seconds.export.toFixed(1)} s`,
  ].join("\n");
}

export function registerBuild(program: Command): void {
  program
    .command("build")
    .description("build a corpus's artefacts into new versioned builds (stages: graph, genret = docids → tries → training data → training → export, all)")
    .requiredOption("--stage <stage>", `stage to build: ${STAGES.join(", ")}`)
    .option("--corpus <name>", `corpus name (default: ${DEFAULT_CORPUS})`)
    .option(
      "--embedder <spec>",
      "use-lite | minilm | minilm:<hub id or local folder> | lsa:<folder> (default: GRAFT_EMBEDDER; for the demo corpus, unless GRAFT_EMBEDDER is set, its text encoder lsa:models/acl-contrastive)",
    )
    .option("--k <k>", "edges kept per paper per facet", "20")
    .option("--alpha <a>", "facet-score weight α of w = αs + βc (default 0.25 with --similarity mix, 0.75 with cosine)")
    .option("--beta <b>", "citation-score weight β (default 1 − α)")
    .option(
      "--similarity <s>",
      `item similarity of s: cosine (embedding max-sim) | mix[:λ] ((1 − λ)·cosine + λ·TF-IDF max-sim over the corpus's items; default ${itemSimilaritySpec(DEFAULT_ITEM_SIMILARITY)})`,
    )
    .option("--workers <n>", "embedding worker processes (default: 2)")
    .option(
      "--shards <n>",
      "graph: cut the all-pairs kernel into n row blocks per facet, queued as jobs that `npm run worker` processes sharing the store claim",
    )
    .option("--json", "machine-readable output")
    .option("--variant <name>", `distillation variant: ${VARIANTS.join(" | ")}`, "uniform")
    .option("--seed <n>", "seed of the training data and the trainer", "0")
    .option("--train-minutes <m>", "training time budget in minutes (the LR schedule fits it)", String(DEFAULT_TRAINER.timeBudget / 60))
    .option("--epochs <n>", "at most this many epochs", String(DEFAULT_TRAINER.epochs))
    .option("--d-model <n>", "decoder width", String(DEFAULT_TRAINER.dModel))
    .option("--layers <n>", "decoder layers", String(DEFAULT_TRAINER.layers))
    .option("--heads <n>", "attention heads", String(DEFAULT_TRAINER.heads))
    .option("--ff <n>", "feed-forward width", String(DEFAULT_TRAINER.ff))
    .option("--batch <n>", "examples per step", String(DEFAULT_TRAINER.batch))
    .option("--lr <x>", "peak learning rate", String(DEFAULT_TRAINER.lr))
    .option("--no-token-prior", "start token embeddings from noise instead of the identifiers' embeddings")
    .option("--device <d>", "auto (CUDA when present) | cpu | cuda", "auto")
    .option("--condition <c>", "what the decoder reads of a query item: vector (its embedding) | tokens (its words, a prefix LM)", "vector")
    .option("--if-missing", "skip a stage whose complete build already exists (set-up scripts)")
    .option("--pretrained [dir]", "genret: install a trained model instead of training (default: the one shipped for the demo corpus)")
    .action(async (raw: unknown) => {
      const opts = parseOptions(buildOptions, raw);
      const db = getDb();
      const out: { graph?: GraphStageReport; genret?: GenretStageReport } = {};
      // A damaged build (a file missing, truncated or changed since) counts as missing: it is rebuilt.
      const exists = async (artefact: string, stage: "graph" | "genret") => opts.ifMissing && (await hasIntactBuildWith(db, opts.corpus, artefact, stage));
      if ((opts.stage === "graph" || opts.stage === "all") && (await exists("graph.csr", "graph"))) {
        process.stderr.write(`graft: ${opts.corpus} already has a graph build (--if-missing)\n`);
      } else if (opts.stage === "graph" || opts.stage === "all") {
        const bar = new ProgressBar("build graph");
        out.graph =
          opts.shards !== undefined
            ? await shardedGraphStage(db, opts, bar)
            : await buildGraphStage(db, {
                ...graphStageOptions(opts),
                onProgress: (phase, d, t, detail) => bar.update(d, t, detail ? `${phase} ${detail}` : phase),
                onLog: (line) => process.stderr.write(`\r\x1b[2K${line}\n`),
              });
        bar.done();
      }
      if ((opts.stage === "genret" || opts.stage === "all") && (await exists("decoder.onnx", "genret"))) {
        process.stderr.write(`graft: ${opts.corpus} already has a generative-retriever build (--if-missing)\n`);
      } else if ((opts.stage === "genret" || opts.stage === "all") && opts.pretrained) {
        const r = await installPretrainedModel(db, opts.corpus, typeof opts.pretrained === "string" ? path.resolve(opts.pretrained) : undefined);
        emit(opts, r, () => `build ${r.build}: installed the trained generative retriever (${r.variant}) from ${r.source} → ${r.dir}`);
        return;
      } else if (opts.stage === "genret" || opts.stage === "all") {
        const bar = new ProgressBar("build genret");
        out.genret = await buildGenretStage(db, {
          corpus: opts.corpus,
          variant: opts.variant,
          seed: opts.seed,
          trainer: {
            timeBudget: opts.trainMinutes * 60,
            epochs: opts.epochs,
            dModel: opts.dModel,
            layers: opts.layers,
            heads: opts.heads,
            ff: opts.ff,
            batch: opts.batch,
            lr: opts.lr,
            tokenPrior: opts.tokenPrior,
            device: opts.device === "auto" ? undefined : opts.device,
            condition: opts.condition === "tokens" ? "tokens" : undefined,
          },
          onProgress: (phase, d, t, detail) => bar.update(d, t, detail ? `${phase} ${detail}` : phase),
        });
        bar.done();
      }
      if (!out.graph && !out.genret) return;
      const value = opts.stage === "all" ? out : (out.graph ?? out.genret);
      emit(opts, value, () => [out.graph ? graphLines(out.graph, opts.corpus) : "", out.genret ? genretLines(out.genret) : ""].filter(Boolean).join("\n\n"));
    });
}
