// The public surface of lib/graph: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export { annIndexFileName, type AnnParams, FacetAnnIndex } from "./ann";
export { citationRows } from "./citation-score";
export { coverage } from "./coverage";
export { edgeWeightOf, type FacetCsr, neighboursOf, type PaperGraph, readPaperGraph, writePaperGraph } from "./csr";
export { DEFAULT_EDGE_WEIGHT } from "./edge-weight";
export { lexicalFacetIndex, type LexicalFacetIndex, lexicalVector, parseLexicalModel } from "./lexical";
export { type FacetBlocks, MaxSimEngine, prepareFacetBlocks } from "./maxsim-engine";
export { itemsOfPaper, numPapersOf, type PackedFacetItems, packFacetItems, rescaleCosine } from "./maxsim";
export { DEFAULT_ITEM_SIMILARITY, type ItemSimilarity, itemSimilaritySpec, parseItemSimilarity, similarityOfParams } from "./similarity";
export { buildPaperGraph, ephemeralEdges, mixedQueryTopK, queryFacetTopK } from "./topk";
