/**
 * The offline sentence-role model: one logistic regression per facet over shared sparse
 * features (features.ts), plus per-facet selection settings tuned on dev. Multi-label: a unit
 * is scored for each facet independently, so a sentence can be both a method and a contribution.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { FACETS, type Facet } from "@/lib/corpus/types";
import { unitFeatures } from "./features";
import type { Unit } from "./units";

export const MODEL_FORMAT = "graft-offline-facets";
export const MODEL_VERSION = 1;

export interface FacetSelection {
  /** Units with probability >= threshold are taken (best first)... */
  threshold: number;
  /** ...at most this many (1-5); with none above threshold, the single best unit. */
  maxItems: number;
  /**
   * Optional weights (FACETS order) of the other facets' probabilities added to this facet's
   * score: the LLM's contributions are often the proposal sentence the methods model ranks
   * first, while the lexical labels for contributions are noisy; dev tuning decides.
   */
  mix?: number[];
  /**
   * One composed item instead: the paper's title joined with the best non-title unit
   * ("<title>: <what the paper does>"). The LLM's contribution items name what the paper offers
   * and what it is, usually in one item (96% of demo papers have exactly one), and neither the
   * title nor a sentence alone says both. threshold and maxItems are then unused. Tried only
   * for COMPOSE_FACETS; dev tuning decides. On dev (train-only weights) the best plain selection
   * for contributions reached P/R .635/.637, composition .790/.769 (the title alone: ~.44).
   */
  compose?: boolean;
}

/** Facets whose selection tuning may choose a composed item. */
export const COMPOSE_FACETS: readonly Facet[] = ["contributions"];

/** The score a selection ranks units by: the facet's probability plus its mixed-in ones. */
export function selectionScore(probs: readonly number[], k: number, sel: FacetSelection): number {
  let s = probs[k];
  if (sel.mix) for (let j = 0; j < probs.length; j++) if (j !== k) s += sel.mix[j] * probs[j];
  return s;
}

export interface OfflineModel {
  format: typeof MODEL_FORMAT;
  version: typeof MODEL_VERSION;
  /** Order of the weights in every `weights` row. */
  facets: Facet[];
  /** feature -> one weight per facet (bias included as the "bias" feature). */
  weights: Record<string, number[]>;
  selection: Record<Facet, FacetSelection>;
  /** Provenance: how the model was trained (papers, seed, settings), for the report. */
  meta: Record<string, unknown>;
}

export const MODEL_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), "model", "model.json");

let cached: OfflineModel | null = null;

/** Loads (once per process) the committed model, or the one at `file`. */
export function loadModel(file: string = MODEL_PATH): OfflineModel {
  if (file === MODEL_PATH && cached) return cached;
  // turbopackIgnore: `file` may be any model (scripts, tests); the app reads the committed one in place.
  const m = JSON.parse(readFileSync(/* turbopackIgnore: true */ file, "utf8")) as OfflineModel;
  if (m.format !== MODEL_FORMAT || m.version !== MODEL_VERSION) {
    throw new Error(`${file} is not a ${MODEL_FORMAT} v${MODEL_VERSION} model; regenerate it with scripts/train/offline-extractor.ts`);
  }
  if (m.facets.join() !== FACETS.join()) throw new Error(`${file}: facet order ${m.facets.join()} is not ${FACETS.join()}`);
  if (file === MODEL_PATH) cached = m;
  return m;
}

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/**
 * A model's weights as a Map, built once per model (a loaded model is never changed): looking up
 * a freshly built feature string in a Map costs less than in a 638-key object, which took about a
 * third of the extractor's CPU. The same weights, summed in the same order: identical scores.
 */
const weightMaps = new WeakMap<OfflineModel, ReadonlyMap<string, number[]>>();
function weightMap(model: OfflineModel): ReadonlyMap<string, number[]> {
  let m = weightMaps.get(model);
  if (!m) weightMaps.set(model, (m = new Map(Object.entries(model.weights))));
  return m;
}

/** Probability, per facet (FACETS order), that the unit is a source of an item of that facet. */
export function scoreFeatures(weights: Record<string, number[]> | ReadonlyMap<string, number[]>, feats: readonly string[]): number[] {
  const map = weights instanceof Map ? (weights as ReadonlyMap<string, number[]>) : null;
  const z = FACETS.map(() => 0);
  for (const f of feats) {
    const w = map ? map.get(f) : (weights as Record<string, number[]>)[f];
    if (w) for (let k = 0; k < z.length; k++) z[k] += w[k];
  }
  return z.map(sigmoid);
}

/**
 * Facets a title may serve. Titles share topic words with every facet's items, so the lexical
 * labels mark them positive for problems too, where they then crowd out the problem sentence
 * (dev, embedding-tuned: problems min(P,R) 0.65 with titles eligible, 0.72 without). For
 * contributions, whose LLM items name what the paper offers much as a title does, they help.
 */
export const TITLE_FACETS: readonly Facet[] = ["contributions"];

/** Zeroes the probabilities of roles a unit's source cannot take (see TITLE_FACETS). */
export function maskRoles(u: Unit, probs: number[]): number[] {
  if (u.source !== "title") return probs;
  return probs.map((p, k) => (TITLE_FACETS.includes(FACETS[k]) ? p : 0));
}

export function scoreUnit(model: OfflineModel, u: Unit): number[] {
  return maskRoles(u, scoreFeatures(weightMap(model), unitFeatures(u)));
}

/**
 * The unit a composed item is built from: the best-scoring unit that is not the title; null when
 * the paper has no title or no other unit (the caller then selects as usual).
 */
export function composeUnit(units: readonly Unit[], scores: readonly number[]): number | null {
  if (!units.some((u) => u.source === "title")) return null;
  let best: number | null = null;
  units.forEach((u, i) => {
    if (u.source !== "title" && (best === null || scores[i] > scores[best])) best = i;
  });
  return best;
}

/**
 * Picks unit indices for one facet from their probabilities: those above the threshold, best
 * first, at most maxItems; the best unit alone when none passes (every facet non-empty).
 */
export function selectUnits(probs: readonly number[], sel: FacetSelection): number[] {
  const order = probs.map((p, i) => [p, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  const picked = order
    .filter(([p]) => p >= sel.threshold)
    .slice(0, sel.maxItems)
    .map(([, i]) => i);
  return picked.length > 0 ? picked : order.slice(0, 1).map(([, i]) => i);
}
