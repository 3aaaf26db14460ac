/**
 * Ephemeral insertion of an unseen paper (paper appendix "Out-of-Corpus Evaluation"): "its
 * facet items are encoded and scored against every item in the corpus with the same
 * maximum-similarity function ... pruned to the top 20 per facet, and the same two-hop walk is
 * performed". Nothing is added to the graph: the query's first-hop edges exist only for the
 * walk. The one implementation, used by the query pipeline and the out-of-corpus evaluation.
 *
 * First-hop weights are α·s: the query has no citations into the corpus we can trust at query
 * time (c = 0), as for unlinked pairs inside the corpus.
 */
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { PaperGraph } from "@/lib/graph/csr";
import { DEFAULT_EDGE_WEIGHT } from "@/lib/graph/edge-weight";
import { ephemeralEdges, type FacetBlocks, type MaxSimEngine } from "@/lib/graph/topk";
import { denseGraphRetrieve, type DenseGraphOptions, type DenseGraphResult, type WalkStartEdges } from "./walk";

/** One onnxruntime block layout per facet of the corpus items (see prepareFacetBlocks). */
export type FacetBlockIndex = Partial<Record<Facet, FacetBlocks>>;

export interface EphemeralOptions extends DenseGraphOptions {
  /** First-hop edges per facet; default the graph's K (20). */
  edgesPerFacet?: number;
  /** α of the first-hop weights α·s; default the graph's 0.75. */
  alpha?: number;
  /** Corpus paper never returned (only relevant if the query also is a corpus paper). */
  exclude?: number;
  /** Facets to walk; default every facet with items and a graph. */
  facets?: readonly Facet[];
}

/** Per-facet first-hop edges of an unseen query: its top-K corpus papers by s_f, weighted α·s. */
export async function ephemeralStarts(
  engine: MaxSimEngine,
  index: FacetBlockIndex,
  graph: PaperGraph,
  queryItems: Partial<Record<Facet, readonly Float32Array[]>>,
  options: EphemeralOptions = {},
): Promise<Partial<Record<Facet, WalkStartEdges>>> {
  const starts: Partial<Record<Facet, WalkStartEdges>> = {};
  for (const f of options.facets ?? FACETS) {
    const blocks = index[f];
    const items = queryItems[f];
    if (!blocks || !graph.facets[f] || !items || items.length === 0) continue;
    starts[f] = await ephemeralEdges(engine, blocks, items, {
      k: options.edgesPerFacet ?? graph.k,
      alpha: options.alpha ?? DEFAULT_EDGE_WEIGHT.alpha,
      exclude: options.exclude,
    });
  }
  return starts;
}

/** Dense-graph retrieval for an unseen paper: ephemeral first-hop edges, then the usual walk. */
export async function denseGraphEphemeral(
  engine: MaxSimEngine,
  index: FacetBlockIndex,
  graph: PaperGraph,
  queryItems: Partial<Record<Facet, readonly Float32Array[]>>,
  options: EphemeralOptions = {},
): Promise<DenseGraphResult> {
  return denseGraphRetrieve(graph, await ephemeralStarts(engine, index, graph, queryItems, options), options);
}
