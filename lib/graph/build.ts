import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeFileAtomic } from "@/lib/atomic-write";
import { config, isSet, type Env } from "@/lib/config";
import { type ArtefactInfo, type BuildHandle, completeBuild, failBuild, recordArtefact, reopenUnfinishedBuild, startBuild, writeArtefact } from "@/lib/builds";
import { DEFAULT_CORPUS, FACETS, type Facet } from "@/lib/corpus";
import { bulkInsert, type Db, dbProvider } from "@/lib/db";
import { cacheDirFor, chunkedProgress, embedWithCache, createEmbedder, embedderSpecFromEnv, type Embedder } from "@/lib/embed";
import { createEmbedPool, type EmbedPool } from "@/lib/embed/parallel";
import { type EmbedSlicePlan, embedMissingInSlices } from "@/lib/embed/shards";
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
  /**
   * Embedding worker processes (one of an LSA encoder embeds in this process, createEmbedPool), and
   * threads of a mix build's lexical pass (default: one per core, at most 2).
   */
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

/** The corpus papers and their facet items: the graph's input. */
interface GraphInput {
  corpusId: number;
  /** In id order: a paper's position is its node index in every artefact. */
  papers: { id: number; externalId: string }[];
  /** Paper id → node index. */
  index: ReadonlyMap<number, number>;
  texts: string[];
  itemRows: Record<Facet, number[][]>;
}

async function loadGraphInput(db: Db, corpusName: string): Promise<GraphInput> {
  const corpus = await db.corpus.findUnique({ where: { name: corpusName } });
  if (!corpus) throw new Error(`no corpus named "${corpusName}" (import it first)`);

  // Papers in id order: their position is the node index in every artefact.
  const papers = await db.paper.findMany({
    where: { corpusId: corpus.id, role: "corpus" },
    select: { id: true, externalId: true },
    orderBy: { id: "asc" },
  });
  if (papers.length < 2) throw new Error(`corpus "${corpusName}" has ${papers.length} paper(s); the graph needs at least 2`);
  const index = new Map(papers.map((p, i) => [p.id, i]));
  const { texts, itemRows, found } = await loadFacetItems(db, corpus.id, index, papers.length);
  if (found === 0) throw new Error(`no paper of "${corpusName}" has facets yet: run \`graft extract\` first`);
  return { corpusId: corpus.id, papers, index, texts, itemRows };
}

/** K and the edge weight w = αs + βc of a graph build, with the item similarity behind s. */
interface GraphWeighting {
  k: number;
  similarity: ItemSimilarity;
  alpha: number;
  beta: number;
}

function graphWeighting(options: GraphStageOptions): GraphWeighting {
  const similarity = typeof options.similarity === "string" ? parseItemSimilarity(options.similarity) : (options.similarity ?? DEFAULT_ITEM_SIMILARITY);
  return { k: options.k ?? 20, similarity, ...edgeWeightFor(similarity, options.alpha, options.beta) };
}

