import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeFileAtomic } from "@/lib/atomic-write";
import { config, isSet, type Env } from "@/lib/config";
import {
  type ArtefactInfo,
  type BuildHandle,
  completeBuild,
  failBuild,
  recordArtefact,
  reopenUnfinishedBuild,
  startBuild,
  writeArtefact,
} from "@/lib/builds/build-dir";
import { DEFAULT_CORPUS } from "@/lib/corpus/browse";
import { FACETS, type Facet } from "@/lib/corpus/types";
import { bulkInsert } from "@/lib/db/bulk";
import { type Db, dbProvider } from "@/lib/db/client";
import { cacheDirFor, chunkedProgress, embedWithCache } from "@/lib/embed/cache";
import { ParallelEmbedder } from "@/lib/embed/parallel";
import { createEmbedder, embedderSpecFromEnv } from "@/lib/embed/registry";
import { type EmbedSlicePlan, embedMissingInSlices } from "@/lib/embed/shards";
import type { Embedder } from "@/lib/embed/types";
import { repoRoot } from "@/lib/paths";
import { type AnnIndexFile, DEFAULT_ANN_PARAMS, writeAnnIndexFiles } from "./ann";
import { citationRows } from "./citation-score";
import { coverage, type CoverageAtK } from "./coverage";
import { pruneCsr, writePaperGraph, type FacetCsr, type PaperGraph } from "./csr";
import { EDGE_ROW_COLUMNS, edgeRowCount, edgeRowSlices, storesEdgeRows } from "./edge-rows";
import { dropShardData, planShards, readMergedShardLists, type ShardPlan, storeShardInputs } from "./shards";
import { fitLexicalModel, LexicalIndex, packLexicalItems, serialiseLexicalModel } from "./lexical";
import { DEFAULT_LEXICAL_THREADS, LexicalPool } from "./lexical-pool";
import type { PackedFacetItems } from "./maxsim";
import { DEFAULT_ITEM_SIMILARITY, edgeWeightFor, type ItemSimilarity, itemSimilaritySpec, mixedFacetEdges, parseItemSimilarity } from "./similarity";
import { buildPaperGraph, type FacetBuildReport, type PaperGraphBuildOptions } from "./topk";
import type { RankedNeighbours } from "./topk-accumulator";

// The graph stage of `graft build`: corpus papers and facet items from the store → item
// embeddings (cached per corpus and embedder) → exact top-K edges per facet → CSR file +
// manifest in a versioned build directory, and the edges into the store for browsing. Above
// GRAFT_ANN_MIN_PAPERS it also writes each facet's HNSW index (lib/graph/ann.ts) into the build
// directory before completing the build, so no serving process has to build one.

export interface GraphStageOptions {
  corpus: string;
  /** Embedder spec ("use-lite" | "minilm[:model]" | "lsa:<folder>"); default defaultGraphEmbedder(corpus). */
  embedder?: string;
  k?: number;
  /** α, β of w = αs + βc; default by similarity (edgeWeightFor: 0.25, 0.75 for mix, the paper's 0.75, 0.25 for cosine), β = 1 − α when only α is given. */
  alpha?: number;
  beta?: number;
  /**
   * Item similarity behind s_f: "cosine" (embedding max-sim only, the paper's) or "mix[:λ]"
   * ((1 − λ)·cosine + λ·TF-IDF max-sim); default DEFAULT_ITEM_SIMILARITY. Stored in the build,
   * so serving inserts unseen papers with the same one.
   */
  similarity?: string | ItemSimilarity;
  /** Embedding worker processes, and threads of a mix build's lexical pass (default: one per core, at most 2). */
  workers?: number;
  /** Item rows per kernel chunk (default DEFAULT_CHUNK_ITEMS); the unit a sharded kernel cuts into row blocks. */
  chunkItems?: number;
  /**
   * Cut the all-pairs kernel into at most `shards` row blocks per facet (shards.ts) and have
   * `runBlocks` compute the missing ones (the graph job queues them as block jobs for any worker);
   * their lists are merged here, so graph.csr is the same as without sharding.
   */
  sharded?: GraphShardRunner;
  onProgress?: (phase: "embed" | "graph" | "store" | "ann", done: number, total: number, detail?: string) => void;
  /** Lines worth keeping in a log (each ANN index written, with its time). */
  onLog?: (line: string) => void;
  /**
   * A corpus with more papers than this gets an ANN index file per facet (default
   * GRAFT_ANN_MIN_PAPERS, the threshold above which serving inserts unseen papers through one).
   */
  annMinPapers?: number;
  /** Link the new build to this job (in the build's creating transaction), so a re-run of the job can resume it. */
  jobId?: number;
  /** Write into this existing build (a job resuming after a crash) instead of starting a new one. */
  resume?: BuildHandle;
  /** Checked between phases: an aborted build stops there and stays "running" for its job to resume. */
  signal?: AbortSignal;
  /**
   * Called at each phase boundary, after its work is durable: "started" (build row exists),
   * "embedded" (vector cache committed), "artefacts" (graph.csr + papers.json renamed into
   * place), "edges" (edge rows committed), "indexes" (ANN index files written; only above
   * annMinPapers). Jobs use it to log and to pause at test failpoints.
   */
  onPhase?: (phase: GraphStagePhase, build: BuildHandle) => void | Promise<void>;
}

