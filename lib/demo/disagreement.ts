import { FACETS, type Facet } from "@/lib/corpus/types";
import { analyzer } from "@/lib/text/analyzer";

// How much a query's facets disagree about what is related: the measure used to pick the demo's
// example queries (papers where, as in the paper's CEval example, different facets surface
// different papers). Pure: it reads a related-papers result and returns numbers.

/** The parts of a related-papers result the measure reads. */
export interface AttributedResult {
  query: { facets: Record<Facet, string[]> };
  results: { externalId: string; facets: { facet: Facet; evidence: { similarity: number } | null }[] }[];
  perFacet: Record<Facet, { externalId: string }[]>;
}

export interface Disagreement {
  /** 1 − the mean pairwise Jaccard overlap of the facets' top-n lists: 1 when they share nothing. */
  spread: number;
  /** Facets that are the only credited facet of at least one fused result. */
  soleFacets: Facet[];
  /** For each such facet, its best-ranked sole result (1-based fused rank, id, evidence cosine). */
  soleFinds: Partial<Record<Facet, { rank: number; externalId: string; similarity: number }>>;
  /** Fused top-n results credited by two or more facets: the neighbourhood the facets agree on. */
  corroborated: number;
  /** Facets with no items in the query (a demo needs all four). */
  emptyFacets: Facet[];
}

export function jaccard<T>(a: Set<T>, b: Set<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

export function disagreement(r: AttributedResult, topN = 10): Disagreement {
  const sets = FACETS.map((f) => new Set(r.perFacet[f].slice(0, topN).map((p) => p.externalId)));
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < sets.length; i++)
    for (let j = i + 1; j < sets.length; j++) {
      sum += jaccard(sets[i], sets[j]);
      pairs++;
    }
  const soleFinds: Disagreement["soleFinds"] = {};
  r.results.slice(0, topN).forEach((res, i) => {
    if (res.facets.length !== 1) return;
    const f = res.facets[0].facet;
    if (!soleFinds[f]) soleFinds[f] = { rank: i + 1, externalId: res.externalId, similarity: res.facets[0].evidence?.similarity ?? 0 };
  });
  return {
    spread: 1 - sum / pairs,
    soleFacets: FACETS.filter((f) => soleFinds[f]),
    soleFinds,
    corroborated: r.results.slice(0, topN).filter((res) => res.facets.length >= 2).length,
    emptyFacets: FACETS.filter((f) => r.query.facets[f].length === 0),
  };
}

/** Function words and the words most titles share ("model", "learning", "approach"). */
const TITLE_STOPWORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "the",
  "of",
  "for",
  "in",
  "on",
  "and",
  "to",
  "with",
  "from",
  "by",
  "using",
  "via",
  "is",
  "are",
  "its",
  "towards",
  "toward",
  "based",
  "approach",
  "study",
  "learning",
  "model",
  "models",
]);

// Runs of letters and digits longer than two characters (the analyzer's "words" pattern).
const titleTerms = analyzer({ stopwords: TITLE_STOPWORDS, minLength: 3 });

/** Content words of a title, for checking that a sole find is not just a title match. */
export function titleWords(title: string): Set<string> {
  return new Set(titleTerms(title));
}

export interface Candidate {
  externalId: string;
  title: string;
  year: number | null;
  d: Disagreement;
  /** Fused top-n ids, to keep the chosen examples from showing the same papers. */
  topIds: string[];
  /** Sole finds whose titles share no content word with the query's title: related by facet, not by topic words. */
  unexpected: number;
}

/** The weakest evidence cosine among a candidate's sole finds: every facet's find should be convincing. */
export function weakestSoleEvidence(d: Disagreement): number {
  const s = Object.values(d.soleFinds).map((x) => x!.similarity);
  return s.length ? Math.min(...s) : 0;
}

export interface EligibilityRule {
  minSole?: number;
  minCorroborated?: number;
}

export function isEligible(c: Candidate, { minSole = 3, minCorroborated = 3 }: EligibilityRule = {}): boolean {
  return c.d.emptyFacets.length === 0 && c.d.soleFacets.length >= minSole && c.d.corroborated >= minCorroborated && c.unexpected >= 1;
}

export function eligibleCount(cands: Candidate[], rule: EligibilityRule = {}): number {
  return cands.filter((c) => isEligible(c, rule)).length;
}

/**
 * Ranks candidates (all four facets present, at least `minSole` facets with a sole find, at least
 * `minCorroborated` results that two facets agree on, so the neighbourhood is coherent and the
 * facets still differ) by the number of facets with sole finds, then the weakest sole find's
 * evidence cosine, then spread; then takes `count` greedily so that no two chosen examples share a
 * fused top-n paper, at least one sole find per example is "unexpected" (no shared title word with
 * the query, as in the paper's CEval example), and years spread out.
 */
export function chooseExamples(cands: Candidate[], count: number, rule: EligibilityRule = {}): Candidate[] {
  const eligible = cands
    .filter((c) => isEligible(c, rule))
    .sort(
      (a, b) =>
        b.d.soleFacets.length - a.d.soleFacets.length ||
        weakestSoleEvidence(b.d) - weakestSoleEvidence(a.d) ||
        b.d.spread - a.d.spread ||
        a.externalId.localeCompare(b.externalId),
    );
  const chosen: Candidate[] = [];
  const used = new Set<string>();
  const years = new Map<number, number>();
  for (const c of eligible) {
    if (chosen.length >= count) break;
    if (c.topIds.some((id) => used.has(id)) || used.has(c.externalId)) continue;
    // At most two examples from one year, so the set spans the corpus's history.
    if (c.year !== null && (years.get(c.year) ?? 0) >= 2) continue;
    chosen.push(c);
    for (const id of [c.externalId, ...c.topIds]) used.add(id);
    if (c.year !== null) years.set(c.year, (years.get(c.year) ?? 0) + 1);
  }
  return chosen;
}