/** The build's parameters: what makes two builds the same (resuming and reopening compare them). */
function graphBuildParams(options: GraphStageOptions, spec: string, { k, alpha, beta, similarity }: GraphWeighting): Record<string, unknown> {
  return {
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
}

async function openGraphBuild(db: Db, options: GraphStageOptions, params: Record<string, unknown>): Promise<BuildHandle> {
  if (options.resume && options.resume.corpus !== options.corpus)
    throw new Error(`build ${options.resume.id} belongs to corpus "${options.resume.corpus}", not "${options.corpus}"`);
  return (
    options.resume ??
    // A rerun of the same build from the terminal reopens its unfinished build, as the genret stage
    // does: a kill loses no cached vectors and, in the index step, no graph.
    (options.jobId === undefined && !options.sharded ? (await reopenUnfinishedBuild(db, options.corpus, params, { withoutJob: true }))?.handle : null) ??
    (await startBuild(db, options.corpus, params, { jobId: options.jobId }))
  );
}

/** What every step of one graph build reads. */
interface GraphRun {
  db: Db;
  options: GraphStageOptions;
  input: GraphInput;
  weighting: GraphWeighting;
  /** The embedder spec. */
  spec: string;
  params: Record<string, unknown>;
  build: BuildHandle;
  progress: NonNullable<GraphStageOptions["onProgress"]>;
  /** Marks a phase boundary: stops an aborted build there, else tells onPhase. */
  phase: (name: GraphStagePhase) => Promise<void>;
}

interface ItemEmbedding {
  embedderId: string;
  dim: number;
  newlyEmbedded: number;
  embedSeconds: number;
}

/**
 * The packed item vectors, in a box so a step can drop them (≈ 0.33 GB at 64k) once no later
 * step reads them: after the kernel, unless the ANN indexes are built over them afterwards.
 */
interface DenseItems {
  packed: Partial<Record<Facet, PackedFacetItems>> | null;
}

/** The items' vectors (only texts missing from the cache are embedded), packed per facet. */
async function embedFacetItems(run: GraphRun): Promise<{ embedding: ItemEmbedding; dense: DenseItems }> {
  const { options, spec, progress } = run;
  const { texts, itemRows } = run.input;
  const t0 = performance.now();
  const probe = await createEmbedder(spec);
  const embedderId = probe.id;
  const dim = probe.dim;
  await probe.close?.();
  const cacheDir = cacheDirFor(options.corpus, embedderId);
  let newlyEmbedded = await embedMissingSlices(run, cacheDir, { id: embedderId, dim });
  let pool: EmbedPool | null = null;
  // The pool reports every 256 texts a worker finishes, the cache every 4096 it commits.
  const embedProgress = chunkedProgress((d, t) => progress("embed", d, t));
  const lazy: Embedder = {
    id: embedderId,
    dim,
    embed: async (batch) => {
      newlyEmbedded += batch.length;
      const workers = options.workers ?? Math.min(2, os.availableParallelism());
      pool ??= await createEmbedPool(spec, { workers, onProgress: (d) => embedProgress.within(d) });
      return pool.embed(batch);
    },
  };
  // Garbage once packed per facet (the views keep the whole cache buffer, ≈ 0.33 GB at 64k, alive).
  let vectors: Float32Array[];
  try {
    vectors = await embedWithCache(lazy, texts, {
      dir: cacheDir,
      onProgress: (d, t) => embedProgress.committed(d, t),
    });
  } finally {
    await (pool as EmbedPool | null)?.close();
  }
  const embedSeconds = (performance.now() - t0) / 1000;
  await run.phase("embedded");
  return { embedding: { embedderId, dim, newlyEmbedded, embedSeconds }, dense: { packed: packFacetItems(itemRows, vectors, dim) } };
}

/**
 * Sharded: the texts the cache lacks are embedded by slice jobs on any worker and appended to
 * the cache first, so embedWithCache finds every vector there. Returns how many were embedded.
 */
async function embedMissingSlices(run: GraphRun, cacheDir: string, embedder: { id: string; dim: number }): Promise<number> {
  const { options, build } = run;
  const runSlices = options.sharded?.runSlices;
  if (!options.sharded || !runSlices) return 0;
  return embedMissingInSlices(run.db, build.id, run.input.texts, {
    dir: cacheDir,
    spec: run.spec,
    embedder,
    shards: options.sharded.shards,
    workers: options.workers,
    runSlices: (plan) => runSlices(build, plan),
    onProgress: (d, t) => run.progress("embed", d, t, "slices"),
  });
}

/** Per node, the node indices of the corpus papers it cites. */
async function loadCitationRefs({ db, input }: GraphRun): Promise<number[][]> {
  const refs: number[][] = input.papers.map(() => []);
  for (const c of await db.citation.findMany({ where: { corpusId: input.corpusId }, select: { citingId: true, citedId: true } })) {
    const a = input.index.get(c.citingId);
    const b = input.index.get(c.citedId);
    if (a !== undefined && b !== undefined) refs[a].push(b);
  }
  return refs;
}

/** A sharded kernel: inputs into the store, block jobs compute the lists, merged per facet by the kernel. */
async function shardedFacetLists(
  run: GraphRun,
  packed: Partial<Record<Facet, PackedFacetItems>>,
  refs: number[][],
  buildK: number,
): Promise<PaperGraphBuildOptions["facetLists"]> {
  const { db, build, options } = run;
  const sharded = options.sharded as GraphShardRunner;
  const plan = planShards(packed, refs, {
    shards: sharded.shards,
    k: buildK,
    alpha: run.weighting.alpha,
    beta: run.weighting.beta,
    chunkItems: options.chunkItems,
  });
  await storeShardInputs(db, build.id, plan, packed, refs);
  await sharded.runBlocks(build, plan);
  return (facet) => readMergedShardLists(db, build.id, plan, facet);
}

interface LexicalInfo {
  scheme: string;
  terms: number;
  documents: number;
  threads: number;
  passSeconds: Partial<Record<Facet, number>>;
}

type FacetLexical = { index: LexicalIndex; lexical: RankedNeighbours };

/**
 * A mix build: the corpus items' TF-IDF model (an artefact, so unseen papers are weighted alike)
 * and one inverted file per facet; each facet's candidates are rescored with both terms.
 */
async function mixRanking(
  run: GraphRun,
  dense: DenseItems,
  citations: ReturnType<typeof citationRows>,
  buildK: number,
  lexicalWeight: number,
): Promise<{ info: LexicalInfo; rankEdges: PaperGraphBuildOptions["rankEdges"] }> {
  const { db, build } = run;
  // idf from the corpus papers' titles + abstracts (one document each); every item term is in the vocabulary.
  const docs = await db.paper.findMany({
    where: { corpusId: run.input.corpusId, role: "corpus" },
    select: { title: true, abstract: true },
    orderBy: { id: "asc" },
  });
  const model = fitLexicalModel(
    docs.map((p) => `${p.title}\n${p.abstract}`),
    run.input.texts,
  );
  writeArtefact(build, "graph", "lexical.json", "lexical.json", serialiseLexicalModel(model), {
    note: "TF-IDF vocabulary of the facet items, document frequencies over the papers' titles + abstracts (s_lex)",
  });
  const { threads, passSeconds, lexicalOf } = await lexicalTopK(run, model, buildK);
  const info = { scheme: model.scheme, terms: model.terms.length, documents: model.numDocs, threads, passSeconds };
  const { alpha, beta } = run.weighting;
  const rankEdges: PaperGraphBuildOptions["rankEdges"] = (facet, lists, kk) => {
    const { index, lexical } = lexicalOf[facet] as FacetLexical;
    if (lexical.k !== kk) throw new Error(`lexical lists of ${facet} were built for k = ${lexical.k}, not ${kk}`);
    return mixedFacetEdges(
      {
        cosine: lists.neighbours,
        linked: lists.linked,
        lexical,
        dense: (dense.packed as Partial<Record<Facet, PackedFacetItems>>)[facet] as PackedFacetItems,
        index,
        citations,
      },
      { k: kk, alpha, beta, lexicalWeight },
    );
  };
  return { info, rankEdges };
}

/**
 * Every facet's lexical top-K before the kernel: rankEdges is synchronous, and the pass (the
 * largest CPU of a mix build at scale) runs its rows on worker threads (lexical-pool.ts); the
 * lists are the one-thread lists, so the build does not depend on the thread count.
 */
async function lexicalTopK(
  { options, input, progress }: GraphRun,
  model: ReturnType<typeof fitLexicalModel>,
  buildK: number,
): Promise<{ threads: number; passSeconds: Partial<Record<Facet, number>>; lexicalOf: Partial<Record<Facet, FacetLexical>> }> {
  const threads = options.workers ?? DEFAULT_LEXICAL_THREADS;
  const passSeconds: Partial<Record<Facet, number>> = {};
  const lexicalOf: Partial<Record<Facet, FacetLexical>> = {};
  const lexicalPool = threads > 1 ? LexicalPool.create({ threads }) : null;
  try {
    for (const facet of FACETS) {
      options.signal?.throwIfAborted();
      const index = new LexicalIndex(
        packLexicalItems(
          model,
          input.itemRows[facet].map((r) => r.map((t) => input.texts[t])),
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
  return { threads, passSeconds, lexicalOf };
}

/** The typed graph of the paper, pruned to k, with what its report and manifest say of it. */
interface TypedGraph {
  graph: PaperGraph;
  reports: FacetBuildReport[];
  coverage: CoverageAtK[];
  lexicalInfo: LexicalInfo | null;
  /** The K the lists were built to (the largest of k and the coverage K) before pruning. */
  buildK: number;
  graphSeconds: number;
}

/** The kernel's top-K lists per facet (exact, or mixed with s_lex), their coverage, pruned to k. */
async function computeTypedGraph(run: GraphRun, dense: DenseItems, keepDense: boolean): Promise<TypedGraph> {
  const { options, progress } = run;
  const { k, alpha, beta, similarity } = run.weighting;
  const t1 = performance.now();
  const refs = await loadCitationRefs(run);
  const citations = citationRows(refs);
  const buildK = Math.max(k, ...COVERAGE_KS);
  const facetLists = options.sharded ? await shardedFacetLists(run, dense.packed as Partial<Record<Facet, PackedFacetItems>>, refs, buildK) : undefined;
  const mix = similarity.kind === "mix" ? await mixRanking(run, dense, citations, buildK, similarity.lexicalWeight) : null;
  let kernel: { graph: PaperGraph; facets: FacetBuildReport[] } | null = await buildPaperGraph(
    dense.packed as Partial<Record<Facet, PackedFacetItems>>,
    citations,
    {
      k: buildK,
      alpha,
      beta,
      onProgress: (facet, d, t) => progress("graph", d, t, facet),
      rankEdges: mix?.rankEdges,
      chunkItems: options.chunkItems,
      facetLists,
    },
  );
  if (!keepDense) dense.packed = null;
  const reports = kernel.facets;
  const cov = coverage(kernel.graph.facets, COVERAGE_KS, buildK);
  const pruned: Partial<Record<Facet, FacetCsr>> = {};
  for (const f of FACETS) if (kernel.graph.facets[f]) pruned[f] = pruneCsr(kernel.graph.facets[f] as FacetCsr, k);
  // The top-50 lists (≈ 0.25 GB at 64k) are only needed for coverage.
  kernel = null;
  const graph: PaperGraph = { numPapers: run.input.papers.length, k, facets: pruned };
  return { graph, reports, coverage: cov, lexicalInfo: mix?.info ?? null, buildK, graphSeconds: (performance.now() - t1) / 1000 };
}

function writeGraphArtefacts({ build, input }: GraphRun, graph: PaperGraph): void {
  writePaperGraph(path.join(build.dir, "graph.csr"), graph);
  recordArtefact(build, "graph", "graph.csr", "graph.csr", { format: "GRAFTCSR v1", k: graph.k, numPapers: input.papers.length });
  writeArtefact(
    build,
    "graph",
    "papers.json",
    "papers.json",
    JSON.stringify({ externalIds: input.papers.map((p) => p.externalId), dbIds: input.papers.map((p) => p.id) }),
    {
      note: "node index -> paper",
    },
  );
}

/** The edges into the store, for browsing (not above GRAFT_EDGE_ROWS_MAX_PAPERS papers). */
async function storeEdges(
  { db, build, input, progress }: GraphRun,
  pruned: Partial<Record<Facet, FacetCsr>>,
): Promise<{ edgeRows: boolean; storeSeconds: number }> {
  const t2 = performance.now();
  const papers = input.papers;
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
  return { edgeRows, storeSeconds: (performance.now() - t2) / 1000 };
}

function graphReport(
  run: GraphRun,
  embedding: ItemEmbedding,
  typed: TypedGraph,
  stored: { edgeRows: boolean; storeSeconds: number },
): PendingGraphBuild["report"] {
  const { reports, graph } = typed;
  const pruned = graph.facets;
  const flops = reports.reduce((s, r: FacetBuildReport) => s + r.kernel.flops, 0) / 1e9;
  const kernelSeconds = reports.reduce((s, r) => s + r.kernel.seconds, 0);
  return {
    build: run.build.id,
    dir: run.build.dir,
    papers: run.input.papers.length,
    items: run.input.texts.length,
    embedder: embedding.embedderId,
    similarity: itemSimilaritySpec(run.weighting.similarity),
    embedSeconds: embedding.embedSeconds,
    newlyEmbedded: embedding.newlyEmbedded,
    graphSeconds: typed.graphSeconds,
    storeSeconds: stored.storeSeconds,
    edgeRows: stored.edgeRows,
    gflops: kernelSeconds > 0 ? flops / kernelSeconds : 0,
    facets: reports.map((r) => ({
      facet: r.facet,
      items: r.items,
      edges: pruned[r.facet] ? (pruned[r.facet] as FacetCsr).targets.length : 0,
      kernelSeconds: r.kernel.seconds,
    })),
    coverage: typed.coverage,
  };
}

function graphManifest(run: GraphRun, embedding: ItemEmbedding, typed: TypedGraph, report: PendingGraphBuild["report"]): PendingGraphBuild["manifest"] {
  const { similarity } = run.weighting;
  const { buildK, lexicalInfo } = typed;
  return {
    stage: "graph",
    parameters: run.params,
    embedder: { id: embedding.embedderId, dim: embedding.dim },
    similarity: itemSimilaritySpec(similarity),
    ...(lexicalInfo ? { lexical: lexicalInfo } : {}),
    candidateGeneration:
      similarity.kind === "mix"
        ? `top ${buildK} by s_cos (blocked onnxruntime Gemm + TopK) ∪ top ${buildK} by s_lex (inverted file) ∪ top ${buildK} linked, rescored exactly`
        : "exact all-pairs (blocked onnxruntime Gemm + TopK)",
    edgeRows: report.edgeRows,
    timings: { embedSeconds: report.embedSeconds, graphSeconds: report.graphSeconds, storeSeconds: report.storeSeconds },
    statistics: { papers: report.papers, items: report.items, facets: report.facets, coverage: typed.coverage, gflops: report.gflops },
    codeVersion: config().GRAFT_CODE_VERSION ?? "",
  };
}

/** The typed graph, its artefacts and edge rows; the pending record when ANN indexes follow. */
async function computeAndStoreGraph(run: GraphRun, embedding: ItemEmbedding, dense: DenseItems, writesAnn: boolean): Promise<PendingGraphBuild> {
  const typed = await computeTypedGraph(run, dense, writesAnn);
  writeGraphArtefacts(run, typed.graph);
  await run.phase("artefacts");
  const stored = await storeEdges(run, typed.graph.facets);
  await run.phase("edges");
  const report = graphReport(run, embedding, typed, stored);
  const done: PendingGraphBuild = { params: run.params, report, manifest: graphManifest(run, embedding, typed, report), artefacts: run.build.artefacts };
  if (writesAnn) writeFileAtomic(path.join(run.build.dir, PENDING_FILE), JSON.stringify(done));
  return done;
}

interface AnnStep {
  annIndexes: AnnIndexFile[];
  annSeconds: number;
  annError?: string;
}

/** The ANN index files (above annMinPapers): serving reads them instead of building them. */
async function writeAnnIndexes({ build, options, progress }: GraphRun, items: Partial<Record<Facet, PackedFacetItems>>): Promise<AnnStep> {
  let annIndexes: AnnIndexFile[] = [];
  let annError: string | undefined;
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
  return { annIndexes, annSeconds: (performance.now() - tAnn) / 1000, annError };
}

/** The manifest the build completes with: the graph's, plus the ANN step's when it writes indexes (annMinPapers given). */
function completedManifest(done: PendingGraphBuild, ann: AnnStep, annMinPapers: number | null): Record<string, unknown> {
  const { annIndexes, annSeconds, annError } = ann;
  const writesAnn = annMinPapers !== null;
  return {
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
  };
}

export async function buildGraphStage(db: Db, options: GraphStageOptions): Promise<GraphStageReport> {
  const weighting = graphWeighting(options);
  const progress = options.onProgress ?? (() => {});
  const input = await loadGraphInput(db, options.corpus);
  const spec = options.embedder ?? defaultGraphEmbedder(options.corpus);
  const params = graphBuildParams(options, spec, weighting);
  const build = await openGraphBuild(db, options, params);
  const phase = async (name: GraphStagePhase) => {
    options.signal?.throwIfAborted();
    await options.onPhase?.(name, build);
  };
  const run: GraphRun = { db, options, input, weighting, spec, params, build, progress, phase };
  try {
    await phase("started");
    const annMinPapers = options.annMinPapers ?? config().GRAFT_ANN_MIN_PAPERS;
    const writesAnn = input.papers.length > annMinPapers;
    // Resuming after a crash in the index step: the graph and its edges are durable already (a new build has no pending record).
    const resumed = resumeAtIndexes(build, params, input.papers.length);
    const { embedding, dense } = await embedFacetItems(run);
    let done: PendingGraphBuild;
    if (resumed) {
      build.artefacts = resumed.artefacts;
      done = resumed;
      options.onLog?.(`graph.csr and edges of build ${build.id} were complete before the interruption: resuming at the ANN indexes`);
    } else done = await computeAndStoreGraph(run, embedding, dense, writesAnn);

    let ann: AnnStep = { annIndexes: [], annSeconds: 0 };
    if (writesAnn && dense.packed) {
      ann = await writeAnnIndexes(run, dense.packed);
      await phase("indexes");
    }
    dense.packed = null;

    await completeBuild(db, build, completedManifest(done, ann, writesAnn ? annMinPapers : null));
    rmSync(path.join(build.dir, PENDING_FILE), { force: true });
    const report: GraphStageReport = { ...done.report, annSeconds: ann.annSeconds, annIndexes: ann.annIndexes };
    if (options.sharded) await dropShardData(db, build.id);
    return report;
  } catch (err) {
    // An aborted build (worker shutdown, lost lease) stays "running": its job resumes it, and
    // another worker may already be doing so, which a "failed" mark here would contradict.
    if (!options.signal?.aborted) await failBuild(db, build, err);
    throw err;
  }
}
