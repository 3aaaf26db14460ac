/**
 * Coverage-aware distillation (paper §"Coverage-Aware Distillation", Appendices
 * "Hyperparameters", "Identifier Schemes and the Coverage Floor" and "Supervision and
 * Objective Alternatives"): turns the typed paper graph into the generative retriever's
 * training examples. One example is (facet, source paper, source item, target paper,
 * target identifier): the prompt is the source item under its facet name, the completion
 * is one DocID of the neighbour.
 *
 * Rules followed (quotes from the paper):
 * - "for each query facet item q_{f,i} we sample a target facet item d_{f,j}"; "Each example
 *   pairs a single source bullet with one target item, which is sampled per example; every
 *   source bullet of the query yields an example, so source items are never subsampled."
 * - Oversampling: "oversampling neighbours by 1--5 times, growing linearly with the edge
 *   score relative to the largest edge weight in that facet", ceiling C = 5. We map
 *   r = w / w_max(f) in (0, 1] to 1 + round((C - 1) r), so the weakest edges stay at 1 and
 *   the strongest edge of the facet gets C. Every replica samples its own target item.
 * - Floor: "a DocID seen fewer than K_min times is boosted to that many samples, with the
 *   additional source papers drawn from its gold in-neighbours" (K_min = 3).
 * - Fallback: "given A with no incoming edges but outgoing A -> B, we draw training examples
 *   from B -> A ... We take the N strongest edges and repeat the previous steps with them
 *   (importance sampling and K_min floor)" (N = 10).
 * - Sources are train papers only: dev/test papers are the evaluation queries and their
 *   gold sets are their graph neighbourhoods, so no dev/test paper may appear in a prompt.
 *   Targets range over the whole corpus. Consequently "incoming edge" and "gold
 *   in-neighbour" mean an edge from a train paper, and a flipped edge B -> A needs B in
 *   train (A's N strongest outgoing edges to train papers are taken).
 * - Ablations (Appendix "Supervision and Objective Alternatives"): CE reweighting by edge
 *   score, exhaustive Cartesian pairing, hard negatives for an unlikelihood term with a
 *   top-50 / top-100 negative pool.
 */
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { FACETS, type Facet, type Split } from "@/lib/corpus";
import type { PaperGraph } from "@/lib/graph";
import { mulberry32 } from "@/lib/random";
import { writeFileAtomic } from "@/lib/atomic-write";
import {
  coverageFloor,
  ExampleBuilder,
  facetExampleWriter,
  identifierCounts as identifierCountsOf,
  incomingEdgeInAnyFacet,
  REPLICATION_CEILING,
  reverseNeighbourFallback,
  sampleEdgeExamples,
  type SamplingSettings,
} from "./distill-steps";

export { edgeLossWeight, ORIGIN_EDGE, ORIGIN_FALLBACK, ORIGIN_FLOOR, REPLICATION_CEILING, replicationCount } from "./distill-steps";

/** Coverage floor K_min ("coverage floor K_min=3"). */
export const K_MIN = 3;
/** Reverse-neighbour fallback breadth N ("reverse-neighbour fallback breadth N=10"). */
export const FALLBACK_BREADTH = 10;

/** How an example came to be (ORIGIN_EDGE, ORIGIN_FALLBACK, ORIGIN_FLOOR index it), kept so statistics can attribute examples to each step. */
export const ORIGINS = ["edge", "fallback", "floor"] as const;

export interface HardNegativeOptions {
  /**
   * The "top-50" / "top-100" negative pool: candidate ranks up to poolSize, minus the
   * source's kept top-K neighbours (the positives) and the source itself.
   */
  poolSize: number;
  /**
   * A graph built with k >= poolSize (the candidate lists before pruning), whose rows give
   * the true candidate ranking. Without it, ranks beyond the kept K are approximated by
   * two-hop reach in the training graph (score max_x w(q,x) w(x,y)), the closest ranked
   * non-neighbours the pruned graph still knows about.
   */
  candidates?: PaperGraph;
}

