import { z } from "zod";
import { corpusName, DEFAULT_CORPUS, NotFoundError, parseAuthors } from "@/lib/corpus/browse";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { Db } from "@/lib/db/client";
import { dot } from "@/lib/embed/types";
import { csrWeightOf, graphRrf, listsFromPapers, rrf, type FacetLists, type FusedResult } from "@/lib/fusion";
import { walkFacet } from "@/lib/graph/walk";
import { loadGraph } from "./graph-store";

// relatedPapers: a paper in, related papers out, each with the facets that surfaced it and
// the evidence. One function for the CLI, the HTTP API and the web app. Retrievers so far:
// the dense-graph teacher (per-facet two-hop walks over the typed graph) for corpus papers;
// the generative retriever and unseen papers (text, PDF) plug in here later.

export const RETRIEVERS = ["dense-graph"] as const;
export const FUSIONS = ["graph-rrf", "rrf"] as const;

export const relatedOptions = z
  .object({
    k: z.coerce.number().int().min(1).max(100).default(20),
    retriever: z.enum(RETRIEVERS).default("dense-graph"),
    fusion: z.enum(FUSIONS).default("graph-rrf"),
    facets: z
      .union([z.array(z.enum(FACETS)), z.string().transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean))])
      .pipe(z.array(z.enum(FACETS, { error: `facets must be among: ${FACETS.join(", ")}` })).min(1, "give at least one facet"))
      .default([...FACETS]),
    yearFrom: z.coerce.number().int().min(1900).max(2100).optional(),
    yearTo: z.coerce.number().int().min(1900).max(2100).optional(),
    venue: z.string().trim().min(1).max(300).optional(),
  })
  .refine((o) => o.yearFrom === undefined || o.yearTo === undefined || o.yearFrom <= o.yearTo, {
    message: "yearFrom must not be after yearTo",
    path: ["yearFrom"],
  });
export type RelatedOptions = z.infer<typeof relatedOptions>;

export const corpusPaperInput = z.object({ corpus: corpusName.default(DEFAULT_CORPUS), paperId: z.string().trim().min(1).max(300) });
export type CorpusPaperInput = z.infer<typeof corpusPaperInput>;

export interface Evidence {
  /** The query paper's item and the related paper's item that match best in this facet. */
  queryItem: string;
  paperItem: string;
  similarity: number;
}

export interface CreditedFacet {
  facet: Facet;
  rank: number;
  /** Graph-RRF: the edge weight w_f(q, d); RRF: 1. */
  weight: number;
  evidence: Evidence | null;
}

export interface RelatedPaper {
  externalId: string;
  title: string;
  year: number | null;
  venue: string | null;
  authors: string[];
  score: number;
  facets: CreditedFacet[];
}

export interface RelatedResult {
  corpus: string;
  build: number;
  retriever: (typeof RETRIEVERS)[number];
  fusion: (typeof FUSIONS)[number];
  query: { externalId: string; title: string; facets: Record<Facet, string[]> };
  results: RelatedPaper[];
  /** What each facet retrieved on its own (top k, before fusion). */
  perFacet: Record<Facet, { externalId: string; title: string; rank: number; score: number }[]>;
  timings: { retrieveMs: number; totalMs: number };
}

// Candidates fused before filters apply, so year/venue filters still leave k results.
const FUSE_POOL = 500;

