/**
 * The offline FacetExtractor (id "offline"): no network, no embedding, ~1 ms per abstract.
 * Splits the paper into units (sentences/clauses), scores each for the four facet roles with
 * the committed model, and rewrites the chosen units into items (openers stripped).
 */
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { ExtractionResult, FacetExtractor, PaperInput } from "@/lib/facets/extractor";
import { loadModel, type OfflineModel, scoreUnit, selectionScore, selectUnits } from "./model";
import { finishItem, stripOpener } from "./text";
import { paperUnits } from "./units";

/** The audit's item bounds (paper, "Structural"): 10-500 characters. */
const MIN_ITEM_CHARS = 10;
const MAX_ITEM_CHARS = 500;

/** Rewrites a unit into an item within the audit's length bounds. */
export function unitToItem(text: string): string {
  let s = finishItem(stripOpener(text));
  if (s.length > MAX_ITEM_CHARS) {
    const cut = s.slice(0, MAX_ITEM_CHARS - 1);
    s = `${cut.slice(0, Math.max(cut.lastIndexOf(" "), MAX_ITEM_CHARS / 2))}…`;
  }
  return s;
}

/** Facets of one paper, synchronously (the extractor wraps this). Null when the paper has no text. */
export function extractFacets(paper: PaperInput, model: OfflineModel = loadModel()): Record<Facet, string[]> | null {
  const units = paperUnits(paper).filter((u) => u.text.length >= MIN_ITEM_CHARS);
  if (units.length === 0) return null;
  const probs = units.map((u) => scoreUnit(model, u));
  const out = {} as Record<Facet, string[]>;
  FACETS.forEach((facet, k) => {
    const picked = selectUnits(
      probs.map((p) => selectionScore(p, k, model.selection[facet])),
      model.selection[facet],
    );
    // Keep paper order: items read as the abstract does, and the order is stable across runs.
    const items = picked.sort((a, b) => a - b).map((i) => unitToItem(units[i].text));
    out[facet] = [...new Set(items)].filter((s) => s.length >= MIN_ITEM_CHARS).slice(0, 5);
    if (out[facet].length === 0) out[facet] = [unitToItem(units[picked[0]].text).padEnd(MIN_ITEM_CHARS, ".")];
  });
  return out;
}

export class OfflineFacetExtractor implements FacetExtractor {
  readonly id = "offline";
  private readonly model: OfflineModel;

  constructor(model: OfflineModel = loadModel()) {
    this.model = model;
  }

  async extract(paper: PaperInput, opts: { signal?: AbortSignal } = {}): Promise<ExtractionResult> {
    opts.signal?.throwIfAborted();
    const model = `offline:${String(this.model.meta.id ?? "model")}`;
    const facets = extractFacets(paper, this.model);
    if (!facets) return { ok: false, reason: "the paper has no title or abstract text", kind: "invalid", model };
    return { ok: true, facets, truncated: false, model };
  }
}

export function createOfflineExtractor(): OfflineFacetExtractor {
  return new OfflineFacetExtractor();
}
