/**
 * The reference side of the attribution measure (paper §"Fusion and Attribution"): "the
 * facets ... the graph attributes to the same connection". The paper's gold is the undirected
 * neighbour set, so the graph attributes facet f to the pair (q, d) when q and d share an edge
 * of facet f in either direction. Out of corpus the query has no node; its ephemeral top-K
 * edges (the edges it would have if inserted, appendix "Ephemeral insertion") are the
 * reference instead.
 *
 * Graph-RRF in-corpus credits f only when the query's own row of facet f holds d, so against
 * this reference its precision is 1 by construction; plain RRF, the LM-score combination and
 * out-of-corpus corroboration RRF are where the measure discriminates.
 */
import { FACETS, type Facet } from "@/lib/corpus";
import type { FacetCsr, PaperGraph } from "@/lib/graph";
import { attributionPairs, attributionPrecision, type AttributionReport } from "./metrics";
import type { FusedResult } from "@/lib/fusion";

/** Incoming rows of one facet (the CSR transposed): who lists p in their row. */
function incoming(csr: FacetCsr): { offsets: Int32Array; sources: Int32Array } {
  const offsets = new Int32Array(csr.numPapers + 1);
  for (let e = 0; e < csr.targets.length; e++) offsets[csr.targets[e] + 1]++;
  for (let p = 0; p < csr.numPapers; p++) offsets[p + 1] += offsets[p];
  const fill = offsets.slice(0, csr.numPapers);
  const sources = new Int32Array(csr.targets.length);
  for (let a = 0; a < csr.numPapers; a++) for (let e = csr.offsets[a]; e < csr.offsets[a + 1]; e++) sources[fill[csr.targets[e]]++] = a;
  return { offsets, sources };
}

/** For a corpus paper q: every paper it shares an edge with (either direction) → those facets. */
export type PairFacets = (query: number) => Map<number, Facet[]>;

export function graphPairFacets(graph: PaperGraph): PairFacets {
  const inc: Partial<Record<Facet, ReturnType<typeof incoming>>> = {};
  for (const f of FACETS) if (graph.facets[f]) inc[f] = incoming(graph.facets[f] as FacetCsr);
  return (q) => {
    const out = new Map<number, Facet[]>();
    const add = (d: number, f: Facet): void => {
      if (d === q) return;
      const fs = out.get(d);
      if (!fs) out.set(d, [f]);
      else if (fs.at(-1) !== f) fs.push(f);
    };
    for (const f of FACETS) {
      const csr = graph.facets[f];
      const t = inc[f];
      if (!csr || !t) continue;
      for (let e = csr.offsets[q]; e < csr.offsets[q + 1]; e++) add(csr.targets[e], f);
      for (let e = t.offsets[q]; e < t.offsets[q + 1]; e++) add(t.sources[e], f);
    }
    return out;
  };
}

/** Reference from per-facet edge lists of one query (e.g. its ephemeral top-K edges). */
export function edgeListPairFacets(edges: Partial<Record<Facet, { targets: ArrayLike<number> }>>): Map<number, Facet[]> {
  const out = new Map<number, Facet[]>();
  for (const f of FACETS) {
    const list = edges[f];
    if (!list) continue;
    for (let i = 0; i < list.targets.length; i++) {
      const d = list.targets[i];
      const fs = out.get(d);
      if (!fs) out.set(d, [f]);
      else if (!fs.includes(f)) fs.push(f);
    }
  }
  return out;
}

/**
 * Attribution of fused results against a reference, over every returned (query, paper) pair
 * within the top `k` (default 50: every pair the fusion returns).
 */
export function attributionOf(
  perQuery: readonly { results: readonly FusedResult[]; reference: ReadonlyMap<number, readonly Facet[]> }[],
  k = 50,
): AttributionReport {
  return attributionPrecision(perQuery.flatMap(({ results, reference }) => attributionPairs(results.slice(0, k), (d) => reference.get(d))));
}
