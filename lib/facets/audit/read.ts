/**
 * Server-side loader of one paper's audit for the paper page: its items with their stored
 * audits (grounding, evidence, flags, specificity) and the facet-level flags. The result is
 * plain JSON-safe data, so a server component can pass it to the client component as props.
 */
import { z } from "zod";
import { FACETS, type Facet } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { type Evidence, type FacetFlag, type ItemFlag, ITEM_FLAGS, structuralChecks } from "./checks";

export interface AuditedItem {
  id: number;
  position: number;
  text: string;
  /** null when the item has no audit yet (or its paper has no text). */
  grounding: number | null;
  evidence: Evidence[];
  flags: ItemFlag[];
  specificity: number | null;
  audited: boolean;
}

export interface PaperAuditView {
  paperId: number;
  title: string;
  abstract: string;
  fullText: string | null;
  facets: Record<Facet, AuditedItem[]>;
  /** Recomputed from the items (cheap and always current): empty facets, too many items, all meta. */
  facetFlags: Record<Facet, FacetFlag[]>;
  /** Items with a stored audit, of `total`. */
  audited: number;
  total: number;
  /** When the newest of the item audits was written (ISO), null when none is. */
  auditedAt: string | null;
}

const evidenceSchema = z.array(
  z.object({
    text: z.string(),
    score: z.number(),
    start: z.number().int().nonnegative(),
    end: z.number().int().nonnegative(),
    source: z.enum(["title", "abstract", "fullText"]).default("abstract"),
  }),
);
const flagsSchema = z.array(z.string()).transform((xs) => xs.filter((x): x is ItemFlag => (ITEM_FLAGS as readonly string[]).includes(x)));

/** Stored JSON is read defensively: a malformed row shows as "no evidence", never as a broken page. */
function parseJson<T>(raw: string, schema: z.ZodType<T>, fallback: T): T {
  try {
    const r = schema.safeParse(JSON.parse(raw));
    return r.success ? r.data : fallback;
  } catch {
    return fallback;
  }
}

/** The audit view of a paper (by database id); null when there is no such paper. */
export async function loadPaperAudit(db: Db, paperId: number): Promise<PaperAuditView | null> {
  const paper = await db.paper.findUnique({
    where: { id: paperId },
    select: {
      id: true,
      title: true,
      abstract: true,
      fullText: true,
      facetItems: {
        select: {
          id: true,
          facet: true,
          position: true,
          text: true,
          audit: { select: { grounding: true, evidence: true, flags: true, specificity: true, createdAt: true } },
        },
        orderBy: [{ facet: "asc" }, { position: "asc" }],
      },
    },
  });
  if (!paper) return null;
  const facets = Object.fromEntries(FACETS.map((f) => [f, [] as AuditedItem[]])) as Record<Facet, AuditedItem[]>;
  let audited = 0;
  let newest: Date | null = null;
  for (const item of paper.facetItems) {
    if (!(FACETS as readonly string[]).includes(item.facet)) continue;
    const a = item.audit;
    if (a) {
      audited++;
      if (!newest || a.createdAt > newest) newest = a.createdAt;
    }
    facets[item.facet as Facet].push({
      id: item.id,
      position: item.position,
      text: item.text,
      grounding: a?.grounding ?? null,
      evidence: a ? parseJson(a.evidence, evidenceSchema, []) : [],
      flags: a ? parseJson(a.flags, flagsSchema, []) : [],
      specificity: a?.specificity ?? null,
      audited: a !== null,
    });
  }
  const structural = structuralChecks(Object.fromEntries(FACETS.map((f) => [f, facets[f].map((i) => i.text)])) as Record<Facet, string[]>);
  return {
    paperId: paper.id,
    title: paper.title,
    abstract: paper.abstract,
    fullText: paper.fullText,
    facets,
    facetFlags: structural.facets,
    audited,
    total: paper.facetItems.length,
    auditedAt: newest ? newest.toISOString() : null,
  };
}
