/**
 * Corpus statistics of an audit: the figures the paper's appendix reports (violation counts,
 * mean grounding per facet, redundancy, specificity), accumulated paper by paper.
 */
import { FACETS, type Facet } from "@/lib/corpus";
import { type ItemFlag, ITEM_FLAGS } from "./checks";
import type { AuditThresholds, PaperAuditResult } from "./paper";
import { quantileLinear } from "@/lib/quantile";

export interface Distribution {
  n: number;
  mean: number;
  p10: number;
  median: number;
  p90: number;
}

export interface AuditSummary {
  corpus: string;
  embedder: string;
  /** The thresholds the flags used (ungroundedBelow is the null quantile's value). */
  thresholds: AuditThresholds;
  papers: number;
  items: number;
  itemsPerFacet: Record<Facet, number>;
  structural: {
    emptyItems: number;
    underLength: number;
    overLength: number;
    overSentences: number;
    exactDuplicates: number;
    metaItems: number;
    /** Facets whose every item is meta-descriptive. */
    metaFacets: number;
    /** Papers with more than half of their items meta-descriptive. */
    metaPapers: number;
    tooManyItemsFacets: number;
    emptyFacets: number;
    papersWithIssues: number;
    /** Share of papers without any structural issue. */
    shareClean: number;
  };
  grounding: {
    all: Distribution;
    perFacet: Record<Facet, Distribution>;
    /** Best passage of a random other paper of the corpus, per item: what chance alone reaches. */
    null: Distribution;
    /** Items below `threshold` are flagged "ungrounded" (null when not flagged). */
    threshold: number | null;
    ungrounded: number;
    /** Cosine with the whole abstract, the single "paragraph" of an abstract-only paper (the paper's granularity). */
    abstractLevel: { all: Distribution; perFacet: Record<Facet, Distribution> } | null;
    /** Share of items whose best evidence is the title, an abstract sentence, a full-text paragraph. */
    bestSource: Record<string, number>;
  };
  redundancy: {
    nearDuplicatePairs: number;
    papersWithNearDuplicate: number;
    overlapPairs: number;
    papersWithOverlap: number;
    /** Overlapping pairs by facet pair, e.g. "results~contributions". */
    overlapByFacets: Record<string, number>;
  };
  specificity: { all: Distribution; generic: number };
  /** Items carrying each flag. */
  flags: Record<ItemFlag, number>;
}

export function distribution(values: readonly number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length);
  const r = (x: number) => Math.round(x * 10_000) / 10_000;
  return {
    n: sorted.length,
    mean: sorted.length ? r(mean) : Number.NaN,
    p10: r(quantileLinear(sorted, 0.1)),
    median: r(quantileLinear(sorted, 0.5)),
    p90: r(quantileLinear(sorted, 0.9)),
  };
}

const perFacet = <T>(make: () => T) => Object.fromEntries(FACETS.map((f) => [f, make()])) as Record<Facet, T>;

/** Collects per-paper audits; `finish` turns them into the summary. */
export class AuditStats {
  private papers = 0;
  private readonly grounding = perFacet<number[]>(() => []);
  private readonly abstractLevel = perFacet<number[]>(() => []);
  private readonly specificity: number[] = [];
  private readonly nullScores: number[] = [];
  private readonly flags = Object.fromEntries(ITEM_FLAGS.map((f) => [f, 0])) as Record<ItemFlag, number>;
  private readonly counts = perFacet(() => 0);
  private readonly bestSource: Record<string, number> = {};
  private readonly s = {
    emptyItems: 0,
    underLength: 0,
    overLength: 0,
    overSentences: 0,
    exactDuplicates: 0,
    metaItems: 0,
    metaFacets: 0,
    metaPapers: 0,
    tooManyItemsFacets: 0,
    emptyFacets: 0,
    papersWithIssues: 0,
  };
  private readonly r = {
    nearDuplicatePairs: 0,
    papersWithNearDuplicate: 0,
    overlapPairs: 0,
    papersWithOverlap: 0,
    overlapByFacets: {} as Record<string, number>,
  };