export type GraphStagePhase = "started" | "embedded" | "artefacts" | "edges" | "indexes";

export interface GraphShardRunner {
  shards: number;
  /** Resolves once every task of the plan has its lists stored (the inputs are stored already). */
  runBlocks: (build: BuildHandle, plan: ShardPlan) => Promise<void>;
  /**
   * Texts missing from the vector cache are embedded in slices too (lib/embed/shards.ts): resolves
   * once every slice of the plan has its vectors stored. Absent: they are embedded here.
   */
  runSlices?: (build: BuildHandle, plan: EmbedSlicePlan) => Promise<void>;
}

export interface GraphStageReport {
  build: number;
  dir: string;
  papers: number;
  items: number;
  embedder: string;
  /** The item similarity of s_f ("cosine", "mix:0.5"). */
  similarity: string;
  embedSeconds: number;
  newlyEmbedded: number;
  graphSeconds: number;
  storeSeconds: number;
  /** Whether the build stored its Edge rows (not above GRAFT_EDGE_ROWS_MAX_PAPERS papers). */
  edgeRows: boolean;
  gflops: number;
  facets: { facet: Facet; items: number; edges: number; kernelSeconds: number }[];
  coverage: CoverageAtK[];
  /** Seconds of the ANN index step (0 below annMinPapers). */
  annSeconds: number;
  /** The ANN index files written into the build directory (none below annMinPapers). */
  annIndexes: AnnIndexFile[];
}

/**
 * Written into the build directory once the graph and its edges are durable, when ANN indexes
 * follow: a job resuming the build after a crash during the index step goes straight back to it
 * (resumeAtIndexes) instead of recomputing the graph. Removed when the build completes.
 */
const PENDING_FILE = "graph-pending.json";

interface PendingGraphBuild {
  params: Record<string, unknown>;
  report: Omit<GraphStageReport, "annSeconds" | "annIndexes">;
  manifest: Record<string, unknown> & { timings: Record<string, number> };
  artefacts: ArtefactInfo[];
}

/** The pending record of an interrupted run with the same parameters and papers whose files are all in place, else null. */
function resumeAtIndexes(build: BuildHandle, params: Record<string, unknown>, numPapers: number): PendingGraphBuild | null {
  const file = path.join(build.dir, PENDING_FILE);
  if (!existsSync(file)) return null;
  try {
    const pending = JSON.parse(readFileSync(file, "utf8")) as PendingGraphBuild;
    if (JSON.stringify(pending.params) !== JSON.stringify(params) || pending.report.papers !== numPapers) return null;
    const intact = pending.artefacts.every((a) => {
      const abs = path.join(build.dir, a.path);
      return existsSync(abs) && statSync(abs).size === a.bytes;
    });
    return intact ? pending : null;
  } catch {
    return null; // unreadable: the graph is computed again
  }
}

