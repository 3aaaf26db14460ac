import { createReadStream, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import type { Command } from "commander";
import { z } from "zod";
import { config } from "@/lib/config";
import { readCorpus } from "@/lib/corpus/read";
import {
  addTitleAbstractPairs,
  citationPairs,
  DEFAULT_CONTRASTIVE,
  parseFold,
  trainContrastiveEncoder,
  createLsaEmbedder,
  fitLsa,
  loadLsaModel,
  LsaEmbedder,
  lsaFingerprint,
  saveLsaModel,
  type LsaModel,
  type ProjectionFormat,
  dot,
} from "@/lib/embed";
import { writeFileAtomic } from "@/lib/atomic-write";
import { emit, fmt, parseOptions, UsageError } from "../output";
import { ProgressBar } from "../progress";

const fitOptions = z
  .object({
    input: z.string().min(1).optional(),
    quantise: z.string().min(1).optional(),
    compare: z.string().min(1).optional(),
    int8: z.boolean().default(false),
    out: z.string().min(1, "the model folder to write is required"),
    dims: z.coerce.number().int().min(1).max(4096).default(256),
    seed: z.coerce.number().int().default(0),
    minDf: z.coerce.number().int().min(1).default(2),
    maxVocab: z.coerce.number().int().min(1).default(50_000),
    powerIterations: z.coerce.number().int().min(0).max(10).default(2),
    contrastive: z.string().min(1).optional(),
    selfPairs: z.boolean().default(false),
    epochs: z.coerce.number().int().min(1).max(100).default(DEFAULT_CONTRASTIVE.epochs),
    tau: z.coerce.number().positive().max(10).default(DEFAULT_CONTRASTIVE.tau),
    batch: z.coerce.number().int().min(2).default(DEFAULT_CONTRASTIVE.batch),
    lr: z.coerce.number().positive().max(1).default(DEFAULT_CONTRASTIVE.lr),
    citeRepeat: z.coerce.number().int().min(1).max(100).default(DEFAULT_CONTRASTIVE.citeRepeat),
    holdout: z.coerce.number().min(0).max(0.5).default(0.1),
    holdoutFold: z.string().optional(),
    json: z.boolean().default(false),
  })
  .superRefine((o, ctx) => {
    if (!o.input && !o.quantise) ctx.addIssue({ code: "custom", path: ["input"], message: "the JSONL file to fit on is required (or --quantise <folder>)" });
    if (o.input && o.quantise) ctx.addIssue({ code: "custom", path: ["quantise"], message: "converts a fitted model: not with --input" });
    if (o.compare && !o.quantise) ctx.addIssue({ code: "custom", path: ["compare"], message: "only with --quantise" });
  });
type FitOptions = z.infer<typeof fitOptions>;
type FitInput = FitOptions & { input: string };

interface FittingRecord {
  title: string;
  abstract: string;
}

/** Title and abstract of each JSONL line (a corpus file as `graft import` reads it, gzipped or not). */
async function readFittingTexts(file: string, onLine: (n: number) => void): Promise<{ texts: string[]; records: FittingRecord[]; skipped: number }> {
  const raw = createReadStream(file);
  const input = file.endsWith(".gz") ? raw.pipe(createGunzip()) : raw;
  const texts: string[] = [];
  const records: FittingRecord[] = [];
  let skipped = 0;
  let n = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    n++;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    const r = (row ?? {}) as { title?: unknown; abstract?: unknown };
    const parts = [r.title, r.abstract].filter((p): p is string => typeof p === "string" && p.trim() !== "");
    if (parts.length === 0) skipped++;
    else {
      texts.push(parts.join(". "));
      records.push({ title: typeof r.title === "string" ? r.title : "", abstract: typeof r.abstract === "string" ? r.abstract : "" });
    }
    if (n % 5000 === 0) onLine(n);
  }
  return { texts, records, skipped };
}

const FIT_RECORD = "fit.json";

/**
 * The LSA starting point of a contrastive fit, in out/lsa-init: reused when its fit.json records
 * the same input and settings (a rerun after a kill or a finished run), else fitted and saved.
 */
