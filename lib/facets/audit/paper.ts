/**
 * One paper's audit: every check of checks.ts combined into per-item results (what ItemAudit
 * stores) and per-facet/per-paper flags. Pure: vectors in, results out.
 */
import { FACETS, type Facet } from "@/lib/corpus";
import {
  type Evidence,
  type FacetFlag,
  groundingScores,
  type ItemFlag,
  ITEM_FLAGS,
  type Passage,
  type RedundantPair,
  redundancyFlags,
  REDUNDANCY_THRESHOLDS,
  specificityScore,
  structuralChecks,
} from "./checks";

export interface AuditThresholds {
  intraFacet: number;
  crossFacet: number;
  /** Items with grounding below this are flagged "ungrounded"; null: no such flag. */
  ungroundedBelow: number | null;
  /** Items with specificity below this are flagged "generic". */
  genericBelow: number;
}

/**
 * "generic" fires below 0.6, i.e. at a genericness above 0.4 once specific tokens are credited:
 * a meta-description prefix plus a boilerplate phrase, or three boilerplate phrases, with (next
 * to) nothing specific. Two boilerplate phrases ("significantly outperforms state-of-the-art")
 * are how LLM result items are often worded; on the demo corpus a 0.7 cut flagged 169 such
 * LLM items, most of them naming a dataset, so the flag is kept for the clearly empty ones.
 */
export const DEFAULT_THRESHOLDS: AuditThresholds = { ...REDUNDANCY_THRESHOLDS, ungroundedBelow: null, genericBelow: 0.6 };

export interface AuditItemInput {
  text: string;
  vector: Float32Array;
}

export interface ItemAuditResult {
  facet: Facet;
  /** Position within its facet. */
  index: number;
  grounding: number | null;
  evidence: Evidence[];
  /** In ITEM_FLAGS order. */
  flags: ItemFlag[];
  specificity: number;
}

export interface PaperAuditResult {
  /** Facet order, then position. */
  items: ItemAuditResult[];
  facets: Record<Facet, FacetFlag[]>;
  metaPaper: boolean;
  /** No structural issue (the paper's "no issues at all"). */
  structuralOk: boolean;
  pairs: RedundantPair[];
}

export function auditPaper(
  input: { facets: Record<Facet, readonly AuditItemInput[]>; passages: readonly Passage[]; passageVectors: readonly Float32Array[] },
  thresholds: AuditThresholds = DEFAULT_THRESHOLDS,
): PaperAuditResult {
  const structural = structuralChecks(Object.fromEntries(FACETS.map((f) => [f, (input.facets[f] ?? []).map((i) => i.text)])) as Record<Facet, string[]>);
  const flat = FACETS.flatMap((facet) => (input.facets[facet] ?? []).map((item, index) => ({ facet, index, ...item })));
  const grounding = groundingScores(
    flat.map((i) => i.vector),
    input.passages,
    input.passageVectors,
  );
  const redundancy = redundancyFlags(flat, thresholds);
  const items = flat.map((item, k): ItemAuditResult => {
    const flags = new Set<ItemFlag>([...structural.items[item.facet][item.index], ...redundancy.flags[k]]);
    const g = grounding[k];
    if (thresholds.ungroundedBelow !== null && g.grounding !== null && g.grounding < thresholds.ungroundedBelow) flags.add("ungrounded");
    const spec = specificityScore(item.text);
    if (spec.specificity < thresholds.genericBelow) flags.add("generic");
    return {
      facet: item.facet,
      index: item.index,
      grounding: g.grounding,
      evidence: g.evidence,
      flags: ITEM_FLAGS.filter((f) => flags.has(f)),
      specificity: spec.specificity,
    };
  });
  return { items, facets: structural.facets, metaPaper: structural.metaPaper, structuralOk: structural.ok, pairs: redundancy.pairs };
}
