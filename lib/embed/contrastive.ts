/**
 * A contrastive text encoder (issue 27): the LSA model's bag of words → linear map, its
 * projection trained further by workers/trainer/contrastive_encoder.py with symmetric in-batch
 * InfoNCE on pairs of texts that should embed close. The result is an LSA model folder with a
 * new projection (kind "contrastive", its own fingerprint, a note of how it was trained), so
 * `lsa:<folder>` and LsaEmbedder serve it: one implementation of the bag-of-words embedding.
 *
 * Pairs, as data/README.md's "What may train what" allows:
 *   - citations between two train-split papers of a corpus (title + abstract each side); a
 *     seeded slice of the train papers is held out (every pair touching one), and its citations
 *     score each epoch, which chooses the epoch: evaluation gold never tunes anything;
 *   - optionally title ↔ abstract of each paper of the fitting texts (self-supervised).
 *
 * The trainer is fed the texts as Node tokenises and weights them (LsaEmbedder.termWeights),
 * as CSR rows in a pack folder:
 *   pack.json    {format, version, numTexts, vocabulary, dims, nnz, numPairs, numVal, numPool, hash}
 *   offsets.i32  numTexts + 1 row offsets;  terms.i32 / weights.f32  nnz term ids and weights
 *                (each row L2-normalised)
 *   pairs.i32    numPairs × 2 text ids (training);  kinds.u8  0 citation, 1 title ↔ abstract
 *   val.i32      numVal × 2 (held-out citing text, cited text);  pool.i32  the texts val ranks
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "@/lib/atomic-write";
import type { CitationRecord, PaperRecord } from "@/lib/corpus";
import { CodedError } from "@/lib/errors";
import { runTrainer } from "@/lib/python-trainer";
import { repoRoot } from "@/lib/paths";
import { LsaEmbedder, loadLsaModel, lsaEmbedderId, saveLsaModel, type LsaModel, type ProjectionFormat } from "./lsa";

export const PACK_FORMAT = "graft-contrastive-pack";
export const PAIR_KIND = { citation: 0, titleAbstract: 1 } as const;
const TRAINER = path.join(repoRoot, "workers", "trainer", "contrastive_encoder.py");

/** Texts and the pairs among them (ids into `texts`). */
export interface ContrastivePairs {
  texts: string[];
  pairs: [number, number][];
  kinds: number[];
  /** Held-out (citing, cited) pairs: scored each epoch, never trained on. */
  val: [number, number][];
  /** The texts a held-out query is ranked against. */
  pool: number[];
}

/** A paper as one text: title and abstract, as fit-encoder and the embedders read it. */
export const paperText = (title: string, abstract: string): string => [title, abstract].filter((p) => p.trim() !== "").join(". ");

/** A seeded hash of a paper id in [0, 1): where the paper falls in held-out slices and folds. */
const hashUnit = (id: string, seed: number): number => createHash("sha256").update(`${seed}:${id}`).digest().readUInt32BE(0) / 2 ** 32;

/** Whether a train paper is in the held-out slice: a seeded hash of its id, so the slice is fixed. */
export function isHeldOut(id: string, fraction: number, seed: number): boolean {
  return hashUnit(id, seed) < fraction;
}

/**
 * A train paper's fold of `folds` (the same seeded hash). Cross-fitting: an encoder trained with
 * one fold held out gives that fold's papers the cosines of pairs it never saw, which is what the
 * second stage must learn from (scripts/train/rerank.ts --fold), as served queries are unseen.
 */
export function foldOf(id: string, folds: number, seed: number): number {
  return Math.min(folds - 1, Math.floor(hashUnit(id, seed) * folds));
}

/** Which fold is held out ("k/K": fold k of K). */
export interface HeldOutFold {
  index: number;
  of: number;
}

export function parseFold(spec: string): HeldOutFold {
  const m = /^(\d+)\/(\d+)$/.exec(spec.trim());
  const fold = m ? { index: Number(m[1]), of: Number(m[2]) } : null;
  if (!fold || fold.of < 2 || fold.index >= fold.of) throw new CodedError("invalid_request", `A fold is "k/K" with 0 ≤ k < K and K ≥ 2 (got "${spec}").`);
  return fold;
}