function lsaInit(folder: string, texts: readonly string[], opts: FitInput, onProgress: (phase: string, done: number, total: number) => void): LsaModel {
  const params = JSON.stringify({
    input: path.resolve(opts.input),
    documents: texts.length,
    dims: opts.dims,
    seed: opts.seed,
    minDf: opts.minDf,
    maxVocab: opts.maxVocab,
    powerIterations: opts.powerIterations,
  });
  const record = path.join(folder, FIT_RECORD);
  if (existsSync(record) && readFileSync(record, "utf8") === params) {
    try {
      return loadLsaModel(folder);
    } catch {
      // torn or foreign: fitted again below
    }
  }
  const model = fitLsa(texts, {
    dims: opts.dims,
    seed: opts.seed,
    minDf: opts.minDf,
    maxVocab: opts.maxVocab,
    powerIterations: opts.powerIterations,
    onProgress,
  });
  saveLsaModel(folder, model);
  writeFileAtomic(record, params);
  return model;
}

/** Bytes of a projection as stored: float32, or int8 plus a float32 scale per row. */
const storedBytes = (vocabulary: number, dims: number, format: ProjectionFormat) => (format === "int8" ? vocabulary * (dims + 4) : vocabulary * dims * 4);

/** Fits (and with --contrastive trains) a model on `opts.input`; returns the command's summary. */
async function fitEncoder(opts: FitInput, bar: ProgressBar) {
  const t0 = performance.now();
  const onProgress = (phase: string, done: number, total: number) => bar.update(done, total, phase);
  const projectionFormat: ProjectionFormat = opts.int8 ? "int8" : "f32";
  bar.update(0, 0, "reading");
  const { texts, records, skipped } = await readFittingTexts(opts.input, (n) => bar.update(n, 0, "reading"));
  const readSeconds = (performance.now() - t0) / 1000;
  const folder = path.resolve(opts.out);
  const common = { folder, spec: `lsa:${folder}`, projectionFormat, documents: texts.length, skipped, readSeconds: Number(readSeconds.toFixed(1)) };
  const seconds = () => Number(((performance.now() - t0) / 1000).toFixed(1));
  if (!opts.contrastive) {
    const model = fitLsa(texts, { ...opts, onProgress });
    const fingerprint = saveLsaModel(opts.out, { ...model, projectionFormat });
    return {
      ...common,
      kind: "lsa",
      fingerprint,
      vocabulary: model.vocabulary.length,
      dims: model.dims,
      projectionBytes: storedBytes(model.vocabulary.length, model.dims, projectionFormat),
      seconds: seconds(),
    };
  }
  const lsaFolder = path.join(folder, "lsa-init");
  const lsa = lsaInit(lsaFolder, texts, opts, onProgress);
  const lsaSeconds = seconds();
  bar.update(0, 0, "pairs");
  const corpus = await readCorpus(opts.contrastive);
  const fold = opts.holdoutFold ? parseFold(opts.holdoutFold) : undefined;
  const data = citationPairs(corpus, { holdout: opts.holdout, seed: opts.seed, ...(fold ? { fold } : {}) });
  if (opts.selfPairs) addTitleAbstractPairs(data, records);
  const result = await trainContrastiveEncoder({
    lsaFolder,
    out: folder,
    data,
    python: config().GRAFT_PYTHON,
    training: { epochs: opts.epochs, tau: opts.tau, batch: opts.batch, lr: opts.lr, seed: opts.seed, citeRepeat: opts.citeRepeat },
    note: {
      pairsFrom: `citations between train-split papers of ${path.resolve(opts.contrastive)}${opts.selfPairs ? ` + title ↔ abstract of ${path.resolve(opts.input)}` : ""}`,
      heldOut: `${fold ? `fold ${fold.index} of ${fold.of}` : opts.holdout} of train papers (seeded hash), every pair touching one left out`,
    },
    projectionFormat,
    onEvent: (e) => {
      if (e.event === "progress") bar.update(Number(e.step), Number(e.steps), `epoch ${e.epoch}/${opts.epochs} loss ${Number(e.loss).toFixed(3)}`);
      else if (e.event === "epoch")
        process.stderr.write(`fit-encoder: epoch ${e.epoch}/${opts.epochs} loss ${e.loss ?? "-"} held-out R@20 ${e.heldOutRecall ?? "-"} (${e.seconds} s)\n`);
      else if (e.event === "resumed") process.stderr.write(`fit-encoder: resuming after epoch ${e.epoch}\n`);
    },
  });
  return {
    ...common,
    kind: "contrastive",
    fingerprint: result.fingerprint,
    lsaFingerprint: lsaFingerprint(lsa),
    vocabulary: lsa.vocabulary.length,
    dims: lsa.dims,
    projectionBytes: storedBytes(lsa.vocabulary.length, lsa.dims, projectionFormat),
    pairs: result.pack.pairs,
    heldOutPairs: result.pack.val,
    bestEpoch: result.bestEpoch,
    history: result.history,
    lsaSeconds,
    seconds: seconds(),
  };
}

