/**
 * Dense-only, the paper's baseline of "facet embeddings fused without any graph signal"
 * (§"Experiments > Setup > Baselines"): per facet, the corpus papers ranked by the build's item
 * similarity s_f against the query's items (the score its edges and ephemeral insertion use), no
 * walk and no citation term. It ranks the facets the build has a graph of (every facet with
 * items, in a build and in the harness's graph). The evaluation harness fuses its lists with RRF through the shared
 * retrieve-and-fuse step. It is not registered (no request names it); registering it in
 * ./index.ts and naming it in lib/query/types.ts's RETRIEVER_NAMES would serve it.
 */
import { unseenStarts } from "./dense-graph";
import type { FacetCandidate, FacetCandidateLists, IndexRetrieveContext, Retriever } from "./retriever";

async function retrieve(ctx: IndexRetrieveContext): Promise<FacetCandidateLists> {
  const { query } = ctx;
  // α = 1: the weights are s_f itself. A corpus paper is scored like an unseen one, never returning itself.
  const ranked = await unseenStarts(ctx, { edgesPerFacet: ctx.pool, alpha: 1, exclude: query.index ?? query.exclude ?? undefined });
  const out: FacetCandidateLists = {};
  for (const f of ctx.facets) {
    const r = ranked[f];
    if (r) out[f] = Array.from(r.targets, (paper, i): FacetCandidate => ({ paper, score: r.weights[i] }));
  }
  return out;
}

export const denseOnlyRetriever: Retriever<IndexRetrieveContext> = { name: "dense-only", scoreKind: "score", retrieve };
