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
import { FACETS, type Facet, type Split } from "@/lib/corpus/types";
import type { FacetCsr, PaperGraph } from "@/lib/graph/csr";
import { mulberry32 } from "@/lib/random";
import { writeFileAtomic } from "@/lib/atomic-write";

/** Replication ceiling C ("Edge-weighted oversampling with replication ceiling C=5"). */
export const REPLICATION_CEILING = 5;
/** Coverage floor K_min ("coverage floor K_min=3"). */
export const K_MIN = 3;
/** Reverse-neighbour fallback breadth N ("reverse-neighbour fallback breadth N=10"). */
export const FALLBACK_BREADTH = 10;

/** How an example came to be, kept so statistics can attribute examples to each step. */
export const ORIGIN_EDGE = 0;
export const ORIGIN_FALLBACK = 1;
export const ORIGIN_FLOOR = 2;
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

/** Replication count 1..C, linear in w / w_max. */
export function replicationCount(weight: number, maxWeight: number, ceiling: number = REPLICATION_CEILING): number {
  if (!(maxWeight > 0) || !(weight > 0)) return 1;
  const r = Math.min(1, weight / maxWeight);
  return Math.max(1, Math.min(ceiling, 1 + Math.round((ceiling - 1) * r)));
}

/** The unrounded replication factor, used as CE weight so reweighting carries the same mass. */
export function edgeLossWeight(weight: number, maxWeight: number, ceiling: number = REPLICATION_CEILING): number {
  if (!(maxWeight > 0) || !(weight > 0)) return 1;
  return 1 + (ceiling - 1) * Math.min(1, weight / maxWeight);
}

/** Growable columns; doubling keeps appends amortised O(1) without a per-row object. */
class ExampleBuilder {
  length = 0;
  private cap = 1024;
  facet = new Uint8Array(this.cap);
  origin = new Uint8Array(this.cap);
  sourcePaper = new Int32Array(this.cap);
  sourceItem = new Int32Array(this.cap);
  targetPaper = new Int32Array(this.cap);
  targetIdentifier = new Int32Array(this.cap);
  weight = new Float32Array(this.cap);
  negative = new Int32Array(this.cap);

  push(f: number, o: number, q: number, i: number, d: number, t: number, w: number, neg: number): void {
    if (this.length === this.cap) this.grow();
    const r = this.length++;
    this.facet[r] = f;
    this.origin[r] = o;
    this.sourcePaper[r] = q;
    this.sourceItem[r] = i;
    this.targetPaper[r] = d;
    this.targetIdentifier[r] = t;
    this.weight[r] = w;
    this.negative[r] = neg;
  }

  private grow(): void {
    this.cap *= 2;
    const g = <T extends Uint8Array | Int32Array | Float32Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(this.cap);
      b.set(a);
      return b;
    };
    this.facet = g(this.facet);
    this.origin = g(this.origin);
    this.sourcePaper = g(this.sourcePaper);
    this.sourceItem = g(this.sourceItem);
    this.targetPaper = g(this.targetPaper);
    this.targetIdentifier = g(this.targetIdentifier);
    this.weight = g(this.weight);
    this.negative = g(this.negative);
  }

  finish(meta: DistillationMeta): DistillationExamples {
    const n = this.length;
    return {
      length: n,
      facet: this.facet.slice(0, n),
      origin: this.origin.slice(0, n),
      sourcePaper: this.sourcePaper.slice(0, n),
      sourceItem: this.sourceItem.slice(0, n),
      targetPaper: this.targetPaper.slice(0, n),
      targetIdentifier: this.targetIdentifier.slice(0, n),
      weight: this.weight.slice(0, n),
      negative: this.negative.slice(0, n),
      meta,
    };
  }
}

/** Items of a paper that have a DocID, as (item index, identifier) pairs. */
function validItems(row: readonly number[] | undefined): { item: number; id: number }[] {
  const out: { item: number; id: number }[] = [];
  if (row) row.forEach((id, item) => id >= 0 && out.push({ item, id }));
  return out;
}

/** Edge indices of a row, strongest first (rows are ranked already; sorting makes it a guarantee). */
function rankedEdges(csr: FacetCsr, p: number): number[] {
  const edges: number[] = [];
  for (let e = csr.offsets[p]; e < csr.offsets[p + 1]; e++) edges.push(e);
  return edges.sort((a, b) => csr.weights[b] - csr.weights[a] || a - b);
}

/**
 * Hard-negative pool of a source: the best-ranked candidates beyond its kept neighbours,
 * up to rank poolSize overall (so a top-50 pool at K = 20 holds about 30 papers).
 */
