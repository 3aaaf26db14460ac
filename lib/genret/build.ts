/**
 * The generative-retriever stages of `graft build`: docids → tries → training data → training
 * → export, into a new versioned build beside the graph build they distil. Resumable: each
 * sub-stage's files are written atomically and skipped when present, the trainer resumes
 * from its checkpoint, and a rerun with the same parameters reopens the unfinished build
 * instead of starting over.
 *
 * Build layout (build-<id>/): vocab.json, trie-<facet>.bin, papers.json (node order of the
 * graph build), pack/ (training data), train/ (checkpoint, metrics), and the model files
 * decoder.onnx, output.f32, config.json, train.json, then manifest.json last.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "@/lib/atomic-write";
import { completeBuild, failBuild, reopenUnfinishedBuild, startBuild, writeArtefact, type BuildHandle } from "@/lib/builds";
import { FACETS, type Facet, type FacetLists, type Split } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { config } from "@/lib/config";
import { dataRoot, repoRoot } from "@/lib/paths";
import { runTrainer } from "@/lib/python-trainer";
import { cacheDirFor, embedWithCache, readVectorCache, createEmbedder, type Embedder } from "@/lib/embed";
import { packRows } from "@/lib/graph/corpus-data";
import { readPaperGraph, type PackedFacetItems } from "@/lib/graph";
import { distillationStatistics } from "./distill";
import { OPTIONAL_DECODER_FILES } from "./model";
import { writeTrainingPack } from "./pack";
import { corpusDocIds, identifierFiles, identifierReport, identifiersFromIndex, trainingExamples, trainingSources } from "./prepare";
import { identifierTokenPrior, type ItemVectorOf } from "./token-prior";
import type { TrieStatistics } from "./trie";

/** The token prior beside the pack (float32 [vocab × embedding dim]). */
const TOKEN_PRIOR_FILE = "token-prior.f32";

export interface TrainerOptions {
  dModel?: number;
  layers?: number;
  heads?: number;
  ff?: number;
  epochs?: number;
  /** Seconds of training; the LR schedule is fitted to it. */
  timeBudget?: number;
  batch?: number;
  lr?: number;
  /** Start token embeddings from the identifiers' embeddings (lib/genret/token-prior.ts). */
  tokenPrior?: boolean;
  device?: string;
  /** What the decoder reads of a query item: its vector (default) or its words (workers/trainer/model.py). */
  condition?: "vector" | "tokens";
}

export interface GenretStageOptions {
  corpus: string;
  variant?: string;
  seed?: number;
  trainer?: TrainerOptions;
  /** Python with torch (default GRAFT_PYTHON or /usr/bin/python3). */
  python?: string;
  onProgress?: (phase: GenretPhase, done: number, total: number, detail?: string) => void;
  onLog?: (line: string) => void;
}

export type GenretPhase = "docids" | "examples" | "train" | "export";

export interface GenretStageReport {
  build: number;
  dir: string;
  graphBuild: number;
  variant: string;
  examples: number;
  /** The papers the retriever was trained from, and why (trainingSources). */
  trainingPapers: { papers: number; total: number; train: number; withoutSplit: number; heldOut: number; rule: string };
  targetCoverage: number;
  vocabSize: number;
  distinctDocIds: number;
  seconds: Record<GenretPhase, number>;
  /** The data sub-steps one by one (issue 18 times them at 64k papers). */
  steps: Record<GenretStep, StepCost>;
  /** The four tries together: nodes, bytes per node of the node arrays (the ≤ 16 B target) and of the files with their postings. */
  tries: { nodes: number; bytesPerNode: number; fileBytesPerNode: number };
  training: Record<string, unknown>;
  resumed: boolean;
}

export type GenretStep = "read" | "docids" | "tries" | "distill" | "vectors" | "pack" | "prior";

/** Wall and process CPU seconds of a sub-step, and the process's peak RSS when it ended. */
export interface StepCost {
  seconds: number;
  cpuSeconds: number;
  peakRssMiB: number;
}

