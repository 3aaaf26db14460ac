/**
 * Lists computed before the retrieval (a generative provider's decoded lists, the evaluation's
 * dense item lists) presented as a Retriever, so that they rank through the shared
 * retrieve-and-fuse step (./retrieve-and-fuse.ts) like a served retriever's lists, rather than
 * through a fusion of their own. One object per query: the lists are that query's.
 */
import type { Facet } from "@/lib/corpus/types";
import type { FacetLists } from "@/lib/fusion";
import type { FacetCandidate, FacetCandidateLists, IndexRetrieveContext, QueryEdges, Retriever } from "./retriever";

export interface PrecomputedLists {
  name: string;
  /** What the candidates' scores are (lm-score fusion sums exp(score) for "log-prob", score for "prob"). */
  scoreKind: Retriever["scoreKind"];
  lists: FacetLists;
  /** An unseen query's first-hop edges w_f(q, d), which graph-RRF then reads (as the dense-graph walk records them). */
  queryEdges?: Partial<Record<Facet, QueryEdges>>;
}

export function precomputedRetriever({ name, scoreKind, lists, queryEdges }: PrecomputedLists): Retriever<IndexRetrieveContext> {
  return {
    name,
    scoreKind,
    readsItemVectors: false,
    async retrieve(ctx) {
      if (queryEdges) Object.assign(ctx.queryEdges, queryEdges);
      const out: FacetCandidateLists = {};
      for (const [f, l] of Object.entries(lists) as [Facet, FacetLists[Facet]][]) {
        // A candidate without a model score stays without one (NaN): lm-score fusion refuses it, rank-based rules ignore scores.
        if (l)
          out[f] = l.map((c): FacetCandidate => ({
            paper: c.paper,
            score: c.score ?? Number.NaN,
            ...(c.queryItem !== undefined ? { queryItem: c.queryItem } : {}),
          }));
      }
      return out;
    },
  };
}