export interface DistillOptions {
  /** PRNG seed; everything is reproducible from it. */
  seed?: number;
  /** Edge-weighted oversampling (cost-proportionate replication). */
  oversample?: boolean;
  replicationCeiling?: number;
  /** K_min coverage floor. */
  floor?: boolean;
  kMin?: number;
  /** Reverse-neighbour fallback. */
  fallback?: boolean;
  fallbackBreadth?: number;
  /**
   * Which papers count as having "no incoming edges": "facet" (none in this facet, so no
   * DocID of theirs in this facet could be a target; default) or "paper" (none in any
   * facet, the paper-level reading of "only 84% of the corpus has an incoming edge in some
   * facet").
   */
  fallbackScope?: "facet" | "paper";
  /** Ablation: CE weight 1 + (C-1) w/w_max per example instead of replication. */
  reweight?: boolean;
  /** Ablation: every source item x every target item instead of one sampled target. */
  exhaustive?: boolean;
  /** Ablation: a per-example negative identifier for an unlikelihood term. */
  hardNegatives?: HardNegativeOptions;
  /** Facets to distil (default: all present in both graph and items). */
  facets?: readonly Facet[];
}

/** The ladder of the paper's Table "Main results" (lower block) and the ablations. */
export const DISTILL_VARIANTS = {
  uniform: {},
  "+oversample": { oversample: true },
  "+floor": { oversample: true, floor: true },
  "+fallback": { oversample: true, floor: true, fallback: true },
  // The K_min sweep (appendix table "coverage floor"): +floor with another floor.
  "kmin-1": { oversample: true, floor: true, kMin: 1 },
  "kmin-2": { oversample: true, floor: true, kMin: 2 },
  "kmin-4": { oversample: true, floor: true, kMin: 4 },
  "ce-reweight": { reweight: true },
  exhaustive: { exhaustive: true },
  "hard-neg-50": { hardNegatives: { poolSize: 50 } },
  "hard-neg-100": { hardNegatives: { poolSize: 100 } },
} as const satisfies Record<string, DistillOptions>;
export type DistillVariant = keyof typeof DISTILL_VARIANTS;

/** What distillation needs of the DocIDs: FacetDocIds satisfies it. */
export interface FacetItemIdentifiers {
  /** [paper][item] -> identifier index, -1 for an item without DocID (empty text). */
  readonly itemIdentifiers: readonly (readonly number[])[];
}

export interface DistillInput {
  graph: PaperGraph;
  /** Per facet, indexed by the graph's node index. */
  items: Partial<Record<Facet, FacetItemIdentifiers>>;
  /** Per paper (node index): truthy when the paper may be a source (train split). */
  sourceMask: ArrayLike<number | boolean>;
}

/** Column-oriented examples; row r is (facet[r], sourcePaper[r], ...). */
export interface DistillationExamples {
  readonly length: number;
  /** Index into FACETS. */
  readonly facet: Uint8Array;
  /** ORIGIN_EDGE | ORIGIN_FALLBACK | ORIGIN_FLOOR. */
  readonly origin: Uint8Array;
  readonly sourcePaper: Int32Array;
  /** Index into the source paper's item list of the facet. */
  readonly sourceItem: Int32Array;
  readonly targetPaper: Int32Array;
  readonly targetIdentifier: Int32Array;
  /** Cross-entropy weight (1 unless reweighting). */
  readonly weight: Float32Array;
  /** Negative identifier (same facet) for an unlikelihood term, -1 for none. */
  readonly negative: Int32Array;
  readonly meta: DistillationMeta;
}

export interface DistillationMeta {
  numPapers: number;
  /** Identifiers per facet (max index + 1), the universe for exposure statistics. */
  identifierCounts: Record<Facet, number>;
  kMin: number;
  seed: number;
  options: Omit<DistillOptions, "hardNegatives"> & { hardNegatives?: { poolSize: number } };
}

export { mulberry32 };

/** Source mask from splits: only train papers are sources (the paper's protocol, used by the evaluation). */
export function trainMask(splits: readonly (Split | null | undefined)[]): Uint8Array {
  const mask = new Uint8Array(splits.length);
  splits.forEach((s, i) => (mask[i] = s === "train" ? 1 : 0));
  return mask;
}

/** The papers a generative retriever is trained from, and the rule that chose them, in words. */
export interface TrainingSources {
  /** Per paper (node index): 1 when it is a training source. */
  mask: Uint8Array;
  /** Training papers, of `total`. */
  papers: number;
  total: number;
  /** Papers of the train split; papers with no split; dev/test papers held out. */
  train: number;
  withoutSplit: number;
  heldOut: number;
  /** One line for the build's output and manifest. */
  rule: string;
}