function negativePool(csr: FacetCsr, candidates: FacetCsr | undefined, q: number, poolSize: number, hasItems: (p: number) => boolean): number[] {
  const positives = new Set<number>([q]);
  for (let e = csr.offsets[q]; e < csr.offsets[q + 1]; e++) positives.add(csr.targets[e]);
  const room = poolSize - (positives.size - 1);
  if (room <= 0) return [];
  const pool: number[] = [];
  if (candidates) {
    for (let e = candidates.offsets[q]; e < candidates.offsets[q + 1] && pool.length < room; e++) {
      // Rank counts every candidate, including positives, so the pool is "within top-poolSize".
      if (e - candidates.offsets[q] >= poolSize) break;
      const y = candidates.targets[e];
      if (!positives.has(y) && hasItems(y)) pool.push(y);
    }
    return pool;
  }
  const score = new Map<number, number>();
  for (let e = csr.offsets[q]; e < csr.offsets[q + 1]; e++) {
    const x = csr.targets[e];
    for (let g = csr.offsets[x]; g < csr.offsets[x + 1]; g++) {
      const y = csr.targets[g];
      if (positives.has(y) || !hasItems(y)) continue;
      const s = csr.weights[e] * csr.weights[g];
      if (s > (score.get(y) ?? -Infinity)) score.set(y, s);
    }
  }
  return [...score.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, room)
    .map(([y]) => y);
}

