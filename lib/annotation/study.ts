import { z } from "zod";
import { CodedError } from "@/lib/errors";
import { corpusName, DEFAULT_CORPUS, NotFoundError } from "@/lib/corpus/browse";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { Db } from "@/lib/db";
import { mulberry32 } from "@/lib/random";

/**
 * Study set-up (paper, Appendix "Facet Groundedness Study"): sample papers whose extraction
 * yielded all four facets, one item per facet, choose a shared core rated by every annotator
 * and split the remaining papers across annotators. With the paper's defaults (50 papers, a
 * 40-item core, 3 annotators) the sheets hold 92, 92 and 96 items, as in the paper.
 *
 * `planStudy` is pure and seeded over plain data; `createStudy` is the thin writer.
 */

export const ITEMS_PER_PAPER = FACETS.length;

export const studyOptions = z
  .object({
    name: z.string().trim().min(1, "give the study a name").max(120),
    corpus: corpusName.default(DEFAULT_CORPUS),
    papers: z.coerce.number().int().min(1).max(1000).default(50),
    coreItems: z.coerce
      .number()
      .int()
      .min(0)
      .default(40)
      .refine((n) => n % ITEMS_PER_PAPER === 0, `the core is made of whole papers, so it must be a multiple of ${ITEMS_PER_PAPER} items`),
    annotatorIds: z.array(z.coerce.number().int().positive()).min(1, "choose at least one annotator"),
    seed: z.coerce
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1),
  })
  .superRefine((o, ctx) => {
    if (o.coreItems > o.papers * ITEMS_PER_PAPER)
      ctx.addIssue({ code: "custom", path: ["coreItems"], message: `the core cannot exceed the study's ${o.papers * ITEMS_PER_PAPER} items` });
    if (new Set(o.annotatorIds).size !== o.annotatorIds.length)
      ctx.addIssue({ code: "custom", path: ["annotatorIds"], message: "an annotator is listed twice" });
    if (o.coreItems > 0 && o.annotatorIds.length < 2)
      ctx.addIssue({ code: "custom", path: ["annotatorIds"], message: "a shared core needs at least two annotators (or set the core to 0)" });
  });
export type StudyOptions = z.output<typeof studyOptions>;
export type StudyOptionsInput = z.input<typeof studyOptions>;

/** A paper that may be sampled, with its facet items (any order). */
export interface CandidatePaper {
  paperId: number;
  /** Stable key (the external id): candidates are sorted by it so a seed means the same sample. */
  key: string;
  items: readonly { id: number; facet: string; position: number }[];
}

export interface PlannedItem {
  facetItemId: number;
  paperId: number;
  facet: Facet;
  isCore: boolean;
  /** Order in the study (paper by paper, facets in the paper's order). */
  position: number;
}

export interface PlannedSheet {
  userId: number;
  /** Indices into `items`, in the order this annotator sees them. */
  items: number[];
}

export interface StudyPlan {
  items: PlannedItem[];
  sheets: PlannedSheet[];
  corePapers: number;
  /** Papers eligible for sampling (all four facets). */
  eligible: number;
}

export class StudyPlanError extends CodedError {
  constructor(message: string) {
    super("invalid_request", message);
    this.name = "StudyPlanError";
  }
}

