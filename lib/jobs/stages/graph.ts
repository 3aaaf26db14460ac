import { z } from "zod";
import path from "node:path";
import { type BuildHandle, resumeBuild } from "@/lib/builds";
import { corpusName, DEFAULT_CORPUS } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { dataRoot } from "@/lib/paths";
import { parseEmbedderSpec } from "@/lib/embed/registry";
import type { GraphStageReport } from "@/lib/graph/build";
import { itemSimilaritySpec, parseItemSimilarity, similarityOfParams } from "@/lib/graph/similarity";
import { failpoint } from "../failpoints";
import { registerStage } from "../registry";
import { runEmbedSlices } from "./embed-slice";
import { runGraphBlocks } from "./graph-block";

// The graph stage as a job: buildGraphStage (embeddings → exact top-K typed edges → CSR +
// manifest + edge rows) in a build the job owns. The build is linked to the job when it is
// created; a re-run after a crash reopens that build and writes the same files and rows again
// (files by rename, edges replaced in one transaction), or returns at once if it had completed.
// Above GRAFT_ANN_MIN_PAPERS, a re-run after a crash while the ANN index files were being written
// goes straight back to them (the graph and edges were durable): see buildGraphStage.

export const graphStageParams = z
  .object({
    corpus: corpusName.default(DEFAULT_CORPUS),
    embedder: z
      .string()
      .trim()
      .max(300, "embedder spec is longer than 300 characters")
      .refine((s) => {
        try {
          parseEmbedderSpec(s);
          return true;
        } catch {
          return false;
        }
      }, 'embedder must be "use-lite", "minilm", "minilm:<hub id or local folder>" or "lsa:<model folder>"')
      .optional(),
    k: z.number().int().min(1).max(200).default(20),
    alpha: z.number().min(0).max(1).optional(),
    beta: z.number().min(0).max(1).optional(),
    similarity: z
      .string()
      .trim()
      .refine((s) => {
        try {
          parseItemSimilarity(s);
          return true;
        } catch {
          return false;
        }
      }, 'similarity must be "cosine", "mix" or "mix:<λ between 0 and 1>"')
      .optional(),
    workers: z.number().int().min(1).max(16).optional(),
    /** Row blocks per facet of the all-pairs kernel, each a "graph-block" job any worker may take (1 or absent: one pass here). */
    shards: z.number().int().min(1).max(1024).optional(),
    /** Item rows per kernel chunk (the unit shards are cut in); tests use small ones. */
    chunkItems: z
      .number()
      .int()
      .min(1)
      .max(1 << 20)
      .optional(),
  })
  .strict();
export type GraphStageParams = z.infer<typeof graphStageParams>;

/**
 * The job's result: the stage's report, the same shape as buildGraphStage's (the CLI prints
 * either). When the build had completed before a crash, it is rebuilt from the manifest, which
 * does not record how many vectors that run embedded (newlyEmbedded 0).
 */
async function reportOf(db: Db, buildId: number): Promise<GraphStageReport> {
  const b = await db.build.findUniqueOrThrow({ where: { id: buildId } });
  const m = JSON.parse(b.manifest) as {
    embedder?: { id?: string };
    similarity?: string;
    edgeRows?: boolean;
    timings?: { embedSeconds?: number; graphSeconds?: number; storeSeconds?: number; annSeconds?: number };
    ann?: { files?: { facet: string; file: string; items: number; seconds: number }[] };
    files?: { path: string; bytes: number }[];
    statistics?: { papers?: number; items?: number; facets?: GraphStageReport["facets"]; coverage?: GraphStageReport["coverage"]; gflops?: number };
  };
  return {
    build: b.id,
    dir: path.resolve(dataRoot(), b.dir),
    papers: m.statistics?.papers ?? 0,
    items: m.statistics?.items ?? 0,
    embedder: m.embedder?.id ?? "",
    similarity: m.similarity ?? itemSimilaritySpec(similarityOfParams(JSON.parse(b.params) as { similarity?: unknown })),
    embedSeconds: m.timings?.embedSeconds ?? 0,
    newlyEmbedded: 0,
    graphSeconds: m.timings?.graphSeconds ?? 0,
    storeSeconds: m.timings?.storeSeconds ?? 0,
    edgeRows: m.edgeRows !== false,
    gflops: m.statistics?.gflops ?? 0,
    facets: m.statistics?.facets ?? [],
    coverage: m.statistics?.coverage ?? [],
    annSeconds: m.timings?.annSeconds ?? 0,
    annIndexes: (m.ann?.files ?? []).map((a) => ({ ...a, bytes: m.files?.find((f) => f.path === a.file)?.bytes ?? 0, reused: false })),
  };
}

/** Overall progress: embedding dominates a cold build, the edge store a warm one; ANN indexes only above GRAFT_ANN_MIN_PAPERS. */
const SPANS = { embed: [0, 0.5], graph: [0.5, 0.85], store: [0.85, 0.9], ann: [0.9, 1] } as const;

registerStage<GraphStageParams>(
  "graph",
  async (ctx) => {
    const { db, job, params, progress, log, flush, signal } = ctx;
    const { buildGraphStage } = await import("@/lib/graph/build");
    let resume: BuildHandle | undefined;
    if (job.buildId !== null) {
      const r = await resumeBuild(db, job.buildId);
      if (r.status === "complete") {
        log(`build ${job.buildId} had completed before the previous worker stopped: nothing left to do`);
        // A sharded build's rows outlive it when the worker died right after completing it.
        if (params.shards !== undefined && params.shards > 1) await (await import("@/lib/graph/shards")).dropShardData(db, job.buildId);
        return reportOf(db, job.buildId);
      }
      log(`resuming build ${job.buildId} (was ${r.status}): its files and edges are written again`);
      resume = r.handle;
    }
    const report = await buildGraphStage(db, {
      corpus: params.corpus,
      embedder: params.embedder,
      k: params.k,
      alpha: params.alpha,
      beta: params.beta,
      similarity: params.similarity,
      workers: params.workers,
      chunkItems: params.chunkItems,
      sharded:
        params.shards !== undefined && params.shards > 1
          ? {
              shards: params.shards,
              runBlocks: (build, plan) => runGraphBlocks(ctx, build, plan),
              runSlices: (build, plan) => runEmbedSlices(ctx, build, plan),
            }
          : undefined,
      jobId: job.id,
      resume,
      signal,
      onLog: (line) => log(line),
      onProgress: (phase, done, total, detail) => {
        const [a, b] = SPANS[phase];
        progress(
          done,
          total,
          `${phase}${detail ? ` ${detail}` : ""} ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")}`,
          a + (b - a) * (total ? done / total : 1),
        );
      },
      onPhase: async (phase, build) => {
        const what = {
          started: `build ${build.id} in ${build.dir}`,
          embedded: "item vectors ready (cache committed)",
          artefacts: "graph.csr and papers.json written",
          edges: "edge rows stored (none for corpora above GRAFT_EDGE_ROWS_MAX_PAPERS papers: pages read graph.csr)",
          indexes: "ANN index files written (corpora above GRAFT_ANN_MIN_PAPERS papers)",
        }[phase];
        log(what);
        await failpoint(`graph:${phase}`, (line) => {
          log(line, "warn");
          return flush();
        });
      },
    });
    log(`build ${report.build} complete: ${report.papers} papers, ${report.items} items; served from now on`);
    return report;
  },
  {
    params: graphStageParams,
    description:
      "embed facet items, build the exact top-K typed graph, write graph.csr + manifest and store the edges (up to GRAFT_EDGE_ROWS_MAX_PAPERS papers)",
  },
);
