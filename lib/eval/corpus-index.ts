/**
 * The evaluation corpus (read from its files, lib/graph/corpus-data.ts) as a RetrievalIndex
 * (lib/retrieve/retrieval-index.ts), the narrow index a served build also satisfies: the paper's
 * tables then run the registered retrievers and the shared retrieve-and-fuse step
 * (lib/retrieve/retrieve-and-fuse.ts) on it, rather than copies of them.
 *
 * The harness builds its own top-20 typed graph (cosine s_f, the paper's α), so the index has no
 * lexical model; its block layout is the harness's, shared with the dense-only baseline.
 */
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { CorpusData, PaperText } from "@/lib/graph/corpus-data";
import type { PaperGraph } from "@/lib/graph";
import { itemsOfPaper } from "@/lib/graph";
import { COSINE } from "@/lib/graph/similarity";
import type { FacetBlockIndex } from "@/lib/retrieve";
import { PackedTexts } from "@/lib/retrieve";
import { memoMap, type FacetItemTexts, type RetrievalIndex } from "@/lib/retrieve";
import type { IndexRetrieveContext } from "@/lib/retrieve";

/** Candidates per facet list: relatedPapers' pool, which is also the walk's cap in the paper. */
export const CORPUS_POOL = 500;

export function corpusIndex(
  data: Pick<CorpusData, "ids" | "years" | "texts" | "items">,
  graph: PaperGraph,
  blocks: FacetBlockIndex,
  alpha: number,
): RetrievalIndex {
  // The item texts are the papers' facet items in order: data.items packs their vectors the same way.
  const items = Object.fromEntries(
    FACETS.map((f): [Facet, FacetItemTexts] => [f, { offsets: data.items[f].offsets, texts: PackedTexts.from(data.texts.flatMap((t) => t.facets[f])) }]),
  ) as Record<Facet, FacetItemTexts>;
  return {
    graph,
    papers: data.ids.map((externalId, p) => ({ externalId, title: data.texts[p].title, year: data.years[p] })),
    items,
    vectors: data.items,
    itemVectors: (f, p) => itemsOfPaper(data.items[f], p),
    alpha,
    similarity: COSINE,
    lexical: () => null,
    blocks: () => blocks,
    memo: memoMap(),
  };
}

export interface CorpusQuery {
  /** The query's node when it is a corpus paper, else null. */
  index: number | null;
  /** A node never to return (an out-of-corpus query that is also a corpus paper), else null. */
  exclude: number | null;
  text: PaperText;
  /** Its item vectors per facet (the corpus's own for a corpus paper). */
  vectors: Partial<Record<Facet, readonly Float32Array[]>>;
}

/** The retrieve context of one query over an index: every facet it has items in, relatedPapers' pool. */
export function corpusRetrieveContext(index: RetrievalIndex, query: CorpusQuery, pool = CORPUS_POOL): IndexRetrieveContext {
  const { text } = query;
  return {
    graph: index,
    query: {
      index: query.index,
      exclude: query.exclude,
      title: text.title,
      abstract: text.abstract,
      items: text.facets,
      vectors: Object.fromEntries(FACETS.map((f) => [f, [...(query.vectors[f] ?? [])]])) as Record<Facet, Float32Array[]>,
    },
    facets: FACETS.filter((f) => text.facets[f].length > 0),
    pool,
    queryEdges: {},
  };
}
