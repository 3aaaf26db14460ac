/**
 * Target coverage against the pruning level K (appendix "Top-K Pruning and Coverage"): the share
 * of papers with at least one incoming edge in some facet when each paper keeps its top-K
 * neighbours per facet (the paper reports 52.9% / 84.0% / 98.5% at K = 10 / 20 / 50). A paper
 * without an incoming edge is never a training target, which is what the coverage floor and
 * the reverse-neighbour fallback repair.
 */
import { FACETS, type Facet } from "@/lib/corpus";

/** Per-paper ranked neighbour lists (a FacetCsr or the candidates from topk.ts both fit). */
export interface RankedRows {
  readonly numPapers: number;
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
}

export interface FacetCoverage {
  /** Papers with at least one incoming edge in this facet. */
  covered: number;
  share: number;
  /** Directed edges kept at this K: Σ_p min(K, degree_p). */
  edges: number;
}

export interface CoverageAtK {
  k: number;
  /** Papers with an incoming edge in some facet. */
  covered: number;
  share: number;
  edges: number;
  perFacet: Partial<Record<Facet, FacetCoverage>>;
}

/**
 * Coverage at each K, reading the first K entries of every row. `builtK` is the pruning level
 * the rows were built with: asking for a larger K would silently understate coverage, so it
 * throws instead.
 */
export function coverage(facets: Partial<Record<Facet, RankedRows>>, ks: readonly number[] = [10, 20, 50], builtK?: number): CoverageAtK[] {
  const present = FACETS.filter((f) => facets[f] !== undefined);
  if (present.length === 0) throw new Error("coverage: no facets given");
  const numPapers = (facets[present[0]] as RankedRows).numPapers;
  for (const f of present) {
    if ((facets[f] as RankedRows).numPapers !== numPapers) throw new Error("coverage: facets differ in paper count");
  }
  const out: CoverageAtK[] = [];
  for (const k of ks) {
    if (builtK !== undefined && k > builtK) throw new Error(`coverage: K = ${k} exceeds the K = ${builtK} the rows were built with`);
    const any = new Uint8Array(numPapers);
    const perFacet: Partial<Record<Facet, FacetCoverage>> = {};
    let edges = 0;
    for (const f of present) {
      const rows = facets[f] as RankedRows;
      const hit = new Uint8Array(numPapers);
      let facetEdges = 0;
      for (let p = 0; p < numPapers; p++) {
        const end = Math.min(rows.offsets[p] + k, rows.offsets[p + 1]);
        for (let e = rows.offsets[p]; e < end; e++) hit[rows.targets[e]] = 1;
        facetEdges += end - rows.offsets[p];
      }
      let covered = 0;
      for (let p = 0; p < numPapers; p++) {
        covered += hit[p];
        any[p] |= hit[p];
      }
      perFacet[f] = { covered, share: numPapers ? covered / numPapers : 0, edges: facetEdges };
      edges += facetEdges;
    }
    let covered = 0;
    for (let p = 0; p < numPapers; p++) covered += any[p];
    out.push({ k, covered, share: numPapers ? covered / numPapers : 0, edges, perFacet });
  }
  return out;
}