  /** `abstractScores`: each item's cosine with the whole abstract (same order as result.items), when computed. */
  add(result: PaperAuditResult, extra: { nullScores?: readonly number[]; abstractScores?: readonly (number | null)[] } = {}): void {
    this.papers++;
    result.items.forEach((item, k) => {
      this.counts[item.facet]++;
      if (item.grounding !== null) this.grounding[item.facet].push(item.grounding);
      const abs = extra.abstractScores?.[k];
      if (abs !== undefined && abs !== null) this.abstractLevel[item.facet].push(abs);
      this.specificity.push(item.specificity);
      for (const f of item.flags) this.flags[f]++;
      const src = item.evidence[0]?.source;
      if (src) this.bestSource[src] = (this.bestSource[src] ?? 0) + 1;
      const has = (f: ItemFlag) => item.flags.includes(f);
      if (has("empty")) this.s.emptyItems++;
      if (has("too-short")) this.s.underLength++;
      if (has("too-long")) this.s.overLength++;
      if (has("too-many-sentences")) this.s.overSentences++;
      if (has("duplicate")) this.s.exactDuplicates++;
      if (has("meta")) this.s.metaItems++;
    });
    for (const f of FACETS) {
      const ff = result.facets[f];
      if (ff.includes("meta-facet")) this.s.metaFacets++;
      if (ff.includes("too-many-items")) this.s.tooManyItemsFacets++;
      if (ff.includes("empty-facet")) this.s.emptyFacets++;
    }
    if (result.metaPaper) this.s.metaPapers++;
    if (!result.structuralOk) this.s.papersWithIssues++;
    const near = result.pairs.filter((p) => p.kind === "near-duplicate");
    const over = result.pairs.filter((p) => p.kind === "cross-facet-overlap");
    this.r.nearDuplicatePairs += near.length;
    this.r.overlapPairs += over.length;
    if (near.length) this.r.papersWithNearDuplicate++;
    if (over.length) this.r.papersWithOverlap++;
    for (const p of over) {
      const [a, b] = [p.a.facet, p.b.facet].sort((x, y) => FACETS.indexOf(x) - FACETS.indexOf(y));
      const key = `${a}~${b}`;
      this.r.overlapByFacets[key] = (this.r.overlapByFacets[key] ?? 0) + 1;
    }
    if (extra.nullScores) this.nullScores.push(...extra.nullScores);
  }

  finish(meta: { corpus: string; embedder: string; thresholds: AuditThresholds }): AuditSummary {
    const items = FACETS.reduce((n, f) => n + this.counts[f], 0);
    const hasAbstract = FACETS.some((f) => this.abstractLevel[f].length > 0);
    const share = (n: number) => (items ? Math.round((n / items) * 10_000) / 10_000 : 0);
    return {
      corpus: meta.corpus,
      embedder: meta.embedder,
      thresholds: meta.thresholds,
      papers: this.papers,
      items,
      itemsPerFacet: { ...this.counts },
      structural: { ...this.s, shareClean: this.papers ? Math.round(((this.papers - this.s.papersWithIssues) / this.papers) * 10_000) / 10_000 : 0 },
      grounding: {
        all: distribution(FACETS.flatMap((f) => this.grounding[f])),
        perFacet: perFacetOf(this.grounding),
        null: distribution(this.nullScores),
        threshold: meta.thresholds.ungroundedBelow,
        ungrounded: this.flags.ungrounded,
        abstractLevel: hasAbstract ? { all: distribution(FACETS.flatMap((f) => this.abstractLevel[f])), perFacet: perFacetOf(this.abstractLevel) } : null,
        bestSource: Object.fromEntries(Object.entries(this.bestSource).map(([k, v]) => [k, share(v)])),
      },
      redundancy: { ...this.r, overlapByFacets: { ...this.r.overlapByFacets } },
      specificity: { all: distribution(this.specificity), generic: this.flags.generic },
      flags: { ...this.flags },
    };
  }
}

function perFacetOf(values: Record<Facet, number[]>): Record<Facet, Distribution> {
  return Object.fromEntries(FACETS.map((f) => [f, distribution(values[f])])) as Record<Facet, Distribution>;
}
