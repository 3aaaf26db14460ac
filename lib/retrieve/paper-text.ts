/**
 * What the lexical-seed retriever reads per graph build, beside the graph itself: a BM25 index
 * over every node's title, abstract and facet items (the whole paper) and the in-corpus
 * references between nodes. Loaded from the store once per build and process (LoadedGraph.memo).
 */
import type { Db } from "@/lib/db";
import { idfFrom, tfidfTokens, tokenize } from "@/lib/text";
import { Bm25Index } from "./bm25-index";
import { TfidfIndex } from "./tfidf-index";
import { referenceIndex, type ReferenceIndex } from "./citation-expansion";
import { itemsOf, type LoadedGraph } from "./graph-store";
import { PackedTextsBuilder, type PackedTexts } from "./packed-texts";
import { FACETS, type Facet } from "@/lib/corpus";

export interface PaperText {
  /** BM25 over title + abstract + facet items, one document per node. */
  index: Bm25Index;
  /** Query tokens: each distinct content word once (a long pasted abstract repeats its topic words). */
  queryTokens(text: string): string[];
  /** Node → abstract ("" for none), packed: 63k abstracts as strings were ≈ 80 MiB of heap. */
  abstracts: PackedTexts;
  references: ReferenceIndex;
}

/** Okapi BM25 with Lucene's idf, k1 1.2: the settings of the tuning runs. */
const BM25 = { k1: 1.2, b: 0.75, idf: "lucene" } as const;
const TOKENS = { stopwords: true, minLength: 2 } as const;
const STEP = 500;

export function paperText(db: Db, g: LoadedGraph): Promise<PaperText> {
  return g.memo("paper-text", () => loadPaperText(db, g));
}

async function loadPaperText(db: Db, g: LoadedGraph): Promise<PaperText> {
  const packing = new PackedTextsBuilder();
  const pairs: [number, number][] = [];
  for (let i = 0; i < g.dbIds.length; i += STEP) {
    const ids = g.dbIds.slice(i, i + STEP);
    const rows = await db.paper.findMany({ where: { id: { in: ids } }, select: { id: true, abstract: true } });
    // Nodes i .. i + STEP − 1, packed in node order.
    const batch = ids.map(() => "");
    for (const r of rows) batch[(g.indexOfDbId.get(r.id) as number) - i] = r.abstract ?? "";
    for (const a of batch) packing.push(a);
    const cites = await db.citation.findMany({ where: { citingId: { in: ids } }, select: { citingId: true, citedId: true } });
    for (const c of cites) {
      const cited = g.indexOfDbId.get(c.citedId);
      if (cited !== undefined) pairs.push([g.indexOfDbId.get(c.citingId) as number, cited]);
    }
  }
  const abstracts = packing.finish();
  // The facet items join title and abstract: they restate the paper in its field's terms
  // (tuning half: R@20 0.519 → 0.525).
  // Tokenised one paper at a time, so the index keeps only postings (at 64k papers the token
  // lists of every paper at once were ≈ 0.5 GB of short strings).
  const docs = {
    length: g.papers.length,
    at: (node: number) => tokenize([g.papers[node].title, abstracts.at(node), ...FACETS.flatMap((f) => itemsOf(g, f, node))].join(" "), TOKENS),
  };
  return {
    index: new Bm25Index(docs, BM25),
    queryTokens: (text) => [...new Set(tokenize(text, TOKENS))],
    abstracts,
    references: referenceIndex(g.dbIds.length, pairs),
  };
}

/**
 * TF-IDF cosine indexes of every node (lib/retrieve/tfidf-index.ts): the whole paper (title +
 * abstract) and each facet's items, one idf over title, abstract and items. What a retrieval
 * restricted to one facet compares: the query's items of that facet with each paper's items of
 * that facet, and the two papers as a whole. Built on first use, once per build and process.
 */
export interface PaperTfidf {
  whole: TfidfIndex;
  facets: Record<Facet, TfidfIndex>;
}

export async function paperTfidf(db: Db, g: LoadedGraph): Promise<PaperTfidf> {
  const text = await paperText(db, g);
  return g.memo("paper-tfidf", () => {
    // Every paper is tokenised on demand, twice (idf, then the indexes), rather than holding the
    // token lists of the whole corpus: at 64k papers that is the cheaper side of the trade.
    const length = g.papers.length;
    const titleAbstract = (node: number) => tfidfTokens(`${g.papers[node].title} ${text.abstracts.at(node)}`);
    const facetItems = (f: Facet, node: number) => tfidfTokens(itemsOf(g, f, node).join(" "));
    const idf = idfFrom({ length, at: (node) => [...titleAbstract(node), ...FACETS.flatMap((f) => facetItems(f, node))] });
    return {
      whole: new TfidfIndex({ length, at: titleAbstract }, idf),
      facets: Object.fromEntries(FACETS.map((f) => [f, new TfidfIndex({ length, at: (node) => facetItems(f, node) }, idf)])) as Record<Facet, TfidfIndex>,
    };
  });
}