/** Runs `f` and records its cost under `name` (a skipped step keeps zeros). */
async function timed<T>(steps: Record<GenretStep, StepCost>, name: GenretStep, f: () => T | Promise<T>): Promise<T> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = await f();
  const c = process.cpuUsage(c0);
  // resourceUsage().maxRSS is in KiB.
  steps[name] = { seconds: (performance.now() - t0) / 1000, cpuSeconds: (c.user + c.system) / 1e6, peakRssMiB: process.resourceUsage().maxRSS / 1024 };
  return r;
}

/** The tries' sizes summed over facets (trieStatistics of each). */
export function trieSizes(tries: Record<string, TrieStatistics>): GenretStageReport["tries"] {
  let nodes = 0;
  let nodeBytes = 0;
  let fileBytes = 0;
  for (const t of Object.values(tries)) {
    nodes += t.nodes;
    nodeBytes += t.nodeBytes;
    fileBytes += t.fileBytes;
  }
  return { nodes, bytesPerNode: nodes ? nodeBytes / nodes : 0, fileBytesPerNode: nodes ? fileBytes / nodes : 0 };
}

export const DEFAULT_TRAINER: Required<Omit<TrainerOptions, "device" | "epochs" | "condition">> & { epochs: number } = {
  dModel: 256,
  layers: 4,
  heads: 4,
  ff: 1024,
  epochs: 10,
  timeBudget: 20 * 60,
  batch: 256,
  lr: 2e-3,
  // Measured on dev at equal examples (reports/genret.md, lever table).
  tokenPrior: true,
};

export interface StoreCorpus {
  graphBuild: { id: number; dir: string };
  externalIds: string[];
  splits: (Split | null)[];
  facets: FacetLists[];
  embedder: string;
}

/** The graph build to distil and the corpus in its node order, from the store. */
export async function readStoreCorpus(db: Db, corpus: string): Promise<StoreCorpus> {
  const graphBuild = await db.build.findFirst({
    where: { corpus: { name: corpus }, status: "complete", artefacts: { some: { name: "graph.csr" } } },
    orderBy: { id: "desc" },
  });
  if (!graphBuild) throw new Error(`corpus "${corpus}" has no graph build: run \`graft build --stage graph --corpus ${corpus}\` first`);
  const dir = path.resolve(dataRoot(), graphBuild.dir);
  const order = JSON.parse(readFileSync(path.join(dir, "papers.json"), "utf8")) as { externalIds: string[]; dbIds: number[] };
  const manifest = JSON.parse(graphBuild.manifest) as { embedder?: { id?: string } };
  const index = new Map(order.dbIds.map((id, i) => [id, i]));
  const splits: (Split | null)[] = order.dbIds.map(() => null);
  const facets: FacetLists[] = order.dbIds.map(() => ({}));
  const STEP = 500;
  for (let i = 0; i < order.dbIds.length; i += STEP) {
    const ids = order.dbIds.slice(i, i + STEP);
    for (const p of await db.paper.findMany({ where: { id: { in: ids } }, select: { id: true, split: true } })) {
      splits[index.get(p.id) as number] = (p.split as Split | null) ?? null;
    }
    const items = await db.facetItem.findMany({
      where: { paperId: { in: ids } },
      select: { paperId: true, facet: true, text: true },
      orderBy: [{ paperId: "asc" }, { position: "asc" }],
    });
    for (const it of items) {
      if (!(FACETS as readonly string[]).includes(it.facet)) continue;
      const row = facets[index.get(it.paperId) as number];
      (row[it.facet as Facet] ??= []).push(it.text);
    }
  }
  return { graphBuild: { id: graphBuild.id, dir }, externalIds: order.externalIds, splits, facets, embedder: manifest.embedder?.id ?? "use-lite@0.2.0" };
}

