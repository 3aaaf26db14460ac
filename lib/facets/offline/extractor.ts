/**
 * The offline FacetExtractor (id "offline"): no network, no embedding, ~1 ms per abstract.
 * Splits the paper into units (sentences/clauses), scores each for the four facet roles with
 * the committed model, and rewrites the chosen units into items (openers stripped).
 */
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { ExtractionResult, FacetExtractor, PaperInput } from "@/lib/facets/extractor";
import { composeUnit, loadModel, type OfflineModel, scoreUnit, selectionScore, selectUnits } from "./model";
import { finishItem, stripOpener } from "./text";
import { paperUnits } from "./units";

/** The audit's item bounds (paper, "Structural"): 10-500 characters. */
const MIN_ITEM_CHARS = 10;
const MAX_ITEM_CHARS = 500;

/** Cuts an item to the audit's 500 characters at a word boundary. */
function clipItem(s: string): string {
  if (s.length <= MAX_ITEM_CHARS) return s;
  const cut = s.slice(0, MAX_ITEM_CHARS - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), MAX_ITEM_CHARS / 2))}…`;
}

/** Rewrites a unit into an item within the audit's length bounds. */
export function unitToItem(text: string): string {
  return clipItem(finishItem(stripOpener(text)));
}

/**
 * A composed item: "<title>: <unit as an item>", the unit's first letter lower-cased unless it
 * starts a name or an acronym ("A new parser" → "a new parser", "BERT" and "LaSyn" stay).
 */
export function composeItem(title: string, unitText: string): string {
  const head = unitToItem(title).replace(/\.$/, "");
  const item = unitToItem(unitText);
  const tail = /^[A-Z][a-z]*(?=[\s,.;:)'-]|$)/.test(item) ? item[0].toLowerCase() + item.slice(1) : item;
  return clipItem(`${head}: ${tail}`);
}

export interface ExtractOptions {
  /**
   * Give each unit to one facet only (the one it scores highest for), so the same sentence is
   * not an item of two facets; a facet keeps a shared unit when it would be left with none.
   * Default true. On dev (weights fitted on train only; scripts/eval/offline-extractor-dev.ts
   * --exclusive), sharing gave P/R problems .780/.780,
   * methods .800/.801, results .766/.760 with 50.8% of papers holding a cross-facet pair above
   * the audit's 0.90; exclusive gave .788/.780, .811/.774, .783/.746 and 39.3%. A composed item
   * may still restate a methods sentence: taking its unit away from methods dropped methods
   * recall to .652.
   */
  exclusive?: boolean;
}

/** Facets of one paper, synchronously (the extractor wraps this). Null when the paper has no text. */
export function extractFacets(paper: PaperInput, model: OfflineModel = loadModel(), opts: ExtractOptions = {}): Record<Facet, string[]> | null {
  const units = paperUnits(paper).filter((u) => u.text.length >= MIN_ITEM_CHARS);
  if (units.length === 0) return null;
  const probs = units.map((u) => scoreUnit(model, u));
  const out = {} as Record<Facet, string[]>;
  const title = units.find((u) => u.source === "title");
  const picks = new Map<Facet, number[]>();
  FACETS.forEach((facet, k) => {
    const sel = model.selection[facet];
    const scores = probs.map((p) => selectionScore(p, k, sel));
    const composed = sel.compose && title ? composeUnit(units, scores) : null;
    if (composed !== null && title) {
      out[facet] = [composeItem(title.text, units[composed].text)];
      return;
    }
    picks.set(facet, selectUnits(scores, sel));
  });
  if (opts.exclusive ?? true) {
    const owner = new Map<number, Facet>();
    for (const [facet, picked] of picks) {
      const k = FACETS.indexOf(facet);
      for (const i of picked) {
        const o = owner.get(i);
        if (o === undefined || probs[i][k] > probs[i][FACETS.indexOf(o)]) owner.set(i, facet);
      }
    }
    for (const [facet, picked] of picks) {
      const kept = picked.filter((i) => owner.get(i) === facet);
      picks.set(facet, kept.length > 0 ? kept : picked.slice(0, 1));
    }
  }
  for (const [facet, picked] of picks) {
    // Keep paper order: items read as the abstract does, and the order is stable across runs.
    const items = [...picked].sort((a, b) => a - b).map((i) => unitToItem(units[i].text));
    out[facet] = [...new Set(items)].filter((s) => s.length >= MIN_ITEM_CHARS).slice(0, 5);
    if (out[facet].length === 0) out[facet] = [unitToItem(units[picked[0]].text).padEnd(MIN_ITEM_CHARS, ".")];
  }
  return Object.fromEntries(FACETS.map((f) => [f, out[f]])) as Record<Facet, string[]>;
}

export class OfflineFacetExtractor implements FacetExtractor {
  readonly id = "offline";
  readonly model: OfflineModel;

  constructor(model: OfflineModel = loadModel()) {
    this.model = model;
  }

  async extract(paper: PaperInput, opts: { signal?: AbortSignal } = {}): Promise<ExtractionResult> {
    opts.signal?.throwIfAborted();
    return offlineResult(paper, this.model);
  }
}

/** One paper's extraction result, synchronously: what the extractor returns, in-process or in a worker thread (pool.ts). */
export function offlineResult(paper: PaperInput, model: OfflineModel): ExtractionResult {
  const name = `offline:${String(model.meta.id ?? "model")}`;
  const facets = extractFacets(paper, model);
  if (!facets) return { ok: false, reason: "the paper has no title or abstract text", kind: "invalid", model: name };
  return { ok: true, facets, truncated: false, model: name };
}

export function createOfflineExtractor(): OfflineFacetExtractor {
  return new OfflineFacetExtractor();
}