/**
 * Which papers the generative retriever is trained from: every paper that is not held out.
 * A corpus imported from BibTeX, RIS, OpenAlex, Semantic Scholar or arXiv has no splits, so all
 * its papers train; a corpus with splits (the demo corpus) trains from its train split and keeps
 * dev and test out, as the paper does; papers without a split added to such a corpus train too
 * (holding them out would only leave them out of the training data: nothing evaluates them).
 */
export function trainingSources(splits: readonly (Split | null | undefined)[]): TrainingSources {
  const mask = new Uint8Array(splits.length);
  let train = 0;
  let withoutSplit = 0;
  splits.forEach((s, i) => {
    if (s === "train") train++;
    else if (s === null || s === undefined) withoutSplit++;
    else return;
    mask[i] = 1;
  });
  const total = splits.length;
  const papers = train + withoutSplit;
  const heldOut = total - papers;
  const n = (x: number) => x.toLocaleString("en-US");
  const of = (x: number, what = "paper") => `${n(x)} ${what}${x === 1 ? "" : "s"}`;
  const held = `${of(heldOut, "dev/test paper")} held out`;
  const rule =
    withoutSplit === total
      ? `all ${of(total)} (the corpus has no train/dev/test splits)`
      : withoutSplit === 0
        ? `the ${of(train)} of the train split; ${held}`
        : `${of(papers)}: ${n(train)} of the train split and ${n(withoutSplit)} without a split; ${held}`;
  return { mask, papers, total, train, withoutSplit, heldOut, rule };
}

/** distill()'s options with their defaults, validated. */
function distillSettings(input: DistillInput, options: DistillOptions) {
  const seed = options.seed ?? 0;
  const ceiling = options.replicationCeiling ?? REPLICATION_CEILING;
  const kMin = options.kMin ?? K_MIN;
  const breadth = options.fallbackBreadth ?? FALLBACK_BREADTH;
  const scope = options.fallbackScope ?? "facet";
  if (!Number.isInteger(ceiling) || ceiling < 1) throw new RangeError(`replicationCeiling must be a positive integer, got ${ceiling}`);
  if (!Number.isInteger(kMin) || kMin < 0) throw new RangeError(`kMin must be a non-negative integer, got ${kMin}`);
  if (!Number.isInteger(breadth) || breadth < 0) throw new RangeError(`fallbackBreadth must be a non-negative integer, got ${breadth}`);
  if (input.sourceMask.length !== input.graph.numPapers)
    throw new Error(`sourceMask has ${input.sourceMask.length} entries, graph ${input.graph.numPapers} papers`);
  const sampling: SamplingSettings = {
    oversample: Boolean(options.oversample),
    reweight: Boolean(options.reweight),
    exhaustive: Boolean(options.exhaustive),
    ceiling,
    hardNegatives: options.hardNegatives,
  };
  return { seed, kMin, breadth, scope, sampling };
}

/** The options as recorded with the examples: a hard-negative candidate graph is summarised by its pool size. */
function recordedOptions(options: DistillOptions): DistillationMeta["options"] {
  const { hardNegatives: _candidates, ...rest } = options;
  return { ...rest, ...(options.hardNegatives ? { hardNegatives: { poolSize: options.hardNegatives.poolSize } } : {}) };
}

/**
 * Builds the training examples of one variant. Deterministic given the seed. Per facet, in
 * order: edge score-proportionate sampling, the reverse-neighbour fallback, the K_min floor
 * (each in ./distill-steps.ts); one target-sampling stream runs through all of them.
 */