/** Item vectors per facet in node order, from the graph build's vector cache (embedding only what is missing). */
export async function storeItemVectors(corpus: string, c: StoreCorpus) {
  const texts: string[] = [];
  const rows = Object.fromEntries(FACETS.map((f) => [f, [] as number[][]])) as Record<Facet, number[][]>;
  for (const paper of c.facets) {
    for (const f of FACETS) {
      const r: number[] = [];
      for (const t of paper[f] ?? []) {
        r.push(texts.length);
        texts.push(t);
      }
      rows[f].push(r);
    }
  }
  const spec = c.embedder.startsWith("use-lite") ? "use-lite" : c.embedder.replace(/@.*$/, "");
  let real: Embedder | null = null;
  const dim = readVectorCache(cacheDirFor(corpus, c.embedder))?.manifest.dim ?? 512;
  const lazy: Embedder = {
    id: c.embedder,
    dim,
    embed: async (batch) => {
      real ??= await createEmbedder(spec);
      return real.embed(batch);
    },
  };
  try {
    const vectors = await embedWithCache(lazy, texts, { dir: cacheDirFor(corpus, c.embedder) });
    return Object.fromEntries(FACETS.map((f) => [f, packRows(rows[f], vectors, dim)])) as Record<Facet, ReturnType<typeof packRows>>;
  } finally {
    await (real as Embedder | null)?.close?.();
  }
}

/** An item's vector as a view into its facet's packed rows (no per-paper array of views). */
export function packedItemVector(items: Partial<Record<Facet, PackedFacetItems>>): ItemVectorOf {
  return (f, p, i) => {
    const packed = items[f];
    if (!packed) return undefined;
    const row = packed.offsets[p] + i;
    return row < packed.offsets[p + 1] ? packed.data.subarray(row * packed.dim, (row + 1) * packed.dim) : undefined;
  };
}

function trainerArgs(pack: string, out: string, t: typeof DEFAULT_TRAINER & Pick<TrainerOptions, "device" | "condition">, seed: number): string[] {
  const args = [
    path.join(repoRoot, "workers", "trainer", "train.py"),
    "--pack",
    pack,
    "--out",
    out,
    "--d-model",
    String(t.dModel),
    "--layers",
    String(t.layers),
    "--heads",
    String(t.heads),
    "--ff",
    String(t.ff),
    "--epochs",
    String(t.epochs),
    "--time-budget",
    String(t.timeBudget),
    "--batch",
    String(t.batch),
    "--lr",
    String(t.lr),
    "--seed",
    String(seed),
    "--progress-every",
    "5",
  ];
  if (t.tokenPrior) args.push("--init-tokens", path.join(pack, TOKEN_PRIOR_FILE));
  if (t.device) args.push("--device", t.device);
  if (t.condition === "tokens") args.push("--condition", "tokens");
  return args;
}

/** What every step of one genret build reads, and records its costs into. */
interface GenretRun {
  build: BuildHandle;
  store: StoreCorpus;
  options: GenretStageOptions;
  variant: string;
  seed: number;
  trainer: typeof DEFAULT_TRAINER & Pick<TrainerOptions, "device" | "condition">;
  steps: Record<GenretStep, StepCost>;
  progress: NonNullable<GenretStageOptions["onProgress"]>;
  /** A path inside the build directory. */
  at: (f: string) => string;
}

type Identifiers = ReturnType<typeof identifiersFromIndex>;
type TrainingExamples = ReturnType<typeof trainingExamples>;

