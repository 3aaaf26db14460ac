/**
 * BM25 as a retriever (the paper's lexical baseline, "BM25 over title and facets"): one Okapi
 * BM25 index per graph build whose documents are each paper's title and facet items; per
 * facet, the query is that facet's items, so each list says which of the query's facets the
 * words matched.
 *
 * The paper's table row is one ranking for the whole query paper (`bm25WholePaper`): the query
 * is its title and every facet item (`titleAndFacets`, the text the documents are made of)
 * against the same index and tokenizer. Both read only the narrow index (./retrieval-index.ts),
 * so the evaluation harness runs them on its files-based corpus: the row measures served code.
 */
import { FACETS, type Facet } from "@/lib/corpus/types";
import { Bm25Index } from "./bm25-index";
import { itemsOf, type RetrievalIndex } from "./retrieval-index";
import type { FacetCandidate, FacetCandidateLists, IndexRetrieveContext, Retriever } from "./retriever";

/** Function words carry no topic; dropping them keeps long facet-item queries focused. */
const TOKENIZE = { stopwords: true } as const;

/** A paper's text for BM25, as a document and as a whole-paper query: its title and every facet item. */
export function titleAndFacets(title: string, items: Partial<Record<Facet, readonly string[]>>): string {
  return [title, ...FACETS.flatMap((f) => items[f] ?? [])].join(" ");
}

export interface Bm25Search {
  index: Bm25Index;
  tokenize: (text: string) => string[];
}

/** The BM25 index over papers' texts (see titleAndFacets), with the tokenizer its queries use. */
export function bm25Index(documents: readonly string[]): Bm25Search {
  return Bm25Index.fromTexts(documents, TOKENIZE);
}

function indexOf(g: RetrievalIndex): Bm25Search {
  return g.memo("bm25", () => bm25Index(g.papers.map((p, node) => titleAndFacets(p.title, Object.fromEntries(FACETS.map((f) => [f, itemsOf(g, f, node)]))))));
}

/** The first `n` papers for a query text, best first, none of `skip`. */
export function bm25Ranking(search: Bm25Search, text: string, n: number, skip: ReadonlySet<number>): FacetCandidate[] {
  return search.index
    .search(search.tokenize(text), n + skip.size)
    .filter((h) => !skip.has(h.doc))
    .slice(0, n)
    .map((h) => ({ paper: h.doc, score: h.score }));
}

function skipOf(ctx: IndexRetrieveContext): Set<number> {
  return new Set([ctx.query.index, ctx.query.exclude].filter((x): x is number => x !== null));
}

async function retrieve(ctx: IndexRetrieveContext): Promise<FacetCandidateLists> {
  const search = indexOf(ctx.graph);
  const skip = skipOf(ctx);
  const out: FacetCandidateLists = {};
  for (const f of ctx.facets) {
    const items = ctx.query.items[f];
    if (items.length > 0) out[f] = bm25Ranking(search, items.join(" "), ctx.pool, skip);
  }
  return out;
}

/** The paper's "BM25 over title and facets": one ranking whose query is the paper's title and every facet item. */
export function bm25WholePaper(ctx: IndexRetrieveContext): FacetCandidate[] {
  return bm25Ranking(indexOf(ctx.graph), titleAndFacets(ctx.query.title, ctx.query.items), ctx.pool, skipOf(ctx));
}

// It reads words only: a pasted paper's items need no embedding (the evidence pairs them with the text encoder).
export const bm25Retriever: Retriever<IndexRetrieveContext> = { name: "bm25", scoreKind: "score", readsItemVectors: false, retrieve };
