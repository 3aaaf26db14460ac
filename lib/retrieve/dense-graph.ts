/**
 * The dense-graph teacher as a retriever (paper §"The Multi-Facet Paper Graph"): per facet, a
 * two-hop walk over the typed graph. A corpus paper starts from its own node; an unseen paper
 * is inserted ephemerally (its items scored against every corpus item with the build's s_f,
 * top-K first-hop edges weighted α·s; lib/retrieve/ephemeral.ts) and walks from there, paths
 * adding up (UNSEEN_WALK).
 */
import type { Facet } from "@/lib/corpus";
import { ephemeralStarts } from "./ephemeral";
import { walkFacet, type WalkOptions, type WalkStartEdges } from "./walk";
import type { FacetCandidate, FacetCandidateLists, IndexRetrieveContext, Retriever } from "./retriever";
import { maxSimEngine } from "./services";

/**
 * The walk of an unseen paper (chosen on issue 17's tuning half with the mix graph): paths that
 * meet at a paper add up ("sum", all walks of ≤ 2 hops), so a paper that many of the query's
 * seeds lead to through their citation-informed edges ranks high, and the walk's scores are the
 * query's facet weights w_f(q, ·) for graph-RRF. With the first-hop edges alone as w_f(q, ·),
 * graph-RRF would keep only the 20 seeds per facet and drop everything the walk found (unseen-tune,
 * LLM facets, R@20: 0.235 that way, 0.254 with "sum" alone, 0.325 with both). A corpus paper
 * keeps the paper's protocol (max-product walk, graph-RRF over its own row).
 */
export const UNSEEN_WALK: WalkOptions = Object.freeze({ combine: "sum" });

/**
 * An unseen paper's first-hop edges per facet: its items scored against every corpus paper's with
 * the build's s_f (ephemeral insertion), the top K weighted α·s. `options` overrides K, α and the
 * paper never returned (dense-only ranks ctx.pool papers by s_f itself).
 */
export async function unseenStarts(
  ctx: IndexRetrieveContext,
  options: { edgesPerFacet?: number; alpha?: number; exclude?: number } = {},
): Promise<Partial<Record<Facet, WalkStartEdges>>> {
  const { graph: g, query } = ctx;
  const lexical = g.lexical();
  return ephemeralStarts(await maxSimEngine(), g.blocks(), g.graph, query.vectors, {
    facets: ctx.facets,
    alpha: options.alpha ?? g.alpha,
    exclude: options.exclude ?? query.exclude ?? undefined,
    ...(options.edgesPerFacet !== undefined ? { edgesPerFacet: options.edgesPerFacet } : {}),
    // A mix build scores the query's items with the build's lexical model too (the same s_f as its edges).
    ...(g.similarity.kind === "mix" && lexical ? { mix: { lexicalWeight: g.similarity.lexicalWeight, lexical, dense: g.vectors, texts: query.items } } : {}),
  });
}

async function retrieve(ctx: IndexRetrieveContext): Promise<FacetCandidateLists> {
  const { graph: g, query } = ctx;
  let starts: Partial<Record<Facet, number | WalkStartEdges>>;
  if (query.index !== null) {
    const node = query.index;
    starts = Object.fromEntries(ctx.facets.map((f) => [f, node]));
  } else {
    starts = await unseenStarts(ctx);
  }
  const out: FacetCandidateLists = {};
  for (const f of ctx.facets) {
    const csr = g.graph.facets[f];
    const start = starts[f];
    if (!csr || start === undefined) continue;
    const unseen = typeof start !== "number";
    const list = walkFacet(csr, start, { cap: ctx.pool, ...(unseen ? UNSEEN_WALK : {}), ...ctx.walk });
    // The unseen paper's walk scores are its w_f(q, ·): graph-RRF credits what the walk reached.
    if (unseen) ctx.queryEdges[f] = { targets: list.papers, weights: list.scores };
    const candidates: FacetCandidate[] = [];
    for (let i = 0; i < list.papers.length; i++) {
      if (list.papers[i] !== query.exclude) candidates.push({ paper: list.papers[i], score: list.scores[i] });
    }
    out[f] = candidates;
  }
  return out;
}

export const denseGraphRetriever: Retriever<IndexRetrieveContext> = { name: "dense-graph", scoreKind: "score", retrieve };