export async function buildGenretStage(db: Db, options: GenretStageOptions): Promise<GenretStageReport> {
  const variant = options.variant ?? "uniform";
  const seed = options.seed ?? 0;
  const trainer: typeof DEFAULT_TRAINER & Pick<TrainerOptions, "device" | "condition"> = {
    ...DEFAULT_TRAINER,
    ...(Object.fromEntries(Object.entries(options.trainer ?? {}).filter(([, v]) => v !== undefined)) as TrainerOptions),
  };
  const progress = options.onProgress ?? (() => {});
  const python = options.python ?? config().GRAFT_PYTHON;
  const seconds: Record<GenretPhase, number> = { docids: 0, examples: 0, train: 0, export: 0 };
  const zero = (): StepCost => ({ seconds: 0, cpuSeconds: 0, peakRssMiB: 0 });
  const steps: Record<GenretStep, StepCost> = { read: zero(), docids: zero(), tries: zero(), distill: zero(), vectors: zero(), pack: zero(), prior: zero() };

  const store = await timed(steps, "read", () => readStoreCorpus(db, options.corpus));
  const params = { stage: "genret", graphBuild: store.graphBuild.id, variant, seed, trainer: { ...trainer, device: trainer.device ?? "auto" } };

  // Resume an unfinished build with the same parameters (a killed run, a rerun after a failure).
  const reopened = await reopenUnfinishedBuild(db, options.corpus, params);
  const resumed = reopened !== null;
  const build: BuildHandle = reopened ? reopened.handle : await startBuild(db, options.corpus, params);
  const run: GenretRun = { build, store, options, variant, seed, trainer, steps, progress, at: (f) => path.join(build.dir, f) };
  try {
    // ── docids and tries ──
    let t = performance.now();
    progress("docids", 0, 1);
    const { ids, idReport } = await writeIdentifiers(run);
    const tries = trieSizes(idReport.tries);
    seconds.docids = (performance.now() - t) / 1000;
    progress("docids", 1, 1, `${tries.nodes.toLocaleString("en-US")} trie nodes at ${tries.bytesPerNode.toFixed(1)} B/node`);

    // ── training data ──
    t = performance.now();
    const { mask: _mask, ...trainingPapers } = trainingSources(store.splits);
    progress("examples", 0, 1, `distilling the graph · training papers: ${trainingPapers.rule}`);
    const examples = await distilExamples(run, ids, trainingPapers.rule);
    const stats = distillationStatistics(examples, store.externalIds.length);
    await writeTrainingInputs(run, ids, examples);
    seconds.examples = (performance.now() - t) / 1000;
    progress("examples", 1, 1);

    // ── training (resumes from train/checkpoint.pt) ──
    t = performance.now();
    const training = await trainModel(run, python);
    seconds.train = (performance.now() - t) / 1000;

    // ── export: the model files at the build's root ──
    t = performance.now();
    exportModel(run);
    seconds.export = (performance.now() - t) / 1000;

    const report: GenretStageReport = {
      build: build.id,
      dir: build.dir,
      graphBuild: store.graphBuild.id,
      variant,
      examples: examples.length,
      trainingPapers,
      targetCoverage: stats.targetCoverage,
      vocabSize: ids.vocab.size,
      distinctDocIds: idReport.docIds.total.distinctDocIds,
      seconds,
      steps,
      tries,
      training,
      resumed,
    };
    await completeBuild(db, build, {
      stage: "genret",
      parameters: params,
      embedder: { id: store.embedder },
      statistics: { docIds: idReport.docIds, vocabSize: idReport.vocabSize, tries: idReport.tries, trainingPapers, distillation: stats },
      training,
      timings: { ...seconds, steps },
    });
    return report;
  } catch (err) {
    await failBuild(db, build, err);
    throw err;
  }
}

/** The papers' docids, and the identifiers (vocabulary, per-facet tries) written as artefacts. */
async function writeIdentifiers({ build, store, steps, progress }: GenretRun): Promise<{ ids: Identifiers; idReport: ReturnType<typeof identifierReport> }> {
  const index = await timed(steps, "docids", () =>
    corpusDocIds(
      { ids: store.externalIds, facets: store.facets },
      { onProgress: (done, total) => progress("docids", done, total, "tokenising facet items, papers × facets") },
    ),
  );
  return timed(steps, "tries", () => {
    const ids = identifiersFromIndex(index);
    const idReport = identifierReport(ids);
    for (const f of identifierFiles(ids)) {
      const facet = f.name.startsWith("trie-") ? (f.name.slice(5, -4) as Facet) : null;
      writeArtefact(
        build,
        "docids",
        f.name,
        f.name,
        f.data,
        facet ? { nodes: ids.tries[facet].nodeCount, bytesPerNode: idReport.tries[facet].bytesPerNode } : {},
      );
    }
    writeArtefact(build, "docids", "papers.json", "papers.json", JSON.stringify({ externalIds: store.externalIds }));
    return { ids, idReport };
  });
}

