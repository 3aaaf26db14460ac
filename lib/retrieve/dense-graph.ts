/**
 * The dense-graph teacher as a retriever (paper §"The Multi-Facet Paper Graph"): per facet, a
 * two-hop walk over the typed graph. A corpus paper starts from its own node; an unseen paper
 * is inserted ephemerally (its items scored against every corpus item with the build's s_f,
 * top-K first-hop edges weighted α·s; lib/retrieve/ephemeral.ts) and walks from there.
 */
import type { Facet } from "@/lib/corpus/types";
import { ephemeralStarts } from "./ephemeral";
import { walkFacet, type WalkStartEdges } from "./walk";
import type { FacetCandidate, FacetCandidateLists, Retriever, RetrieveContext } from "./retriever";
import { maxSimEngine } from "./services";

async function retrieve(ctx: RetrieveContext): Promise<FacetCandidateLists> {
  const { graph: g, query } = ctx;
  let starts: Partial<Record<Facet, number | WalkStartEdges>>;
  if (query.index !== null) {
    const node = query.index;
    starts = Object.fromEntries(ctx.facets.map((f) => [f, node]));
  } else {
    const lexical = g.lexical();
    starts = await ephemeralStarts(await maxSimEngine(), g.blocks(), g.graph, query.vectors, {
      facets: ctx.facets,
      alpha: g.alpha,
      exclude: query.exclude ?? undefined,
      // A mix build scores the query's items with the build's lexical model too (the same s_f as its edges).
      ...(g.similarity.kind === "mix" && lexical ? { mix: { lexicalWeight: g.similarity.lexicalWeight, lexical, dense: g.vectors, texts: query.items } } : {}),
    });
    // The ephemeral row is the query's w_f(q, ·): graph-RRF can use it as for a corpus node.
    for (const f of ctx.facets) {
      const s = starts[f];
      if (s !== undefined && typeof s !== "number") ctx.queryEdges[f] = s;
    }
  }
  const out: FacetCandidateLists = {};
  for (const f of ctx.facets) {
    const csr = g.graph.facets[f];
    const start = starts[f];
    if (!csr || start === undefined) continue;
    const list = walkFacet(csr, start, { cap: ctx.pool });
    const candidates: FacetCandidate[] = [];
    for (let i = 0; i < list.papers.length; i++) {
      if (list.papers[i] !== query.exclude) candidates.push({ paper: list.papers[i], score: list.scores[i] });
    }
    out[f] = candidates;
  }
  return out;
}

export const denseGraphRetriever: Retriever = { name: "dense-graph", scoreKind: "score", retrieve };