/**
 * Citation pairs among train-split papers only (both ends `split === "train"`): the citations of
 * dev/test papers are evaluation gold. Pairs touching a held-out paper are left out of training;
 * the held-out papers' own citations become `val`, ranked over all train papers.
 */
export function citationPairs(
  corpus: { papers: readonly PaperRecord[]; citations: readonly CitationRecord[] },
  options: { holdout: number; seed: number; fold?: HeldOutFold },
): ContrastivePairs {
  const train = corpus.papers.filter((p) => p.split === "train");
  const index = new Map(train.map((p, i) => [p.externalId, i]));
  const { fold } = options;
  const held = (id: string) => (fold ? foldOf(id, fold.of, options.seed) === fold.index : isHeldOut(id, options.holdout, options.seed));
  const heldOut = new Set(train.filter((p) => held(p.externalId)).map((p) => p.externalId));
  const out: ContrastivePairs = { texts: train.map((p) => paperText(p.title, p.abstract)), pairs: [], kinds: [], val: [], pool: train.map((_, i) => i) };
  for (const { citing, cited } of corpus.citations) {
    const a = index.get(citing);
    const b = index.get(cited);
    if (a === undefined || b === undefined || a === b) continue;
    if (heldOut.has(citing)) out.val.push([a, b]);
    else if (!heldOut.has(cited)) {
      out.pairs.push([a, b]);
      out.kinds.push(PAIR_KIND.citation);
    }
  }
  return out;
}

/** Adds title ↔ abstract pairs of `records` (those with both) to `into`. */
export function addTitleAbstractPairs(into: ContrastivePairs, records: readonly { title: string; abstract: string }[]): void {
  for (const r of records) {
    if (!r.title.trim() || !r.abstract.trim()) continue;
    const t = into.texts.push(r.title) - 1;
    const a = into.texts.push(r.abstract) - 1;
    into.pairs.push([t, a]);
    into.kinds.push(PAIR_KIND.titleAbstract);
  }
}

export interface PackSummary {
  hash: string;
  texts: number;
  pairs: number;
  val: number;
  /** Pairs dropped because a side has no known term. */
  dropped: number;
}

/** Writes the trainer's pack (see the header); pack.json last, with a hash of the rest. */
export function writeContrastivePack(dir: string, model: LsaModel, data: ContrastivePairs): PackSummary {
  mkdirSync(dir, { recursive: true });
  const embedder = new LsaEmbedder(model, "pack");
  const offsets = new Int32Array(data.texts.length + 1);
  const terms: number[] = [];
  const weights: number[] = [];
  data.texts.forEach((text, i) => {
    const row = [...embedder.termWeights(text)].sort((x, y) => x[0] - y[0]);
    const norm = Math.hypot(...row.map(([, w]) => w)) || 1;
    for (const [t, w] of row) {
      terms.push(t);
      weights.push(w / norm);
    }
    offsets[i + 1] = terms.length;
  });
  const known = (t: number) => offsets[t + 1] > offsets[t];
  const keep = data.pairs.map(([a, b]) => known(a) && known(b));
  const pairs = Int32Array.from(data.pairs.filter((_, i) => keep[i]).flat());
  const kinds = Uint8Array.from(data.kinds.filter((_, i) => keep[i]));
  const val = Int32Array.from(data.val.filter(([a, b]) => known(a) && known(b)).flat());
  const files: [string, ArrayBufferView][] = [
    ["offsets.i32", offsets],
    ["terms.i32", Int32Array.from(terms)],
    ["weights.f32", Float32Array.from(weights)],
    ["pairs.i32", pairs],
    ["kinds.u8", kinds],
    ["val.i32", val],
    ["pool.i32", Int32Array.from(data.pool)],
  ];
  const hash = createHash("sha256");
  for (const [name, view] of files) {
    const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    writeFileAtomic(path.join(dir, name), bytes);
    hash.update(name).update(bytes);
  }
  const header = {
    format: PACK_FORMAT,
    version: 1,
    numTexts: data.texts.length,
    vocabulary: model.vocabulary.length,
    dims: model.dims,
    nnz: terms.length,
    numPairs: kinds.length,
    numVal: val.length / 2,
    numPool: data.pool.length,
    hash: hash.digest("hex").slice(0, 16),
  };
  writeFileAtomic(path.join(dir, "pack.json"), JSON.stringify(header));
  return { hash: header.hash, texts: header.numTexts, pairs: header.numPairs, val: header.numVal, dropped: data.pairs.length - header.numPairs };
}