export function distill(input: DistillInput, options: DistillOptions = {}): DistillationExamples {
  const { graph, items, sourceMask } = input;
  const { seed, kMin, breadth, scope, sampling } = distillSettings(input, options);
  const n = graph.numPapers;
  const isSource = (p: number): boolean => Boolean(sourceMask[p]);
  const facets = (options.facets ?? FACETS).filter((f) => graph.facets[f] && items[f]);
  const identifierCounts = identifierCountsOf(items, n);
  // Paper-level "no incoming edge" needs every facet's in-degree before any facet is distilled.
  const hasInEdgeAnyFacet = incomingEdgeInAnyFacet(graph, facets, isSource);

  const rand = mulberry32(seed);
  const pick = (k: number): number => Math.floor(rand() * k);
  // Negatives draw from their own stream so the positives match the base variant exactly
  // ("all at matched configuration").
  const negRand = mulberry32((seed ^ 0x9e3779b9) >>> 0);
  const pickNegative = (k: number): number => Math.floor(negRand() * k);
  const out = new ExampleBuilder();

  for (const f of facets) {
    const writer = facetExampleWriter({
      graph,
      facet: f,
      items: items[f] as FacetItemIdentifiers,
      identifiers: identifierCounts[f],
      settings: sampling,
      out,
      pick,
      pickNegative,
    });
    sampleEdgeExamples(writer, isSource);
    if (options.fallback) {
      const isOrphan = (a: number): boolean => (scope === "paper" ? !hasInEdgeAnyFacet[a] : writer.inNeighbours[a].length === 0);
      reverseNeighbourFallback(writer, isSource, isOrphan, breadth);
    }
    if (options.floor && kMin > 0) coverageFloor(writer, kMin, pick);
  }

  return out.finish({ numPapers: n, identifierCounts, kMin, seed, options: recordedOptions(options) });
}

export interface FacetDistillationStatistics {
  facet: Facet;
  examples: number;
  /** Distinct target papers in this facet. */
  targetPapers: number;
  identifiers: number;
  /** Identifiers with at least one exposure. */
  exposedIdentifiers: number;
  /** Identifiers with fewer than K_min exposures (zero included). */
  identifiersUnderKMin: number;
  meanExposuresPerIdentifier: number;
}

export interface DistillationStatistics {
  examples: number;
  byOrigin: Record<(typeof ORIGINS)[number], number>;
  /** Share of corpus papers that appear as a target at all (84% -> 100% in the paper). */
  targetCoverage: number;
  targetPapers: number;
  identifiers: number;
  identifiersUnderKMin: number;
  meanExposuresPerIdentifier: number;
  examplesWithNegative: number;
  facets: FacetDistillationStatistics[];
}

export function distillationStatistics(examples: DistillationExamples, corpusSize: number = examples.meta.numPapers): DistillationStatistics {
  const { kMin, identifierCounts } = examples.meta;
  const exposures = FACETS.map((f) => new Int32Array(identifierCounts[f]));
  const perFacetCount = new Array<number>(FACETS.length).fill(0);
  // Distinct target papers counted with one mark per (facet, paper): millions of examples at
  // 64k papers made Set insertions the bulk of this function.
  let papers = examples.meta.numPapers;
  for (let r = 0; r < examples.length; r++) if (examples.targetPaper[r] >= papers) papers = examples.targetPaper[r] + 1;
  const marks = new Uint8Array(papers);
  const perFacetTargets = new Array<number>(FACETS.length).fill(0);
  let targets = 0;
  const originCounts = new Array<number>(ORIGINS.length).fill(0);
  let withNegative = 0;
  for (let r = 0; r < examples.length; r++) {
    const fi = examples.facet[r];
    perFacetCount[fi] += 1;
    exposures[fi][examples.targetIdentifier[r]] += 1;
    const d = examples.targetPaper[r];
    const bit = 1 << fi;
    if (marks[d] === 0) targets += 1;
    if ((marks[d] & bit) === 0) {
      marks[d] |= bit;
      perFacetTargets[fi] += 1;
    }
    originCounts[examples.origin[r]] += 1;
    if (examples.negative[r] >= 0) withNegative += 1;
  }
  const byOrigin = Object.fromEntries(ORIGINS.map((o, i) => [o, originCounts[i]])) as Record<(typeof ORIGINS)[number], number>;
  const facets = FACETS.map((facet, fi): FacetDistillationStatistics => {
    const ex = exposures[fi];
    let exposed = 0;
    let under = 0;
    for (const c of ex) {
      if (c > 0) exposed += 1;
      if (c < kMin) under += 1;
    }
    return {
      facet,
      examples: perFacetCount[fi],
      targetPapers: perFacetTargets[fi],
      identifiers: ex.length,
      exposedIdentifiers: exposed,
      identifiersUnderKMin: under,
      meanExposuresPerIdentifier: ex.length > 0 ? perFacetCount[fi] / ex.length : 0,
    };
  });
  const identifiers = facets.reduce((s, f) => s + f.identifiers, 0);
  return {
    examples: examples.length,
    byOrigin,
    targetCoverage: corpusSize > 0 ? targets / corpusSize : 0,
    targetPapers: targets,
    identifiers,
    identifiersUnderKMin: facets.reduce((s, f) => s + f.identifiersUnderKMin, 0),
    meanExposuresPerIdentifier: identifiers > 0 ? examples.length / identifiers : 0,
    examplesWithNegative: withNegative,
    facets,
  };
}