/** Coverage is reported at these K, so lists are built to the largest before pruning to k. */
const COVERAGE_KS = [10, 20, 50];
/** Edge rows per INSERT (and per JS slice held at once). */
const EDGE_STORE_STEP = 20_000;

/**
 * The corpus papers' facet items: their texts, per facet and node the indices of that paper's
 * items in `texts`, and how many rows the store returned. A function of its own so the rows
 * (every text again, with its paper id and facet) are garbage once it returns.
 */
async function loadFacetItems(
  db: Db,
  corpusId: number,
  index: ReadonlyMap<number, number>,
  numPapers: number,
): Promise<{ texts: string[]; itemRows: Record<Facet, number[][]>; found: number }> {
  // Items in a separate query: a nested include would bind one parameter per paper.
  const items = await db.facetItem.findMany({
    where: { paper: { corpusId, role: "corpus" } },
    select: { paperId: true, facet: true, text: true },
    // facet last: PostgreSQL returns ties in no fixed order, and the texts' order is the cache's
    // row order and a sharded build's embedding plan (SQLite already returned them so).
    orderBy: [{ paperId: "asc" }, { position: "asc" }, { facet: "asc" }],
  });
  const texts: string[] = [];
  const itemRows = Object.fromEntries(FACETS.map((f) => [f, Array.from({ length: numPapers }, () => [] as number[])])) as Record<Facet, number[][]>;
  for (const item of items) {
    if (!(FACETS as readonly string[]).includes(item.facet)) continue;
    itemRows[item.facet as Facet][index.get(item.paperId) as number].push(texts.length);
    texts.push(item.text);
  }
  return { texts, itemRows, found: items.length };
}

/** Each facet's item vectors packed contiguously, in node order (the kernel's input). */
function packFacetItems(itemRows: Record<Facet, number[][]>, vectors: readonly Float32Array[], dim: number): Partial<Record<Facet, PackedFacetItems>> {
  const packed: Partial<Record<Facet, PackedFacetItems>> = {};
  for (const f of FACETS) {
    const rows = itemRows[f];
    const offsets = new Int32Array(rows.length + 1);
    rows.forEach((r, i) => (offsets[i + 1] = offsets[i] + r.length));
    const data = new Float32Array(offsets[rows.length] * dim);
    let at = 0;
    for (const r of rows) for (const t of r) data.set(vectors[t], at++ * dim);
    packed[f] = { dim, offsets, data };
  }
  return packed;
}

/** The text encoder shipped for the demo corpus (fitted on its train split, models/README.md). */
export const DEMO_CORPUS_ENCODER = path.join(repoRoot, "models", "acl-contrastive");

/**
 * The embedder of a graph build that names none: GRAFT_EMBEDDER when set; for the demo corpus,
 * the text encoder shipped for it (its 17k items in seconds, where USE-lite takes 4-11 min on
 * 2 cores; the default retriever's rankings are the same, as it reads no item vectors); else the
 * setting's default, USE-lite.
 */
export function defaultGraphEmbedder(corpus: string, env: Env = process.env): string {
  if (corpus === DEFAULT_CORPUS && !isSet("GRAFT_EMBEDDER", env) && existsSync(DEMO_CORPUS_ENCODER)) return `lsa:${DEMO_CORPUS_ENCODER}`;
  return embedderSpecFromEnv(env);
}

