import { z } from "zod";
import { CodedError } from "@/lib/errors";
import { parseAuthors, FACETS, type Facet } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { parseEvidence, type EvidenceSnippet } from "./evidence";

/**
 * An annotator's sheet: the items assigned to them, in their order, with their own ratings.
 * Every function takes the annotator's user id and reads through their assignments, so one
 * annotator can neither see nor rate another's items, nor see another's ratings of shared ones.
 */

/** The paper's 1-5 groundedness scale, with its wording (Appendix "Facet Groundedness Study"). */
export const SCALE_LABELS: Record<number, { label: string; description: string }> = {
  5: { label: "Fully grounded", description: "The paper supports the whole item." },
  4: { label: "Minor imprecision", description: "Supported, with a small inaccuracy or overstatement." },
  3: { label: "Partly supported", description: "Captures something real, but a substantive part is unsupported." },
  2: { label: "Loosely connected", description: "Only loosely connected to what the paper says." },
  1: { label: "Fabricated", description: "Fabricated, or not about this paper." },
};

export const ratingInput = z.object({
  score: z.number().int().min(1, "score must be 1-5").max(5, "score must be 1-5"),
  rationale: z.string().trim().min(3, "write a one-sentence rationale").max(1000, "keep the rationale to one sentence (at most 1,000 characters)"),
});
export type RatingInput = z.input<typeof ratingInput>;

export class StudyClosedError extends CodedError {
  constructor() {
    super("conflict", "this study is closed: ratings can no longer be changed");
    this.name = "StudyClosedError";
  }
}

export interface MyStudy {
  id: number;
  name: string;
  corpus: string;
  status: string;
  total: number;
  rated: number;
}

export async function myStudies(db: Db, userId: number): Promise<MyStudy[]> {
  const studies = await db.study.findMany({
    where: { items: { some: { assignments: { some: { userId } } } } },
    orderBy: { id: "desc" },
    include: { corpus: { select: { name: true } } },
  });
  return Promise.all(
    studies.map(async (s) => ({
      id: s.id,
      name: s.name,
      corpus: s.corpus.name,
      status: s.status,
      total: await db.assignment.count({ where: { userId, studyItem: { studyId: s.id } } }),
      rated: await db.rating.count({ where: { userId, studyItem: { studyId: s.id } } }),
    })),
  );
}

export interface SheetEntry {
  studyItemId: number;
  /** 1-based place in this annotator's sheet. */
  position: number;
  facet: Facet;
  paperTitle: string;
  score: number | null;
  rationale: string;
}

export interface Sheet {
  study: { id: number; name: string; status: string; corpus: string };
  entries: SheetEntry[];
  rated: number;
}

const asFacet = (f: string): Facet => ((FACETS as readonly string[]).includes(f) ? (f as Facet) : "problems");

/** The annotator's sheet of a study, or null when they have no items in it. */
export async function getSheet(db: Db, studyId: number, userId: number): Promise<Sheet | null> {
  const study = await db.study.findUnique({ where: { id: studyId }, include: { corpus: { select: { name: true } } } });
  if (!study) return null;
  const assignments = await db.assignment.findMany({
    where: { userId, studyItem: { studyId } },
    orderBy: { position: "asc" },
    include: {
      studyItem: {
        include: {
          facetItem: { select: { facet: true } },
          paper: { select: { title: true } },
          ratings: { where: { userId }, select: { score: true, rationale: true } },
        },
      },
    },
  });
  if (assignments.length === 0) return null;
  const entries = assignments.map((a, i) => ({
    studyItemId: a.studyItemId,
    position: i + 1,
    facet: asFacet(a.studyItem.facetItem.facet),
    paperTitle: a.studyItem.paper.title,
    score: a.studyItem.ratings[0]?.score ?? null,
    rationale: a.studyItem.ratings[0]?.rationale ?? "",
  }));
  return {
    study: { id: study.id, name: study.name, status: study.status, corpus: study.corpus.name },
    entries,
    rated: entries.filter((e) => e.score !== null).length,
  };
}

export interface SheetItem {
  studyItemId: number;
  facet: Facet;
  text: string;
  paper: {
    externalId: string;
    title: string;
    abstract: string;
    fullText: string | null;
    year: number | null;
    venue: string | null;
    authors: string[];
  };
  /** The audit's grounding evidence (best first); empty when the item was not audited. */
  evidence: EvidenceSnippet[];
  grounding: number | null;
  /** This annotator's own rating, if any. */
  rating: { score: number; rationale: string; updatedAt: string } | null;
}

/** One item of the annotator's sheet with what they rate it against; null if not theirs. */
export async function getSheetItem(db: Db, studyId: number, userId: number, studyItemId: number): Promise<SheetItem | null> {
  const assignment = await db.assignment.findFirst({
    where: { userId, studyItemId, studyItem: { studyId } },
    include: {
      studyItem: {
        include: {
          facetItem: { include: { audit: { select: { evidence: true, grounding: true } } } },
          paper: { select: { externalId: true, title: true, abstract: true, fullText: true, year: true, venue: true, authors: true } },
          ratings: { where: { userId } },
        },
      },
    },
  });
  if (!assignment) return null;
  const { facetItem, paper, ratings } = assignment.studyItem;
  const rating = ratings[0];
  return {
    studyItemId,
    facet: asFacet(facetItem.facet),
    text: facetItem.text,
    paper: { ...paper, authors: parseAuthors(paper.authors) },
    evidence: parseEvidence(facetItem.audit?.evidence),
    grounding: facetItem.audit?.grounding ?? null,
    rating: rating ? { score: rating.score, rationale: rating.rationale, updatedAt: rating.updatedAt.toISOString() } : null,
  };
}

export type SaveOutcome = { saved: true; rating: { score: number; rationale: string; updatedAt: string }; rated: number; total: number } | null;

/**
 * Creates or replaces the annotator's rating of an item of their sheet. Null when the item is
 * not on their sheet (the caller answers 404, revealing nothing about other sheets).
 */
export async function saveRating(db: Db, studyId: number, userId: number, studyItemId: number, input: RatingInput): Promise<SaveOutcome> {
  const data = ratingInput.parse(input);
  const assignment = await db.assignment.findFirst({
    where: { userId, studyItemId, studyItem: { studyId } },
    select: { studyItem: { select: { study: { select: { status: true } } } } },
  });
  if (!assignment) return null;
  if (assignment.studyItem.study.status !== "open") throw new StudyClosedError();
  const rating = await db.rating.upsert({
    where: { studyItemId_userId: { studyItemId, userId } },
    create: { studyItemId, userId, score: data.score, rationale: data.rationale },
    update: { score: data.score, rationale: data.rationale },
  });
  const [rated, total] = await Promise.all([
    db.rating.count({ where: { userId, studyItem: { studyId } } }),
    db.assignment.count({ where: { userId, studyItem: { studyId } } }),
  ]);
  return { saved: true, rating: { score: rating.score, rationale: rating.rationale, updatedAt: rating.updatedAt.toISOString() }, rated, total };
}
