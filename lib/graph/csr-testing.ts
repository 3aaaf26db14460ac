import type { Facet } from "@/lib/corpus/types";
import type { FacetCsr, PaperGraph } from "./csr";

// Hand-made facet graphs for unit tests. Apart from testing.ts so that tests of pure code do
// not load the store (Prisma) with it.

/** An edge in a paper's row: [target, weight]. */
export type RowEdge = [target: number, weight: number];
/** An edge in a list: [source, target, weight]. */
export type ListEdge = [source: number, target: number, weight: number];

/** How an edge's facet and citation scores follow from its weight. */
export interface EdgeScores {
  facet(w: number): number;
  citation(w: number): number;
}

/** s = w, c = 0: the scores of a graph without citations. */
export const FACET_ONLY: EdgeScores = { facet: (w) => w, citation: () => 0 };
/** s = .9w, c = .1w: three distinct arrays, for tests that tell them apart. */
export const SPLIT_SCORES: EdgeScores = { facet: (w) => w * 0.9, citation: (w) => w * 0.1 };

/** A CSR from each paper's row of edges, taken in the given order (the build ranks rows by weight). */
export function csrOf(rows: RowEdge[][], scores: EdgeScores = FACET_ONLY): FacetCsr {
  const offsets = new Int32Array(rows.length + 1);
  rows.forEach((r, p) => (offsets[p + 1] = offsets[p] + r.length));
  const flat = rows.flat();
  return {
    numPapers: rows.length,
    offsets,
    targets: Int32Array.from(flat, ([t]) => t),
    weights: Float32Array.from(flat, ([, w]) => w),
    facetScores: Float32Array.from(flat, ([, w]) => scores.facet(w)),
    citationScores: Float32Array.from(flat, ([, w]) => scores.citation(w)),
  };
}

/** A CSR from an edge list, rows ranked by weight as the graph build stores them. */
export function csrOfEdges(numPapers: number, edges: ListEdge[]): FacetCsr {
  const rows: ListEdge[][] = Array.from({ length: numPapers }, () => []);
  for (const e of edges) rows[e[0]].push(e);
  return csrOf(rows.map((r) => r.sort((a, b) => b[2] - a[2]).map(([, t, w]): RowEdge => [t, w])));
}

/** A graph from each facet's edge list. */
export function graphOfEdges(numPapers: number, facets: Partial<Record<Facet, ListEdge[]>>, k = 20): PaperGraph {
  return {
    numPapers,
    k,
    facets: Object.fromEntries(Object.entries(facets).map(([f, e]) => [f, csrOfEdges(numPapers, e)])),
  };
}
