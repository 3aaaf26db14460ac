import { config } from "@/lib/config";
import { FACETS, type Facet } from "@/lib/corpus";
import type { FacetCsr } from "./csr";

/** The Edge table's columns, in the order of the values of each row edgeRowSlices yields. */
export const EDGE_ROW_COLUMNS = ["buildId", "facet", "sourceId", "targetId", "rank", "weight", "facetScore", "citationScore"] as const;

export type EdgeRow = [
  buildId: number,
  facet: Facet,
  sourceId: number,
  targetId: number,
  rank: number,
  weight: number,
  facetScore: number,
  citationScore: number,
];

/**
 * Whether a graph build of `numPapers` corpus papers stores its Edge rows: not above
 * GRAFT_EDGE_ROWS_MAX_PAPERS, where paper pages read only graph.csr and the rows (≈ 5 M at 64k
 * papers) would cost minutes of the build and hundreds of MiB of store.
 */
export function storesEdgeRows(numPapers: number, maxPapers = config().GRAFT_EDGE_ROWS_MAX_PAPERS): boolean {
  return numPapers <= maxPapers;
}

/** Whether a complete build's manifest (its JSON) says it has Edge rows; builds from before the setting all do. */
export function buildHasEdgeRows(manifest: string): boolean {
  return (JSON.parse(manifest) as { edgeRows?: unknown }).edgeRows !== false;
}

/** How many edge rows the graph's facets hold (the sum of their CSRs' edges). */
export function edgeRowCount(facets: Partial<Record<Facet, FacetCsr>>): number {
  let n = 0;
  for (const f of FACETS) n += facets[f]?.targets.length ?? 0;
  return n;
}

/**
 * A build's edge rows, at most `step` at a time, in facet order (FACETS), then source node, then
 * rank (1-based, the position in the source's CSR row). Each slice is built from the CSR when it
 * is asked for: a 5 M-edge graph held as JS arrays all at once costs ≈ 1 GiB of heap.
 * `paperIds[node]` is the store id of the paper at that node index.
 */
export function* edgeRowSlices(
  buildId: number,
  facets: Partial<Record<Facet, FacetCsr>>,
  paperIds: ArrayLike<number>,
  step: number,
): Generator<EdgeRow[], void, undefined> {
  let slice: EdgeRow[] = [];
  for (const f of FACETS) {
    const csr = facets[f];
    if (!csr) continue;
    for (let s = 0; s < csr.numPapers; s++)
      for (let e = csr.offsets[s], r = 1; e < csr.offsets[s + 1]; e++, r++) {
        slice.push([buildId, f, paperIds[s], paperIds[csr.targets[e]], r, csr.weights[e], csr.facetScores[e], csr.citationScores[e]]);
        if (slice.length >= step) {
          yield slice;
          slice = [];
        }
      }
  }
  if (slice.length > 0) yield slice;
}
