/**
 * BM25 as a retriever (the paper's lexical baseline, "BM25 over title and facets"): one Okapi
 * BM25 index per graph build whose documents are each paper's title and facet items; per
 * facet, the query is that facet's items, so each list says which of the query's facets the
 * words matched.
 */
import { FACETS } from "@/lib/corpus";
import { Bm25Index } from "./bm25-index";
import type { LoadedGraph } from "./graph-store";
import { itemsOf } from "./graph-store";
import type { FacetCandidateLists, Retriever, RetrieveContext } from "./retriever";

/** Function words carry no topic; dropping them keeps long facet-item queries focused. */
const TOKENIZE = { stopwords: true } as const;

function indexOf(g: LoadedGraph): { index: Bm25Index; tokenize: (text: string) => string[] } {
  return g.memo("bm25", () =>
    Bm25Index.fromTexts(
      g.papers.map((p, node) => [p.title, ...FACETS.flatMap((f) => itemsOf(g, f, node))].join(" ")),
      TOKENIZE,
    ),
  );
}

async function retrieve(ctx: RetrieveContext): Promise<FacetCandidateLists> {
  const { index, tokenize } = indexOf(ctx.graph);
  const skip = new Set([ctx.query.index, ctx.query.exclude].filter((x): x is number => x !== null));
  const out: FacetCandidateLists = {};
  for (const f of ctx.facets) {
    const items = ctx.query.items[f];
    if (items.length === 0) continue;
    const hits = index.search(tokenize(items.join(" ")), ctx.pool + skip.size);
    out[f] = hits
      .filter((h) => !skip.has(h.doc))
      .slice(0, ctx.pool)
      .map((h) => ({ paper: h.doc, score: h.score }));
  }
  return out;
}

// It reads words only: a pasted paper's items need no embedding (the evidence pairs them with the text encoder).
export const bm25Retriever: Retriever = { name: "bm25", scoreKind: "score", readsItemVectors: false, retrieve };
