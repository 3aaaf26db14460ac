import { FACETS, type Facet } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import {
  binarize,
  gwetAc1,
  krippendorffAlpha,
  krippendorffAlphaCi,
  pairwiseAgreement,
  pooledGroundedness,
  rawAgreement,
  summarizeRatings,
  type Ac1Result,
  type PairAgreement,
  type PooledSummary,
  type RatingMatrix,
  type RatingSummary,
  type RawAgreement,
} from "./agreement";
import { toCsv } from "@/lib/csv";
import { getStudySummary, type StudySummary } from "./study";

/**
 * The agreement dashboard of a study: every statistic of the paper's groundedness appendix,
 * computed from the stored ratings with the plain functions of agreement.ts.
 */

export interface AnnotatorReport {
  userId: number;
  email: string;
  name: string;
  assigned: number;
  summary: RatingSummary;
}

export interface CoreReport {
  /** Core items in the study, and the annotators who share them. */
  items: number;
  annotators: { userId: number; email: string }[];
  raw: RawAgreement;
  pairwise: (PairAgreement & { aEmail: string; bEmail: string })[];
  alphaOrdinal: { alpha: number | null; lower: number | null; upper: number | null; resamples: number };
  alphaBinary: number | null;
  ac1: Ac1Result | null;
}

export interface RatingRow {
  studyItemId: number;
  itemPosition: number;
  paperId: string;
  paperTitle: string;
  facet: Facet;
  item: string;
  core: boolean;
  annotator: string;
  score: number;
  rationale: string;
  updatedAt: string;
}

export interface StudyReport {
  study: StudySummary;
  annotators: AnnotatorReport[];
  pooled: PooledSummary<Facet>;
  core: CoreReport;
  ratings: RatingRow[];
  bootstrap: { resamples: number; seed: number; level: number };
}

export const REPORT_RESAMPLES = 1000;

export async function studyReport(db: Db, studyId: number, resamples = REPORT_RESAMPLES): Promise<StudyReport | null> {
  const study = await getStudySummary(db, studyId);
  if (!study) return null;
  const items = await db.studyItem.findMany({
    where: { studyId },
    orderBy: { position: "asc" },
    include: {
      facetItem: { select: { facet: true, text: true } },
      paper: { select: { externalId: true, title: true } },
      ratings: { include: { user: { select: { email: true } } }, orderBy: { userId: "asc" } },
      assignments: { select: { userId: true } },
    },
  });
  const userIds = [...new Set(items.flatMap((i) => i.assignments.map((a) => a.userId)))].sort((a, b) => a - b);
  const users = await db.user.findMany({ where: { id: { in: userIds } }, select: { id: true, email: true, name: true } });
  const userOf = new Map(users.map((u) => [u.id, u]));
  const bootstrap = { resamples, seed: study.seed, level: 0.95 };
  const facetOf = (f: string) => f as Facet;

  const annotators: AnnotatorReport[] = userIds.map((id) => ({
    userId: id,
    email: userOf.get(id)?.email ?? `user ${id}`,
    name: userOf.get(id)?.name ?? "",
    assigned: items.filter((i) => i.assignments.some((a) => a.userId === id)).length,
    summary: summarizeRatings(items.flatMap((i) => i.ratings.filter((r) => r.userId === id).map((r) => r.score))),
  }));

  const pooled = pooledGroundedness(
    items.map((i) => ({ cluster: i.paperId, facet: facetOf(i.facetItem.facet), scores: i.ratings.map((r) => r.score) })),
    FACETS,
    bootstrap,
  );

  // The core as reliability data: one row per core item, one column per annotator sharing it.
  const coreItems = items.filter((i) => i.isCore);
  const coreRaters = [...new Set(coreItems.flatMap((i) => i.assignments.map((a) => a.userId)))].sort((a, b) => a - b);
  const matrix: RatingMatrix = coreItems.map((i) => coreRaters.map((u) => i.ratings.find((r) => r.userId === u)?.score ?? null));
  const emailOf = (u: number) => userOf.get(u)?.email ?? `user ${u}`;
  const alpha = krippendorffAlphaCi(matrix, "ordinal", bootstrap);
  let ac1: Ac1Result | null = null;
  try {
    ac1 = gwetAc1(binarize(matrix), [0, 1]);
  } catch {
    ac1 = null; // no core item has two ratings yet
  }
  const core: CoreReport = {
    items: coreItems.length,
    annotators: coreRaters.map((u) => ({ userId: u, email: emailOf(u) })),
    raw: rawAgreement(matrix),
    pairwise: pairwiseAgreement(matrix).map((p) => ({ ...p, aEmail: emailOf(coreRaters[p.a]), bEmail: emailOf(coreRaters[p.b]) })),
    alphaOrdinal: { alpha: alpha.alpha, lower: alpha.ci?.lower ?? null, upper: alpha.ci?.upper ?? null, resamples },
    alphaBinary: krippendorffAlpha(binarize(matrix), "nominal").alpha,
    ac1,
  };

  const ratings: RatingRow[] = items.flatMap((i) =>
    i.ratings.map((r) => ({
      studyItemId: i.id,
      itemPosition: i.position,
      paperId: i.paper.externalId,
      paperTitle: i.paper.title,
      facet: facetOf(i.facetItem.facet),
      item: i.facetItem.text,
      core: i.isCore,
      annotator: r.user.email,
      score: r.score,
      rationale: r.rationale,
      updatedAt: r.updatedAt.toISOString(),
    })),
  );
  return { study, annotators, pooled, core, ratings, bootstrap };
}