/** Cosine of each text's embeddings under two models (both unit vectors or zero): mean and min over the texts either model knows a term of. */
function compareEmbeddings(a: LsaEmbedder, b: LsaEmbedder, texts: string[]): { texts: number; meanCosine: number; minCosine: number } {
  let sum = 0;
  let min = Infinity;
  let n = 0;
  for (const text of texts) {
    const [x, y] = [a.embedOne(text), b.embedOne(text)];
    if (dot(x, x) === 0 && dot(y, y) === 0) continue; // no known term: both zero, nothing to compare
    const c = dot(x, y);
    sum += c;
    min = Math.min(min, c);
    n++;
  }
  return { texts: n, meanCosine: n ? sum / n : NaN, minCosine: n ? min : NaN };
}

/**
 * Converts the model in `from` to int8 storage in `opts.out` (model.json's training note kept),
 * and with --compare measures how close its embeddings stay to the f32 model's.
 */
async function quantiseEncoder(from: string, opts: FitOptions, bar: ProgressBar) {
  const source = loadLsaModel(from);
  if (source.projectionFormat === "int8") throw new UsageError(`--quantise: ${from} is already int8`);
  bar.update(0, 0, "quantising");
  const fingerprint = saveLsaModel(opts.out, { ...source, projectionFormat: "int8" });
  const folder = path.resolve(opts.out);
  const summary = {
    folder,
    spec: `lsa:${folder}`,
    projectionFormat: "int8" as ProjectionFormat,
    from: path.resolve(from),
    fromFingerprint: source.fingerprint,
    kind: source.kind ?? "lsa",
    fingerprint,
    vocabulary: source.vocabulary.length,
    dims: source.dims,
    fromBytes: storedBytes(source.vocabulary.length, source.dims, "f32"),
    projectionBytes: storedBytes(source.vocabulary.length, source.dims, "int8"),
  };
  if (!opts.compare) return summary;
  bar.update(0, 0, "comparing");
  const { texts } = await readFittingTexts(opts.compare, () => {});
  const comparison = compareEmbeddings(new LsaEmbedder(source, "f32"), createLsaEmbedder(opts.out, fingerprint), texts);
  return { ...summary, comparison: { file: path.resolve(opts.compare), ...comparison } };
}

