/**
 * The steps of coverage-aware distillation (paper §"Coverage-Aware Distillation"), in the order
 * distill() (./distill.ts) runs them per facet: edge score-proportionate sampling, the
 * reverse-neighbour fallback and the K_min coverage floor, each writing examples through one
 * facet's example writer, which also draws the ablation's hard negative of each example.
 */
import { FACETS, type Facet } from "@/lib/corpus";
import type { FacetCsr, PaperGraph } from "@/lib/graph";
import type { DistillationExamples, DistillationMeta, FacetItemIdentifiers, HardNegativeOptions } from "./distill";

/** Replication ceiling C ("Edge-weighted oversampling with replication ceiling C=5"). */
export const REPLICATION_CEILING = 5;

/** How an example came to be, kept so statistics can attribute examples to each step. */
export const ORIGIN_EDGE = 0;
export const ORIGIN_FALLBACK = 1;
export const ORIGIN_FLOOR = 2;

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
export class ExampleBuilder {
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

/** An item of a paper that has a DocID. */
type ValidItem = { item: number; id: number };

/** Items of a paper that have a DocID, as (item index, identifier) pairs. */
function validItems(row: readonly number[] | undefined): ValidItem[] {
  const out: ValidItem[] = [];
  if (row) row.forEach((id, item) => id >= 0 && out.push({ item, id }));
  return out;
}

/** The DocID universe of each facet: max identifier index + 1 (0 for a facet without items). */
export function identifierCounts(items: Partial<Record<Facet, FacetItemIdentifiers>>, numPapers: number): Record<Facet, number> {
  const counts = Object.fromEntries(FACETS.map((f) => [f, 0])) as Record<Facet, number>;
  for (const f of FACETS) {
    const rows = items[f]?.itemIdentifiers;
    if (!rows) continue;
    if (rows.length !== numPapers) throw new Error(`items.${f} has ${rows.length} papers, graph ${numPapers}`);
    let max = -1;
    for (const row of rows) for (const id of row) if (id > max) max = id;
    counts[f] = max + 1;
  }
  return counts;
}

/** Per paper: 1 when it has an incoming edge from a source in any of the facets (the paper-level "no incoming edge" reading). */
export function incomingEdgeInAnyFacet(graph: PaperGraph, facets: readonly Facet[], isSource: (p: number) => boolean): Uint8Array {
  const n = graph.numPapers;
  const has = new Uint8Array(n);
  for (const f of facets) {
    const csr = graph.facets[f] as FacetCsr;
    for (let q = 0; q < n; q++) {
      if (!isSource(q)) continue;
      for (let e = csr.offsets[q]; e < csr.offsets[q + 1]; e++) if (csr.targets[e] !== q) has[csr.targets[e]] = 1;
    }
  }
  return has;
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

/** The per-example negative identifier of the unlikelihood ablation: a DocID of a paper from the source's negative pool, -1 for none. */
function hardNegativeSampler(
  csr: FacetCsr,
  candidates: FacetCsr | undefined,
  hardNegatives: HardNegativeOptions | undefined,
  valid: readonly ValidItem[][],
  pickNegative: (k: number) => number,
): (q: number, targetId: number) => number {
  if (!hardNegatives) return () => -1;
  const hasItems = (p: number): boolean => valid[p].length > 0;
  const poolCache = new Map<number, number[]>();
  return (q, targetId) => {
    let pool = poolCache.get(q);
    if (!pool) {
      pool = negativePool(csr, candidates, q, hardNegatives.poolSize, hasItems);
      poolCache.set(q, pool);
    }
    if (pool.length === 0) return -1;
    const y = pool[pickNegative(pool.length)];
    const neg = valid[y][pickNegative(valid[y].length)].id;
    // A DocID shared with the positive (a collision) must not be pushed down.
    return neg === targetId ? -1 : neg;
  };
}

/** How one facet's examples are sampled (the options of distill(), resolved). */
export interface SamplingSettings {
  oversample: boolean;
  reweight: boolean;
  exhaustive: boolean;
  ceiling: number;
  hardNegatives: HardNegativeOptions | undefined;
}

/** One facet's example writer and the state its steps share. */
export interface FacetExampleWriter {
  csr: FacetCsr;
  numPapers: number;
  /** Per paper, its items that have a DocID in this facet. */
  valid: ValidItem[][];
  hasItems: (p: number) => boolean;
  /** Examples so far per identifier (what the floor tops up). */
  exposures: Int32Array;
  /** Gold in-neighbours per target paper (train sources only), plus flipped edges once added. */
  inNeighbours: number[][];
  /** Writes one example and counts the exposure of its target identifier. */
  emit: (origin: number, q: number, item: number, d: number, id: number, w: number) => void;
  /**
   * One source->target edge: every source item yields examples (replicated when
   * oversampling), each with its own sampled target item, or all of them when exhaustive.
   */
  emitEdge: (origin: number, q: number, d: number, w: number) => void;
}

export function facetExampleWriter(args: {
  graph: PaperGraph;
  facet: Facet;
  items: FacetItemIdentifiers;
  identifiers: number;
  settings: SamplingSettings;
  out: ExampleBuilder;
  /** The shared target-sampling stream and the negatives' own stream. */
  pick: (k: number) => number;
  pickNegative: (k: number) => number;
}): FacetExampleWriter {
  const { graph, facet, settings, out, pick } = args;
  const n = graph.numPapers;
  const fi = FACETS.indexOf(facet);
  const csr = graph.facets[facet] as FacetCsr;
  const valid = args.items.itemIdentifiers.map(validItems);
  const hasItems = (p: number): boolean => valid[p].length > 0;
  let maxWeight = 0;
  for (let e = 0; e < csr.weights.length; e++) if (csr.weights[e] > maxWeight) maxWeight = csr.weights[e];
  const exposures = new Int32Array(args.identifiers);
  const inNeighbours: number[][] = Array.from({ length: n }, () => []);
  const negativeFor = hardNegativeSampler(csr, settings.hardNegatives?.candidates?.facets[facet], settings.hardNegatives, valid, args.pickNegative);

  const emit = (origin: number, q: number, item: number, d: number, id: number, w: number): void => {
    exposures[id] += 1;
    out.push(fi, origin, q, item, d, id, w, negativeFor(q, id));
  };
  const emitEdge = (origin: number, q: number, d: number, w: number): void => {
    const targets = valid[d];
    if (targets.length === 0) return;
    const reps = settings.oversample ? replicationCount(w, maxWeight, settings.ceiling) : 1;
    const lossWeight = settings.reweight ? edgeLossWeight(w, maxWeight, settings.ceiling) : 1;
    for (const { item } of valid[q]) {
      for (let r = 0; r < reps; r++) {
        if (settings.exhaustive) {
          for (const t of targets) emit(origin, q, item, d, t.id, lossWeight);
        } else {
          emit(origin, q, item, d, targets[pick(targets.length)].id, lossWeight);
        }
      }
    }
  };
  return { csr, numPapers: n, valid, hasItems, exposures, inNeighbours, emit, emitEdge };
}

/** Edge score-proportionate sampling: every edge of a source paper, recording the target's gold in-neighbours. */
export function sampleEdgeExamples(w: FacetExampleWriter, isSource: (p: number) => boolean): void {
  const { csr, inNeighbours } = w;
  for (let q = 0; q < w.numPapers; q++) {
    if (!isSource(q)) continue;
    for (let e = csr.offsets[q]; e < csr.offsets[q + 1]; e++) {
      const d = csr.targets[e];
      if (d === q) continue;
      inNeighbours[d].push(q);
      w.emitEdge(ORIGIN_EDGE, q, d, csr.weights[e]);
    }
  }
}

/**
 * Reverse-neighbour fallback: a paper with no incoming edge (`isOrphan`) is drawn as the target
 * of its `breadth` strongest outgoing edges to sources, flipped.
 */
export function reverseNeighbourFallback(w: FacetExampleWriter, isSource: (p: number) => boolean, isOrphan: (p: number) => boolean, breadth: number): void {
  const { csr, inNeighbours, hasItems } = w;
  for (let a = 0; a < w.numPapers; a++) {
    if (!isOrphan(a) || !hasItems(a)) continue;
    let taken = 0;
    for (const e of rankedEdges(csr, a)) {
      if (taken >= breadth) break;
      const b = csr.targets[e];
      if (b === a || !isSource(b) || !hasItems(b)) continue;
      taken += 1;
      // w_f is symmetric in value, so the flipped edge B -> A keeps A -> B's weight.
      inNeighbours[a].push(b);
      w.emitEdge(ORIGIN_FALLBACK, b, a, csr.weights[e]);
    }
  }
}

/** K_min coverage floor: every DocID seen fewer than kMin times is topped up from its papers' in-neighbours. */
export function coverageFloor(w: FacetExampleWriter, kMin: number, pick: (k: number) => number): void {
  const { valid, exposures, inNeighbours } = w;
  const owners: number[][] = Array.from({ length: exposures.length }, () => []);
  for (let p = 0; p < w.numPapers; p++) for (const { id } of valid[p]) if (owners[id].at(-1) !== p) owners[id].push(p);
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
      w.emit(ORIGIN_FLOOR, q, item, d, id, 1);
    }
  }
}