// ── CSV exports ──────────────────────────────────────────────────────────────

export function ratingsCsv(report: StudyReport): string {
  return toCsv(
    ["study_item_id", "item_position", "paper_id", "paper_title", "facet", "item", "core", "annotator", "score", "rationale", "updated_at"],
    report.ratings.map((r) => [
      r.studyItemId,
      r.itemPosition,
      r.paperId,
      r.paperTitle,
      r.facet,
      r.item,
      r.core,
      r.annotator,
      r.score,
      r.rationale,
      r.updatedAt,
    ]),
  );
}

type StatRow = [section: string, statistic: string, group: string, value: number | null, lower: number | null, upper: number | null, n: number | null];

/** Every dashboard figure in long form: section, statistic, group, value, CI bounds, n. */
export function statisticsRows(report: StudyReport): StatRow[] {
  const rows: StatRow[] = [];
  for (const a of report.annotators) {
    const s = a.summary;
    for (let score = 5; score >= 1; score--) rows.push(["annotator", `count_${score}`, a.email, s.counts[score - 1], null, null, s.n]);
    rows.push(["annotator", "mean", a.email, s.mean, null, null, s.n]);
    rows.push(["annotator", "share_ge4", a.email, s.shareGrounded, null, null, s.n]);
  }
  const p = report.pooled;
  rows.push(["pooled", "share_ge4", "all", p.share, p.shareCi?.lower ?? null, p.shareCi?.upper ?? null, p.items]);
  rows.push(["pooled", "mean", "all", p.mean, null, null, p.items]);
  for (const f of FACETS) {
    const g = p.perFacet[f];
    rows.push(["pooled", "mean", f, g.mean, null, null, g.items]);
    rows.push(["pooled", "share_ge4", f, g.share, null, null, g.items]);
  }
  const c = report.core;
  const share = (k: number) => (c.raw.units ? k / c.raw.units : null);
  rows.push(["core", "exact_all", "all", share(c.raw.exact), null, null, c.raw.units]);
  rows.push(["core", "within_one_all", "all", share(c.raw.withinOne), null, null, c.raw.units]);
  rows.push(["core", "unanimous_ge4", "all", share(c.raw.unanimousGrounded), null, null, c.raw.units]);
  for (const pair of c.pairwise) {
    const group = `${pair.aEmail} | ${pair.bEmail}`;
    rows.push(["core", "pairwise_exact", group, pair.units ? pair.exact / pair.units : null, null, null, pair.units]);
    rows.push(["core", "pairwise_within_one", group, pair.units ? pair.withinOne / pair.units : null, null, null, pair.units]);
  }
  rows.push(["core", "krippendorff_alpha_ordinal", "all", c.alphaOrdinal.alpha, c.alphaOrdinal.lower, c.alphaOrdinal.upper, c.items]);
  rows.push(["core", "krippendorff_alpha_binary_ge4", "all", c.alphaBinary, null, null, c.items]);
  rows.push(["core", "gwet_ac1_ge4", "all", c.ac1?.ac1 ?? null, c.ac1?.lower ?? null, c.ac1?.upper ?? null, c.ac1?.units ?? null]);
  return rows;
}

export function statisticsCsv(report: StudyReport): string {
  return toCsv(["section", "statistic", "group", "value", "ci_lower", "ci_upper", "n"], statisticsRows(report));
}