function shuffle<T>(xs: T[], random: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

/** How many non-core papers each annotator gets: equal shares, the remainder to the last ones. */
export function splitSizes(total: number, annotators: number): number[] {
  const base = Math.floor(total / annotators);
  const extra = total % annotators;
  return Array.from({ length: annotators }, (_, i) => base + (i >= annotators - extra ? 1 : 0));
}

export function planStudy(candidates: readonly CandidatePaper[], options: Pick<StudyOptions, "papers" | "coreItems" | "annotatorIds" | "seed">): StudyPlan {
  const random = mulberry32(options.seed);
  const byFacet = (c: CandidatePaper) => FACETS.map((f) => c.items.filter((i) => i.facet === f).sort((a, b) => a.position - b.position || a.id - b.id));
  const eligible = candidates
    .map((c) => ({ c, facets: byFacet(c) }))
    .filter((x) => x.facets.every((items) => items.length > 0))
    .sort((a, b) => (a.c.key < b.c.key ? -1 : a.c.key > b.c.key ? 1 : a.c.paperId - b.c.paperId));
  if (eligible.length < options.papers) throw new StudyPlanError(`only ${eligible.length} papers have all four facets; the study asks for ${options.papers}`);
  const sampled = shuffle([...eligible], random).slice(0, options.papers);

  const corePapers = options.coreItems / ITEMS_PER_PAPER;
  const items: PlannedItem[] = [];
  const paperItems: number[][] = sampled.map((s, p) =>
    FACETS.map((facet, f) => {
      const pick = s.facets[f][Math.floor(random() * s.facets[f].length)];
      items.push({ facetItemId: pick.id, paperId: s.c.paperId, facet, isCore: p < corePapers, position: items.length + 1 });
      return items.length - 1;
    }),
  );

  // Annotators in id order, so the same choice of people gives the same sheets.
  const annotators = [...options.annotatorIds].sort((a, b) => a - b);
  const sizes = splitSizes(options.papers - corePapers, annotators.length);
  let next = corePapers;
  const sheets = annotators.map((userId, a) => {
    const own = Array.from({ length: sizes[a] }, () => next++);
    const papers = Array.from({ length: corePapers }, (_, p) => p).concat(own);
    // Core and own papers interleaved, so core items are not all rated first (or last).
    return { userId, items: shuffle(papers, random).flatMap((p) => paperItems[p]) };
  });
  return { items, sheets, corePapers, eligible: eligible.length };
}

// ── Store ────────────────────────────────────────────────────────────────────

export interface StudyParams {
  papers: number;
  coreItems: number;
  annotatorIds: number[];
  sheetSizes: Record<string, number>;
  eligible: number;
}

export interface StudySummary {
  id: number;
  name: string;
  corpus: string;
  seed: number;
  status: string;
  createdAt: string;
  params: StudyParams;
  items: number;
  coreItems: number;
  ratings: number;
  /** Ratings expected when every sheet is complete. */
  expectedRatings: number;
}

export async function loadCandidates(db: Db, corpusId: number): Promise<CandidatePaper[]> {
  const papers = await db.paper.findMany({
    where: { corpusId, role: "corpus" },
    select: { id: true, externalId: true, facetItems: { select: { id: true, facet: true, position: true } } },
  });
  return papers.map((p) => ({ paperId: p.id, key: p.externalId, items: p.facetItems }));
}

/** Samples and stores a study: its items (core flagged) and every annotator's ordered sheet. */
export async function createStudy(db: Db, input: StudyOptionsInput, createdById: number | null): Promise<StudySummary> {
  const options = studyOptions.parse(input);
  const corpus = await db.corpus.findUnique({ where: { name: options.corpus }, select: { id: true } });
  if (!corpus) throw new NotFoundError(`no corpus named "${options.corpus}"`);
  const users = await db.user.findMany({ where: { id: { in: options.annotatorIds } }, select: { id: true, role: true, disabled: true, email: true } });
  for (const id of options.annotatorIds) {
    const u = users.find((x) => x.id === id);
    if (!u) throw new StudyPlanError(`no user with id ${id}`);
    if (u.role !== "annotator") throw new StudyPlanError(`${u.email} is not an annotator`);
    if (u.disabled) throw new StudyPlanError(`${u.email} is disabled`);
  }
  const plan = planStudy(await loadCandidates(db, corpus.id), options);
  const params: StudyParams = {
    papers: options.papers,
    coreItems: options.coreItems,
    annotatorIds: plan.sheets.map((s) => s.userId),
    sheetSizes: Object.fromEntries(plan.sheets.map((s) => [String(s.userId), s.items.length])),
    eligible: plan.eligible,
  };
  const studyId = await db.$transaction(
    async (tx) => {
      const study = await tx.study.create({
        data: { corpusId: corpus.id, name: options.name, seed: options.seed, params: JSON.stringify(params), status: "open", createdById },
      });
      await tx.studyItem.createMany({
        data: plan.items.map((i) => ({ studyId: study.id, facetItemId: i.facetItemId, paperId: i.paperId, isCore: i.isCore, position: i.position })),
      });
      const stored = await tx.studyItem.findMany({ where: { studyId: study.id }, select: { id: true, facetItemId: true } });
      const idOf = new Map(stored.map((s) => [s.facetItemId, s.id]));
      await tx.assignment.createMany({
        data: plan.sheets.flatMap((s) =>
          s.items.map((itemIndex, k) => ({ studyItemId: idOf.get(plan.items[itemIndex].facetItemId)!, userId: s.userId, position: k + 1 })),
        ),
      });
      return study.id;
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
  return (await getStudySummary(db, studyId))!;
}

function parseParams(json: string): StudyParams {
  const p = JSON.parse(json) as Partial<StudyParams>;
  return { papers: p.papers ?? 0, coreItems: p.coreItems ?? 0, annotatorIds: p.annotatorIds ?? [], sheetSizes: p.sheetSizes ?? {}, eligible: p.eligible ?? 0 };
}

export async function listStudies(db: Db): Promise<StudySummary[]> {
  const studies = await db.study.findMany({ orderBy: { id: "desc" }, select: { id: true } });
  return (await Promise.all(studies.map((s) => getStudySummary(db, s.id)))).filter((s): s is StudySummary => s !== null);
}

export async function getStudySummary(db: Db, id: number): Promise<StudySummary | null> {
  const s = await db.study.findUnique({ where: { id }, include: { corpus: { select: { name: true } } } });
  if (!s) return null;
  const [items, coreItems, ratings, expectedRatings] = await Promise.all([
    db.studyItem.count({ where: { studyId: id } }),
    db.studyItem.count({ where: { studyId: id, isCore: true } }),
    db.rating.count({ where: { studyItem: { studyId: id } } }),
    db.assignment.count({ where: { studyItem: { studyId: id } } }),
  ]);
  return {
    id: s.id,
    name: s.name,
    corpus: s.corpus.name,
    seed: s.seed,
    status: s.status,
    createdAt: s.createdAt.toISOString(),
    params: parseParams(s.params),
    items,
    coreItems,
    ratings,
    expectedRatings,
  };
}

export const STUDY_STATUSES = ["open", "closed"] as const;

/** Opens or closes a study; a closed study keeps its ratings but accepts no new ones. */
export async function setStudyStatus(db: Db, id: number, status: (typeof STUDY_STATUSES)[number]): Promise<StudySummary> {
  const updated = await db.study.updateMany({ where: { id }, data: { status } });
  if (updated.count === 0) throw new NotFoundError(`no study with id ${id}`);
  return (await getStudySummary(db, id))!;
}