/** The training examples distilled from the graph build; none is an error naming the missing step. */
async function distilExamples({ store, options, variant, seed, steps }: GenretRun, ids: Identifiers, trainingRule: string): Promise<TrainingExamples> {
  const examples = await timed(steps, "distill", () => {
    const graph = readPaperGraph(path.join(store.graphBuild.dir, "graph.csr"));
    return trainingExamples({ ids: store.externalIds, splits: store.splits, facets: store.facets, graph }, ids, variant, seed);
  });
  if (examples.length === 0) {
    throw new Error(
      `no training examples for the generative retriever of "${options.corpus}": training papers: ${trainingRule}, ` +
        `but none of them has a facet item with an edge in graph build ${store.graphBuild.id}. Extract facets (graft extract --corpus ${options.corpus}) and rebuild the graph first.`,
    );
  }
  return examples;
}

/** The training pack and the token prior, unless a resumed build has them already. */
async function writeTrainingInputs(
  { store, options, variant, trainer, steps, progress, at }: GenretRun,
  ids: Identifiers,
  examples: TrainingExamples,
): Promise<void> {
  const priorFile = at(`pack/${TOKEN_PRIOR_FILE}`);
  const words = trainer.condition === "tokens";
  // A pack without the items' words (written for a vector model) is rewritten for a tokens one.
  const packDone = existsSync(at("pack/pack.json")) && (!words || existsSync(at("pack/itemTokens.i32")));
  if (packDone && !(trainer.tokenPrior && !existsSync(priorFile))) return;
  progress("examples", 0, 1, `${examples.length.toLocaleString("en-US")} examples · reading item vectors`);
  const items = await timed(steps, "vectors", () => storeItemVectors(options.corpus, store));
  if (!packDone) {
    progress("examples", 0, 1, `writing the training pack`);
    const texts = words ? store.facets : undefined;
    await timed(steps, "pack", () =>
      writeTrainingPack(at("pack"), { index: ids.index, vocab: ids.vocab, items, examples, tries: ids.tries, embedder: store.embedder, variant, texts }),
    );
  }
  if (trainer.tokenPrior) {
    progress("examples", 0, 1, `token prior`);
    await timed(steps, "prior", () => {
      const prior = identifierTokenPrior(ids, packedItemVector(items), Object.values(items)[0]?.dim ?? 0);
      writeFileAtomic(priorFile, new Uint8Array(prior.buffer, prior.byteOffset, prior.byteLength));
    });
  }
}

/** The trainer's summary: read back when a resumed build finished training, else from a (resuming) training run. */
async function trainModel({ options, trainer, seed, progress, at }: GenretRun, python: string): Promise<Record<string, unknown>> {
  const trainDir = at("train");
  if (existsSync(path.join(trainDir, "train.json")) && existsSync(path.join(trainDir, "decoder.onnx")))
    return JSON.parse(readFileSync(path.join(trainDir, "train.json"), "utf8")) as Record<string, unknown>;
  // The trainer's first progress line comes after it has read the pack (tens of seconds at 64k papers).
  progress("train", 0, 1, "starting the trainer (reading the training pack)");
  return runTrainer(
    python,
    trainerArgs(at("pack"), trainDir, trainer, seed),
    (e) => {
      if (e.event === "progress") {
        const total = (e.totalSteps as number) ?? 1;
        progress(
          "train",
          e.step as number,
          total,
          `loss ${(e.loss as number).toFixed(3)} · ${(e.examplesPerSecond as number).toFixed(0)} ex/s · ETA ${Math.round(e.eta as number)} s`,
        );
      }
      if (e.event === "start" || e.event === "checkpoint") options.onLog?.(JSON.stringify(e));
    },
    options.onLog,
  );
}

/** The model files at the build's root, and genret.json naming what they were trained from. */
function exportModel({ build, store, variant, seed, at }: GenretRun): void {
  const trainDir = at("train");
  for (const f of ["decoder.onnx", "output.f32", "config.json", "train.json"]) {
    writeArtefact(build, "train", f, f, readFileSync(path.join(trainDir, f)));
  }
  for (const f of OPTIONAL_DECODER_FILES) {
    if (existsSync(path.join(trainDir, f))) writeArtefact(build, "train", f, f, readFileSync(path.join(trainDir, f)));
  }
  const manifestFile = { embedder: store.embedder, variant, seed, graphBuild: store.graphBuild.id };
  writeArtefact(build, "train", "genret.json", "genret.json", JSON.stringify(manifestFile, null, 1));
}