export async function relatedPapers(db: Db, input: CorpusPaperInput, options: RelatedOptions): Promise<RelatedResult> {
  const t0 = performance.now();
  const g = await loadGraph(db, input.corpus);
  const query = await db.paper.findFirst({
    where: { corpus: { name: input.corpus }, externalId: input.paperId },
    select: { id: true, externalId: true, title: true, role: true, facetItems: { select: { facet: true, text: true }, orderBy: { position: "asc" } } },
  });
  if (!query) throw new NotFoundError(`no paper "${input.paperId}" in corpus "${input.corpus}"`);
  const q = g.indexOfDbId.get(query.id);
  if (q === undefined)
    throw new NotFoundError(`paper "${input.paperId}" is not a node of graph build ${g.build} (${query.role === "query" ? "it is an out-of-corpus query paper" : "it was added after the build"})`);

  // ── retrieve: one ranked list per facet ──
  const t1 = performance.now();
  const lists: Partial<Record<Facet, Int32Array>> = {};
  const scores: Partial<Record<Facet, Float64Array>> = {};
  for (const f of options.facets) {
    const csr = g.graph.facets[f];
    if (!csr) continue;
    const list = walkFacet(csr, q);
    lists[f] = list.papers;
    scores[f] = list.scores;
  }
  const facetLists: FacetLists = listsFromPapers(lists);
  const fused: FusedResult[] =
    options.fusion === "graph-rrf"
      ? graphRrf(facetLists, { query: q, weightOf: csrWeightOf(g.graph), topN: FUSE_POOL })
      : rrf(facetLists, { topN: FUSE_POOL, exclude: q });
  const retrieveMs = performance.now() - t1;

  // ── filters and paper details ──
  const poolIds = [...new Set([...fused.map((r) => r.paper), ...Object.values(lists).flatMap((l) => Array.from(l.subarray(0, options.k)))])].map((i) => g.dbIds[i]);
  const rows = new Map<number, { id: number; externalId: string; title: string; year: number | null; venue: string | null; authors: string; facetItems: { facet: string; text: string }[] }>();
  for (let i = 0; i < poolIds.length; i += 500) {
    for (const r of await db.paper.findMany({
      where: { id: { in: poolIds.slice(i, i + 500) } },
      select: { id: true, externalId: true, title: true, year: true, venue: true, authors: true, facetItems: { select: { facet: true, text: true }, orderBy: { position: "asc" } } },
    }))
      rows.set(r.id, r);
  }
  const rowOf = (node: number) => rows.get(g.dbIds[node]);
  const passes = (node: number) => {
    const r = rowOf(node);
    if (!r) return false;
    if (options.yearFrom !== undefined && (r.year === null || r.year < options.yearFrom)) return false;
    if (options.yearTo !== undefined && (r.year === null || r.year > options.yearTo)) return false;
    if (options.venue !== undefined && r.venue !== options.venue) return false;
    return true;
  };

  const queryItems = (f: Facet) => query.facetItems.filter((i) => i.facet === f).map((i) => i.text);
  const evidence = (f: Facet, node: number): Evidence | null => {
    const theirs = (rowOf(node)?.facetItems ?? []).filter((i) => i.facet === f).map((i) => i.text);
    let best: Evidence | null = null;
    for (const a of queryItems(f))
      for (const b of theirs) {
        const va = g.vectorOf(a);
        const vb = g.vectorOf(b);
        if (!va || !vb) continue;
        const s = dot(va, vb); // unit vectors: the cosine
        if (!best || s > best.similarity) best = { queryItem: a, paperItem: b, similarity: s };
      }
    return best;
  };

  const results: RelatedPaper[] = [];
  for (const r of fused) {
    if (results.length >= options.k) break;
    if (!passes(r.paper)) continue;
    const row = rowOf(r.paper)!;
    results.push({
      externalId: row.externalId,
      title: row.title,
      year: row.year,
      venue: row.venue,
      authors: parseAuthors(row.authors),
      score: r.score,
      facets: r.provenance.map((p) => ({ facet: p.facet, rank: p.rank, weight: p.weight, evidence: evidence(p.facet, r.paper) })),
    });
  }

  const perFacet = Object.fromEntries(FACETS.map((f) => [f, [] as RelatedResult["perFacet"][Facet]])) as RelatedResult["perFacet"];
  for (const f of options.facets) {
    const list = lists[f];
    if (!list) continue;
    for (let i = 0; i < list.length && perFacet[f].length < options.k; i++) {
      if (!passes(list[i])) continue;
      const row = rowOf(list[i])!;
      perFacet[f].push({ externalId: row.externalId, title: row.title, rank: i + 1, score: scores[f]![i] });
    }
  }

  const queryFacets = Object.fromEntries(FACETS.map((f) => [f, queryItems(f)])) as Record<Facet, string[]>;
  return {
    corpus: input.corpus,
    build: g.build,
    retriever: options.retriever,
    fusion: options.fusion,
    query: { externalId: query.externalId, title: query.title, facets: queryFacets },
    results,
    perFacet,
    timings: { retrieveMs, totalMs: performance.now() - t0 },
  };
}