export async function buildGraphStage(db: Db, options: GraphStageOptions): Promise<GraphStageReport> {
  const k = options.k ?? 20;
  const similarity = typeof options.similarity === "string" ? parseItemSimilarity(options.similarity) : (options.similarity ?? DEFAULT_ITEM_SIMILARITY);
  const { alpha, beta } = edgeWeightFor(similarity, options.alpha, options.beta);
  const progress = options.onProgress ?? (() => {});
  const corpus = await db.corpus.findUnique({ where: { name: options.corpus } });
  if (!corpus) throw new Error(`no corpus named "${options.corpus}" (import it first)`);

  // Papers in id order: their position is the node index in every artefact.
  const papers = await db.paper.findMany({
    where: { corpusId: corpus.id, role: "corpus" },
    select: { id: true, externalId: true },
    orderBy: { id: "asc" },
  });
  if (papers.length < 2) throw new Error(`corpus "${options.corpus}" has ${papers.length} paper(s); the graph needs at least 2`);
  const index = new Map(papers.map((p, i) => [p.id, i]));
  const { texts, itemRows, found } = await loadFacetItems(db, corpus.id, index, papers.length);
  if (found === 0) throw new Error(`no paper of "${options.corpus}" has facets yet: run \`graft extract\` first`);

  const spec = options.embedder ?? defaultGraphEmbedder(options.corpus);
  const params = {
    stage: "graph",
    embedder: spec,
    k,
    alpha,
    beta,
    similarity: itemSimilaritySpec(similarity),
    coverageKs: COVERAGE_KS,
    // Only when set, so an unsharded build's params (and manifest) read as before.
    ...(options.chunkItems !== undefined ? { chunkItems: options.chunkItems } : {}),
    ...(options.sharded ? { shards: options.sharded.shards } : {}),
  };
  if (options.resume && options.resume.corpus !== options.corpus)
    throw new Error(`build ${options.resume.id} belongs to corpus "${options.resume.corpus}", not "${options.corpus}"`);
  const build =
    options.resume ??
    // A rerun of the same build from the terminal reopens its unfinished build, as the genret stage
    // does: a kill loses no cached vectors and, in the index step, no graph.
    (options.jobId === undefined && !options.sharded ? (await reopenUnfinishedBuild(db, options.corpus, params, { withoutJob: true }))?.handle : null) ??
    (await startBuild(db, options.corpus, params, { jobId: options.jobId }));
  const phase = async (name: GraphStagePhase) => {
    options.signal?.throwIfAborted();
    await options.onPhase?.(name, build);
  };
  try {
    await phase("started");
    const annMinPapers = options.annMinPapers ?? config().GRAFT_ANN_MIN_PAPERS;
    const writesAnn = papers.length > annMinPapers;
    // Resuming after a crash in the index step: the graph and its edges are durable already (a new build has no pending record).
    const resumed = resumeAtIndexes(build, params, papers.length);
    // ── embeddings (only texts missing from the cache are embedded) ──
    const t0 = performance.now();
    const probe = await createEmbedder(spec);
    const embedderId = probe.id;
    const dim = probe.dim;
    await probe.close?.();
    let newlyEmbedded = 0;
    const cacheDir = cacheDirFor(options.corpus, embedderId);
    // Sharded: the texts the cache lacks are embedded by slice jobs on any worker and appended
    // to the cache first, so embedWithCache below finds every vector there.
    const runSlices = options.sharded?.runSlices;
    if (options.sharded && runSlices)
      newlyEmbedded += await embedMissingInSlices(db, build.id, texts, {
        dir: cacheDir,
        spec,
        embedder: { id: embedderId, dim },
        shards: options.sharded.shards,
        workers: options.workers,
        runSlices: (plan) => runSlices(build, plan),
        onProgress: (d, t) => progress("embed", d, t, "slices"),
      });
    let pool: ParallelEmbedder | null = null;
    // The pool reports every 256 texts a worker finishes, the cache every 4096 it commits.
    const embedProgress = chunkedProgress((d, t) => progress("embed", d, t));
    const lazy: Embedder = {
      id: embedderId,
      dim,
      embed: async (batch) => {
        newlyEmbedded += batch.length;
        const workers = options.workers ?? Math.min(2, os.availableParallelism());
        pool ??= await ParallelEmbedder.create(spec, { workers, onProgress: (d) => embedProgress.within(d) });
        return pool.embed(batch);
      },
    };
    // Dropped once packed per facet (the views keep the whole cache buffer, ≈ 0.33 GB at 64k, alive).
    let vectors: Float32Array[] | null;
    try {
      vectors = await embedWithCache(lazy, texts, {
        dir: cacheDir,
        onProgress: (d, t) => embedProgress.committed(d, t),
      });
    } finally {
      await (pool as ParallelEmbedder | null)?.close?.();
    }
    const embedSeconds = (performance.now() - t0) / 1000;
    await phase("embedded");

    // Dropped once the kernel is done, before the edge store (another ≈ 0.33 GB at 64k), unless
    // the ANN indexes are built over them afterwards.
    let packed: Partial<Record<Facet, PackedFacetItems>> | null = packFacetItems(itemRows, vectors, dim);
    vectors = null;
    let done: PendingGraphBuild;
    if (resumed) {
      build.artefacts = resumed.artefacts;
      done = resumed;
      options.onLog?.(`graph.csr and edges of build ${build.id} were complete before the interruption: resuming at the ANN indexes`);
    } else {
      // ── the typed graph ──
      const t1 = performance.now();
      const refs: number[][] = papers.map(() => []);
      for (const c of await db.citation.findMany({ where: { corpusId: corpus.id }, select: { citingId: true, citedId: true } })) {
        const a = index.get(c.citingId);
        const b = index.get(c.citedId);
        if (a !== undefined && b !== undefined) refs[a].push(b);
      }
      const citations = citationRows(refs);
      const buildK = Math.max(k, ...COVERAGE_KS);
      // A sharded kernel: inputs into the store, block jobs compute the lists, merged per facet below.
      let facetLists: PaperGraphBuildOptions["facetLists"];
      if (options.sharded) {
        const plan = planShards(packed, refs, { shards: options.sharded.shards, k: buildK, alpha, beta, chunkItems: options.chunkItems });
        await storeShardInputs(db, build.id, plan, packed, refs);
        await options.sharded.runBlocks(build, plan);
        facetLists = (facet) => readMergedShardLists(db, build.id, plan, facet);
      }
      // A mix build: the corpus items' TF-IDF model (an artefact, so unseen papers are weighted
      // alike) and one inverted file per facet; each facet's candidates are rescored with both terms.
      let lexicalInfo: { scheme: string; terms: number; documents: number; threads: number; passSeconds: Partial<Record<Facet, number>> } | null = null;
      let rankEdges: PaperGraphBuildOptions["rankEdges"];
      if (similarity.kind === "mix") {
        // idf from the corpus papers' titles + abstracts (one document each); every item term is in the vocabulary.
        const docs = await db.paper.findMany({
          where: { corpusId: corpus.id, role: "corpus" },
          select: { title: true, abstract: true },
          orderBy: { id: "asc" },
        });
        const model = fitLexicalModel(
          docs.map((p) => `${p.title}\n${p.abstract}`),
          texts,
        );
        writeArtefact(build, "graph", "lexical.json", "lexical.json", serialiseLexicalModel(model), {
          note: "TF-IDF vocabulary of the facet items, document frequencies over the papers' titles + abstracts (s_lex)",
        });
        // Every facet's lexical top-K before the kernel: rankEdges is synchronous, and the pass
        // (the largest CPU of a mix build at scale) runs its rows on worker threads (lexical-pool.ts);
        // the lists are the one-thread lists, so the build does not depend on the thread count.
        const threads = options.workers ?? DEFAULT_LEXICAL_THREADS;
        const passSeconds: Partial<Record<Facet, number>> = {};
        const lexicalOf: Partial<Record<Facet, { index: LexicalIndex; lexical: RankedNeighbours }>> = {};
        const lexicalPool = threads > 1 ? LexicalPool.create({ threads }) : null;
        try {
          for (const facet of FACETS) {
            options.signal?.throwIfAborted();
            const index = new LexicalIndex(
              packLexicalItems(
                model,
                itemRows[facet].map((r) => r.map((t) => texts[t])),
              ),
            );
            const tPass = performance.now();
            const onProgress = (d: number, t: number) => progress("graph", d, t, `${facet} lexical`);
            const lexical = lexicalPool ? await lexicalPool.allPairsTopK(index, buildK, { onProgress }) : index.allPairsTopK(buildK, { onProgress });
            passSeconds[facet] = (performance.now() - tPass) / 1000;
            lexicalOf[facet] = { index, lexical };
          }
        } finally {
          await lexicalPool?.close();
        }
        lexicalInfo = { scheme: model.scheme, terms: model.terms.length, documents: model.numDocs, threads, passSeconds };
        const lexicalWeight = similarity.lexicalWeight;
        rankEdges = (facet, lists, kk) => {
          const { index, lexical } = lexicalOf[facet] as { index: LexicalIndex; lexical: RankedNeighbours };
          if (lexical.k !== kk) throw new Error(`lexical lists of ${facet} were built for k = ${lexical.k}, not ${kk}`);
          return mixedFacetEdges(
            {
              cosine: lists.neighbours,
              linked: lists.linked,
              lexical,
              dense: (packed as Partial<Record<Facet, PackedFacetItems>>)[facet] as PackedFacetItems,
              index,
              citations,
            },
            { k: kk, alpha, beta, lexicalWeight },
          );
        };
      }
      let kernel: { graph: PaperGraph; facets: FacetBuildReport[] } | null = await buildPaperGraph(packed, citations, {
        k: buildK,
        alpha,
        beta,
        onProgress: (facet, d, t) => progress("graph", d, t, facet),
        rankEdges,
        chunkItems: options.chunkItems,
        facetLists,
      });
      if (!writesAnn) packed = null;
      const reports = kernel.facets;
      const cov = coverage(kernel.graph.facets, COVERAGE_KS, buildK);
      const pruned: Partial<Record<Facet, FacetCsr>> = {};
      for (const f of FACETS) if (kernel.graph.facets[f]) pruned[f] = pruneCsr(kernel.graph.facets[f] as FacetCsr, k);
      // The top-50 lists (≈ 0.25 GB at 64k) are only needed for coverage.
      kernel = null;
      const graph: PaperGraph = { numPapers: papers.length, k, facets: pruned };
      const graphSeconds = (performance.now() - t1) / 1000;

      writePaperGraph(path.join(build.dir, "graph.csr"), graph);
      recordArtefact(build, "graph", "graph.csr", "graph.csr", { format: "GRAFTCSR v1", k, numPapers: papers.length });
      writeArtefact(
        build,
        "graph",
        "papers.json",
        "papers.json",
        JSON.stringify({ externalIds: papers.map((p) => p.externalId), dbIds: papers.map((p) => p.id) }),
        {
          note: "node index -> paper",
        },
      );
      await phase("artefacts");

      // ── edges into the store, for browsing ──
      const t2 = performance.now();
      // Paper pages read graph.csr (lib/graph/neighbours.ts); above the threshold the rows
      // (≈ 5 M, 146 s and 650 MiB of SQLite at 64k papers) are not worth storing.
      const edgeRows = storesEdgeRows(papers.length);
      const provider = dbProvider(db);
      const total = edgeRows ? edgeRowCount(pruned) : 0;
      const paperIds = papers.map((p) => p.id);
      await db.$transaction(
        async (tx) => {
          // A resumed build may already hold the edges of an earlier, interrupted run (committed
          // just before the crash): replace them, in the same transaction, never add to them. A
          // build without rows drops them too (the threshold may have changed since that run).
          await tx.edge.deleteMany({ where: { buildId: build.id } });
          if (!edgeRows) return;
          // Slice by slice from the CSR: all 5 M rows of a 64k build as JS arrays would be ≈ 1 GiB.
          let stored = 0;
          for (const slice of edgeRowSlices(build.id, pruned, paperIds, EDGE_STORE_STEP)) {
            await bulkInsert(tx, provider, "Edge", EDGE_ROW_COLUMNS, slice);
            stored += slice.length;
            progress("store", stored, total);
          }
        },
        { timeout: 30 * 60 * 1000, maxWait: 60_000 },
      );
      if (!edgeRows) progress("store", 0, 0, `no Edge rows: ${papers.length} papers > GRAFT_EDGE_ROWS_MAX_PAPERS`);
      const storeSeconds = (performance.now() - t2) / 1000;
      await phase("edges");
      const flops = reports.reduce((s, r: FacetBuildReport) => s + r.kernel.flops, 0) / 1e9;
      const kernelSeconds = reports.reduce((s, r) => s + r.kernel.seconds, 0);
      const report: PendingGraphBuild["report"] = {
        build: build.id,
        dir: build.dir,
        papers: papers.length,
        items: texts.length,
        embedder: embedderId,
        similarity: itemSimilaritySpec(similarity),
        embedSeconds,
        newlyEmbedded,
        graphSeconds,
        storeSeconds,
        edgeRows,
        gflops: kernelSeconds > 0 ? flops / kernelSeconds : 0,
        facets: reports.map((r) => ({
          facet: r.facet,
          items: r.items,
          edges: pruned[r.facet] ? (pruned[r.facet] as FacetCsr).targets.length : 0,
          kernelSeconds: r.kernel.seconds,
        })),
        coverage: cov,
      };
      const manifest: PendingGraphBuild["manifest"] = {
        stage: "graph",
        parameters: params,
        embedder: { id: embedderId, dim },
        similarity: itemSimilaritySpec(similarity),
        ...(lexicalInfo ? { lexical: lexicalInfo } : {}),
        candidateGeneration:
          similarity.kind === "mix"
            ? `top ${buildK} by s_cos (blocked onnxruntime Gemm + TopK) ∪ top ${buildK} by s_lex (inverted file) ∪ top ${buildK} linked, rescored exactly`
            : "exact all-pairs (blocked onnxruntime Gemm + TopK)",
        edgeRows,
        timings: { embedSeconds, graphSeconds, storeSeconds },
        statistics: { papers: report.papers, items: report.items, facets: report.facets, coverage: cov, gflops: report.gflops },
        codeVersion: config().GRAFT_CODE_VERSION ?? "",
      };
      done = { params, report, manifest, artefacts: build.artefacts };
      if (writesAnn) writeFileAtomic(path.join(build.dir, PENDING_FILE), JSON.stringify(done));
    }

    // ── ANN index files (above annMinPapers): serving reads them instead of building them ──
    let annIndexes: AnnIndexFile[] = [];
    let annSeconds = 0;
    let annError: string | undefined;
    if (writesAnn && packed) {
      const items = packed;
      const tAnn = performance.now();
      try {
        annIndexes = await writeAnnIndexFiles(
          build.dir,
          FACETS.filter((f) => items[f]).map((f) => [f, items[f] as PackedFacetItems] as const),
          {
            signal: options.signal,
            onProgress: (facet, d, t) => progress("ann", d, t, facet),
            onFacet: (a) =>
              options.onLog?.(
                `ann ${a.facet}: ${a.items.toLocaleString("en-US")} items, ${a.reused ? "written by the interrupted run" : `built in ${a.seconds.toFixed(1)} s`} → ${a.file} (${(a.bytes / 2 ** 20).toFixed(1)} MiB)`,
              ),
          },
        );
      } catch (err) {
        if (options.signal?.aborted) throw err;
        // Serving still works without the files (it builds a missing index itself, or stays exact).
        annError = err instanceof Error ? err.message : String(err);
        options.onLog?.(`ann: no index files (${annError}); serving will build them when first needed`);
      }
      for (const a of annIndexes)
        recordArtefact(build, "graph", `ann-${a.facet}`, a.file, {
          format: "hnswlib-node HierarchicalNSW, inner product",
          facet: a.facet,
          items: a.items,
          ...DEFAULT_ANN_PARAMS,
        });
      annSeconds = (performance.now() - tAnn) / 1000;
      await phase("indexes");
    }
    packed = null;

    await completeBuild(db, build, {
      ...done.manifest,
      timings: { ...done.manifest.timings, ...(writesAnn ? { annSeconds } : {}) },
      ...(writesAnn
        ? {
            ann: {
              minPapers: annMinPapers,
              params: DEFAULT_ANN_PARAMS,
              files: annIndexes.map(({ facet, file, items, seconds }) => ({ facet, file, items, seconds })),
              ...(annError ? { error: annError } : {}),
            },
          }
        : {}),
    });
    rmSync(path.join(build.dir, PENDING_FILE), { force: true });
    const report: GraphStageReport = { ...done.report, annSeconds, annIndexes };
    if (options.sharded) await dropShardData(db, build.id);
    return report;
  } catch (err) {
    // An aborted build (worker shutdown, lost lease) stays "running": its job resumes it, and
    // another worker may already be doing so, which a "failed" mark here would contradict.
    if (!options.signal?.aborted) await failBuild(db, build, err);
    throw err;
  }
}