/** Builds the training examples of one variant. Deterministic given the seed. */
export function distill(input: DistillInput, options: DistillOptions = {}): DistillationExamples {
  const { graph, items, sourceMask } = input;
  const seed = options.seed ?? 0;
  const ceiling = options.replicationCeiling ?? REPLICATION_CEILING;
  const kMin = options.kMin ?? K_MIN;
  const breadth = options.fallbackBreadth ?? FALLBACK_BREADTH;
  const scope = options.fallbackScope ?? "facet";
  const hardNeg = options.hardNegatives;
  if (!Number.isInteger(ceiling) || ceiling < 1) throw new RangeError(`replicationCeiling must be a positive integer, got ${ceiling}`);
  if (!Number.isInteger(kMin) || kMin < 0) throw new RangeError(`kMin must be a non-negative integer, got ${kMin}`);
  if (!Number.isInteger(breadth) || breadth < 0) throw new RangeError(`fallbackBreadth must be a non-negative integer, got ${breadth}`);
  if (sourceMask.length !== graph.numPapers) throw new Error(`sourceMask has ${sourceMask.length} entries, graph ${graph.numPapers} papers`);
  const n = graph.numPapers;
  const isSource = (p: number): boolean => Boolean(sourceMask[p]);
  const facets = (options.facets ?? FACETS).filter((f) => graph.facets[f] && items[f]);

  const identifierCounts = Object.fromEntries(FACETS.map((f) => [f, 0])) as Record<Facet, number>;
  for (const f of FACETS) {
    const rows = items[f]?.itemIdentifiers;
    if (!rows) continue;
    if (rows.length !== n) throw new Error(`items.${f} has ${rows.length} papers, graph ${n}`);
    let max = -1;
    for (const row of rows) for (const id of row) if (id > max) max = id;
    identifierCounts[f] = max + 1;
  }

  // Paper-level "no incoming edge" needs every facet's in-degree before any facet is distilled.
  const hasInEdgeAnyFacet = new Uint8Array(n);
  for (const f of facets) {
    const csr = graph.facets[f] as FacetCsr;
    for (let q = 0; q < n; q++) {
      if (!isSource(q)) continue;
      for (let e = csr.offsets[q]; e < csr.offsets[q + 1]; e++) if (csr.targets[e] !== q) hasInEdgeAnyFacet[csr.targets[e]] = 1;
    }
  }

  const rand = mulberry32(seed);
  const pick = (k: number): number => Math.floor(rand() * k);
  // Negatives draw from their own stream so the positives match the base variant exactly
  // ("all at matched configuration").
  const negRand = mulberry32((seed ^ 0x9e3779b9) >>> 0);
  const pickNeg = (k: number): number => Math.floor(negRand() * k);
  const out = new ExampleBuilder();

  for (const f of facets) {
    const fi = FACETS.indexOf(f);
    const csr = graph.facets[f] as FacetCsr;
    const candCsr = hardNeg?.candidates?.facets[f];
    const rows = (items[f] as FacetItemIdentifiers).itemIdentifiers;
    const valid = rows.map(validItems);
    const hasItems = (p: number): boolean => valid[p].length > 0;
    let maxWeight = 0;
    for (let e = 0; e < csr.weights.length; e++) if (csr.weights[e] > maxWeight) maxWeight = csr.weights[e];
    const exposures = new Int32Array(identifierCounts[f]);
    // Gold in-neighbours per target paper (train sources only), plus flipped edges once added.
    const inNeighbours: number[][] = Array.from({ length: n }, () => []);

    const poolCache = new Map<number, number[]>();
    const negativeFor = (q: number, targetId: number): number => {
      if (!hardNeg) return -1;
      let pool = poolCache.get(q);
      if (!pool) {
        pool = negativePool(csr, candCsr, q, hardNeg.poolSize, hasItems);
        poolCache.set(q, pool);
      }
      if (pool.length === 0) return -1;
      const y = pool[pickNeg(pool.length)];
      const neg = valid[y][pickNeg(valid[y].length)].id;
      // A DocID shared with the positive (a collision) must not be pushed down.
      return neg === targetId ? -1 : neg;
    };

    const emit = (origin: number, q: number, item: number, d: number, id: number, w: number): void => {
      exposures[id] += 1;
      out.push(fi, origin, q, item, d, id, w, negativeFor(q, id));
    };

    // One source->target edge: every source item yields examples (replicated when
    // oversampling), each with its own sampled target item, or all of them when exhaustive.
    const emitEdge = (origin: number, q: number, d: number, w: number): void => {
      const targets = valid[d];
      if (targets.length === 0) return;
      const reps = options.oversample ? replicationCount(w, maxWeight, ceiling) : 1;
      const lossWeight = options.reweight ? edgeLossWeight(w, maxWeight, ceiling) : 1;
      for (const { item } of valid[q]) {
        for (let r = 0; r < reps; r++) {
          if (options.exhaustive) {
            for (const t of targets) emit(origin, q, item, d, t.id, lossWeight);
          } else {
            emit(origin, q, item, d, targets[pick(targets.length)].id, lossWeight);
          }
        }
      }
    };

    for (let q = 0; q < n; q++) {
      if (!isSource(q)) continue;
      for (let e = csr.offsets[q]; e < csr.offsets[q + 1]; e++) {
        const d = csr.targets[e];
        if (d === q) continue;
        inNeighbours[d].push(q);
        emitEdge(ORIGIN_EDGE, q, d, csr.weights[e]);
      }
    }

    if (options.fallback) {
      const orphan = (a: number): boolean => (scope === "paper" ? !hasInEdgeAnyFacet[a] : inNeighbours[a].length === 0);
      for (let a = 0; a < n; a++) {
        if (!orphan(a) || !hasItems(a)) continue;
        let taken = 0;
        for (const e of rankedEdges(csr, a)) {
          if (taken >= breadth) break;
          const b = csr.targets[e];
          if (b === a || !isSource(b) || !hasItems(b)) continue;
          taken += 1;
          // w_f is symmetric in value, so the flipped edge B -> A keeps A -> B's weight.
          inNeighbours[a].push(b);
          emitEdge(ORIGIN_FALLBACK, b, a, csr.weights[e]);
        }
      }
    }

    if (options.floor && kMin > 0) {
      const owners: number[][] = Array.from({ length: identifierCounts[f] }, () => []);
      for (let p = 0; p < n; p++) for (const { id } of valid[p]) if (owners[id].at(-1) !== p) owners[id].push(p);
      for (let id = 0; id < owners.length; id++) {
        const deficit = kMin - exposures[id];
        if (deficit <= 0) continue;
        // Every (in-neighbour, source item) pair is a candidate; a shuffled prefix spreads the
        // top-ups over distinct sources before any repeats.
        const cands: [number, number, number][] = [];
        for (const d of owners[id]) {
          for (const q of new Set(inNeighbours[d])) for (const { item } of valid[q]) cands.push([q, item, d]);
        }
        if (cands.length === 0) continue;
        for (let i = cands.length - 1; i > 0; i--) {
          const j = pick(i + 1);
          [cands[i], cands[j]] = [cands[j], cands[i]];
        }
        for (let k = 0; k < deficit; k++) {
          const [q, item, d] = cands[k % cands.length];
          emit(ORIGIN_FLOOR, q, item, d, id, 1);
        }
      }
    }
  }

  const { hardNegatives: _candidates, ...rest } = options;
  const meta: DistillationMeta = {
    numPapers: n,
    identifierCounts,
    kMin,
    seed,
    options: { ...rest, ...(hardNeg ? { hardNegatives: { poolSize: hardNeg.poolSize } } : {}) },
  };
  return out.finish(meta);
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
  const perFacetTargets = FACETS.map(() => new Set<number>());
  const targets = new Set<number>();
  const byOrigin = { edge: 0, fallback: 0, floor: 0 };
  let withNegative = 0;
  for (let r = 0; r < examples.length; r++) {
    const fi = examples.facet[r];
    perFacetCount[fi] += 1;
    exposures[fi][examples.targetIdentifier[r]] += 1;
    perFacetTargets[fi].add(examples.targetPaper[r]);
    targets.add(examples.targetPaper[r]);
    byOrigin[ORIGINS[examples.origin[r]]] += 1;
    if (examples.negative[r] >= 0) withNegative += 1;
  }
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
      targetPapers: perFacetTargets[fi].size,
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
    targetCoverage: corpusSize > 0 ? targets.size / corpusSize : 0,
    targetPapers: targets.size,
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