/*
 * Binary file (little-endian, sections 4-byte aligned):
 *   magic "GRAFTDST" (8) | version u32 | count u32 | metaLength u32 | meta JSON (UTF-8,
 *   zero-padded to 4) | facet u8[count] (pad 4) | origin u8[count] (pad 4) |
 *   sourcePaper i32 | sourceItem i32 | targetPaper i32 | targetIdentifier i32 |
 *   weight f32 | negative i32   (each [count])
 */
const MAGIC = "GRAFTDST";
export const DISTILL_FILE_VERSION = 1;
const pad4 = (x: number): number => (x + 3) & ~3;
const INT_COLUMNS = ["sourcePaper", "sourceItem", "targetPaper", "targetIdentifier"] as const;

export function encodeDistillationExamples(examples: DistillationExamples): Uint8Array {
  const meta = new TextEncoder().encode(JSON.stringify(examples.meta));
  const n = examples.length;
  const size = 8 + 12 + pad4(meta.length) + 2 * pad4(n) + 6 * 4 * n;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(MAGIC), 0);
  view.setUint32(8, DISTILL_FILE_VERSION, true);
  view.setUint32(12, n, true);
  view.setUint32(16, meta.length, true);
  out.set(meta, 20);
  let pos = 20 + pad4(meta.length);
  out.set(examples.facet, pos);
  pos += pad4(n);
  out.set(examples.origin, pos);
  pos += pad4(n);
  for (const key of INT_COLUMNS) {
    const col = examples[key];
    for (let r = 0; r < n; r++, pos += 4) view.setInt32(pos, col[r], true);
  }
  for (let r = 0; r < n; r++, pos += 4) view.setFloat32(pos, examples.weight[r], true);
  for (let r = 0; r < n; r++, pos += 4) view.setInt32(pos, examples.negative[r], true);
  return out;
}

export function decodeDistillationExamples(bytes: Uint8Array): DistillationExamples {
  if (bytes.length < 20 || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) throw new Error("distill file: bad magic");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== DISTILL_FILE_VERSION) throw new Error(`distill file: version ${version}, this build reads ${DISTILL_FILE_VERSION}`);
  const n = view.getUint32(12, true);
  const metaLength = view.getUint32(16, true);
  const expected = 20 + pad4(metaLength) + 2 * pad4(n) + 24 * n;
  if (bytes.length !== expected) throw new Error(`distill file: ${bytes.length} bytes, expected ${expected}`);
  const meta = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + metaLength))) as DistillationMeta;
  let pos = 20 + pad4(metaLength);
  const facet = bytes.slice(pos, pos + n);
  pos += pad4(n);
  const origin = bytes.slice(pos, pos + n);
  pos += pad4(n);
  const ints = INT_COLUMNS.map(() => {
    const col = new Int32Array(n);
    for (let r = 0; r < n; r++, pos += 4) col[r] = view.getInt32(pos, true);
    return col;
  });
  const weight = new Float32Array(n);
  for (let r = 0; r < n; r++, pos += 4) weight[r] = view.getFloat32(pos, true);
  const negative = new Int32Array(n);
  for (let r = 0; r < n; r++, pos += 4) negative[r] = view.getInt32(pos, true);
  for (let r = 0; r < n; r++) {
    if (facet[r] >= FACETS.length) throw new Error(`distill file: facet ${facet[r]} out of range at row ${r}`);
    if (origin[r] >= ORIGINS.length) throw new Error(`distill file: origin ${origin[r]} out of range at row ${r}`);
  }
  const [sourcePaper, sourceItem, targetPaper, targetIdentifier] = ints;
  return { length: n, facet, origin, sourcePaper, sourceItem, targetPaper, targetIdentifier, weight, negative, meta };
}

/** Writes through a temporary file and a rename, so a reader never sees a half-written file. */
export function writeDistillationExamples(file: string, examples: DistillationExamples): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, encodeDistillationExamples(examples));
}

export function readDistillationExamples(file: string): DistillationExamples {
  return decodeDistillationExamples(readFileSync(file));
}