export function registerFitEncoder(program: Command): void {
  program
    .command("fit-encoder")
    .description(
      "fit the LSA item encoder (TF-IDF + truncated SVD) on a JSONL corpus's titles and abstracts, and with --contrastive train it further " +
        "on train-split citation pairs (PyTorch, workers/trainer/contrastive_encoder.py); use it with GRAFT_EMBEDDER=lsa:<folder>. " +
        "--quantise <folder> instead converts a fitted model to int8 storage (a quarter of the size)",
    )
    .option("--input <file>", "JSONL or JSONL.gz with title and abstract per line (the import format); required unless --quantise")
    .requiredOption("--out <folder>", "model folder to write (model.json + projection.f32, or with --int8 projection.i8 + scales.f32)")
    .option("--int8", "store the projection as int8 with a scale per term (a quarter of the size; embeddings within about 0.999 cosine)")
    .option("--quantise <folder>", "instead of fitting: convert the model in this folder to int8 into --out (its training note kept)")
    .option("--compare <file>", "with --quantise: mean and min cosine between the f32 and int8 embeddings of this JSONL's titles + abstracts")
    .option("--dims <n>", "latent dimensions (default 256)")
    .option("--seed <n>", "seed of the randomized SVD, the held-out slice and the training order (default 0)")
    .option("--min-df <n>", "keep terms in at least n documents (default 2)")
    .option("--max-vocab <n>", "keep at most n terms, the most frequent (default 50,000)")
    .option("--power-iterations <n>", "power iterations of the randomized SVD (default 2)")
    .option(
      "--contrastive <corpus>",
      "then train the projection on the citations between train-split papers of this corpus folder (papers.jsonl + citations.tsv)",
    )
    .option("--self-pairs", "with --contrastive: also train on title ↔ abstract of every --input paper")
    .option("--epochs <n>", `with --contrastive: epochs, the best on the held-out pairs is kept (default ${DEFAULT_CONTRASTIVE.epochs})`)
    .option("--tau <x>", `with --contrastive: InfoNCE temperature (default ${DEFAULT_CONTRASTIVE.tau})`)
    .option("--batch <n>", `with --contrastive: pairs per batch (default ${DEFAULT_CONTRASTIVE.batch})`)
    .option("--lr <x>", `with --contrastive: Adam learning rate (default ${DEFAULT_CONTRASTIVE.lr})`)
    .option("--cite-repeat <n>", "with --self-pairs: citation pairs enter each epoch n times (default 1)")
    .option("--holdout <fraction>", "with --contrastive: train papers held out to choose the epoch (default 0.1)")
    .option("--holdout-fold <k/K>", "with --contrastive: hold out fold k of K instead (cross-fitting for the second stage: scripts/train/rerank.ts --fold)")
    .option("--json", "machine-readable output")
    .action(async (raw: unknown) => {
      const opts = parseOptions(fitOptions, raw);
      if (opts.input && !existsSync(opts.input)) throw new UsageError(`--input: no such file ${opts.input}`);
      if (opts.contrastive && !existsSync(opts.contrastive)) throw new UsageError(`--contrastive: no such corpus ${opts.contrastive}`);
      if (opts.compare && !existsSync(opts.compare)) throw new UsageError(`--compare: no such file ${opts.compare}`);
      const bar = new ProgressBar("fit-encoder");
      let summary;
      try {
        summary = opts.quantise ? await quantiseEncoder(opts.quantise, opts, bar) : await fitEncoder({ ...opts, input: opts.input as string }, bar);
      } finally {
        bar.done();
      }
      emit(opts, summary, () => describe(summary));
    });
}

/** The human rendering of a fit or a conversion. */
function describe(summary: Awaited<ReturnType<typeof fitEncoder>> | Awaited<ReturnType<typeof quantiseEncoder>>): string {
  const size = `projection ${(summary.projectionBytes / 2 ** 20).toFixed(1)} MiB ${summary.projectionFormat}`;
  const use = `use it: GRAFT_EMBEDDER=${summary.spec} (or --embedder ${summary.spec})`;
  if ("from" in summary) {
    const compared =
      "comparison" in summary && summary.comparison
        ? `f32 vs int8 cosine over ${fmt(summary.comparison.texts)} texts: mean ${summary.comparison.meanCosine.toFixed(5)}, min ${summary.comparison.minCosine.toFixed(5)}\n`
        : "";
    return `quantised ${summary.from} (fingerprint ${summary.fromFingerprint}) → ${summary.folder} (fingerprint ${summary.fingerprint}, ${size})\n${compared}${use}`;
  }
  return (
    `fitted ${summary.dims}-d ${summary.kind === "lsa" ? "LSA" : "contrastive encoder"} on ${fmt(summary.documents)} documents (${fmt(summary.skipped)} skipped), ${fmt(summary.vocabulary)} terms, ` +
    `in ${summary.seconds} s → ${summary.folder} (fingerprint ${summary.fingerprint}, ${size})\n` +
    ("bestEpoch" in summary ? `trained on ${fmt(summary.pairs)} pairs; epoch ${summary.bestEpoch} kept (best held-out recall@20)\n` : "") +
    use
  );
}