export interface ContrastiveTraining {
  epochs: number;
  tau: number;
  batch: number;
  lr: number;
  seed: number;
  /** Citation pairs enter each epoch this many times (with title ↔ abstract pairs, which outnumber them). */
  citeRepeat: number;
}

export const DEFAULT_CONTRASTIVE: ContrastiveTraining = { epochs: 5, tau: 0.05, batch: 256, lr: 1e-3, seed: 0, citeRepeat: 1 };

export interface EpochRecord {
  epoch: number;
  loss: number | null;
  firstBatchLoss?: number | null;
  heldOutRecall: number | null;
  seconds: number;
}

export interface ContrastiveResult {
  fingerprint: string;
  id: string;
  bestEpoch: number;
  history: EpochRecord[];
  pack: PackSummary;
}

/**
 * Trains the projection of the LSA model in `lsaFolder` on `data` and writes the contrastive
 * model to `out` (pack and checkpoints under out/pack and out/train; a rerun resumes them).
 * `note` (what the pairs were, where from) goes into model.json's training record.
 */
export async function trainContrastiveEncoder(options: {
  lsaFolder: string;
  out: string;
  data: ContrastivePairs;
  training?: Partial<ContrastiveTraining>;
  note?: Record<string, unknown>;
  /** How the trained model's folder stores its projection (default f32). */
  projectionFormat?: ProjectionFormat;
  python: string;
  onEvent?: (e: Record<string, unknown>) => void;
  onLog?: (line: string) => void;
}): Promise<ContrastiveResult> {
  const t: ContrastiveTraining = { ...DEFAULT_CONTRASTIVE, ...options.training };
  const lsa = loadLsaModel(options.lsaFolder);
  // The trainer starts from projection.f32 itself.
  if (lsa.projectionFormat === "int8") throw new CodedError("invalid_request", `${options.lsaFolder} holds an int8 model: train from an f32 one`);
  const packDir = path.join(options.out, "pack");
  const pack = writeContrastivePack(packDir, lsa, options.data);
  if (pack.pairs < t.batch) throw new CodedError("invalid_request", `${pack.pairs} training pairs: fewer than one batch of ${t.batch}`);
  const trainDir = path.join(options.out, "train");
  const args = [
    TRAINER,
    ...["--pack", packDir, "--init", path.join(options.lsaFolder, "projection.f32"), "--out", trainDir],
    ...["--epochs", t.epochs, "--tau", t.tau, "--batch", t.batch, "--lr", t.lr, "--seed", t.seed, "--cite-repeat", t.citeRepeat].map(String),
  ];
  const done = (await runTrainer(options.python, args, options.onEvent ?? (() => {}), options.onLog)) as {
    projection: string;
    bestEpoch: number;
    history: EpochRecord[];
  };
  const buf = readFileSync(done.projection);
  if (buf.byteLength !== lsa.projection.byteLength)
    throw new CodedError("conflict", `${done.projection}: ${buf.byteLength} bytes, expected ${lsa.projection.byteLength}`);
  const projection = new Float32Array(lsa.projection.length);
  new Uint8Array(projection.buffer).set(buf);
  const training = {
    objective: `symmetric in-batch InfoNCE, tau ${t.tau}, batch ${t.batch}, Adam lr ${t.lr}, seed ${t.seed}`,
    init: { folder: path.resolve(options.lsaFolder), fingerprint: lsa.fingerprint },
    settings: t,
    pairs: pack.pairs,
    heldOutPairs: pack.val,
    bestEpoch: done.bestEpoch,
    history: done.history,
    ...options.note,
  };
  const model: LsaModel = { ...lsa, projection, kind: "contrastive", training, projectionFormat: options.projectionFormat ?? "f32" };
  const fingerprint = saveLsaModel(options.out, model);
  return { fingerprint, id: lsaEmbedderId(options.out, fingerprint), bestEpoch: done.bestEpoch, history: done.history, pack };
}
