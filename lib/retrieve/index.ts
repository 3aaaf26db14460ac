// The public surface of lib/retrieve (what other folders use; rule layers/public-surface in
// lint/layers.mjs), and the built-in retrievers, registered once when it is first imported. A new
// retriever registers itself in its own module (see ./retriever.ts); import that module here.
import { graftRetriever } from "./graft";
import { registerRetriever } from "./retriever";
import { bm25Retriever } from "./bm25";
import { denseGraphRetriever } from "./dense-graph";
import { hybridRetriever } from "./hybrid";

registerRetriever(denseGraphRetriever);
registerRetriever(bm25Retriever);
registerRetriever(graftRetriever);
registerRetriever(hybridRetriever());

export { Bm25Index } from "./bm25-index";
export { referenceIndex, type ReferenceIndex } from "./citation-expansion";
export { denseGraphEphemeral } from "./ephemeral";
export { clearGraphCache, itemsOf, type LoadedGraph, loadGraph, NoGraphBuildError, vectorsOf } from "./graph-store";
export { HYBRID, hybridRetriever } from "./hybrid";
export { paperText } from "./paper-text";
export {
  type FacetCandidate,
  type FacetCandidateLists,
  getRetriever,
  type QueryEdges,
  registeredRetrievers,
  registerRetriever,
  RetrievalError,
  type RetrieveContext,
  type Retriever,
  unregisterRetriever,
} from "./retriever";
export { itemEmbedder, once } from "./services";
export { textEncoder } from "./text-encoder";
export { type DenseGraphOptions, denseGraphRetrieve, rrf } from "./walk";
export { bm25WholePaper } from "./bm25";
export { denseOnlyRetriever } from "./dense-only";
export { maxSimEngine } from "./services";
export { retrieveAndFuse } from "./retrieve-and-fuse";
export { PackedTexts } from "./packed-texts";
export type { IndexRetrieveContext } from "./retriever";
export type { EphemeralOptions, FacetBlockIndex } from "./ephemeral";
export { memoMap, type FacetItemTexts, type RetrievalIndex } from "./retrieval-index";
export { precomputedRetriever, type PrecomputedLists } from "./precomputed";
export type { FusionRule, FusionSettings } from "./retrieve-and-fuse";
export { bm25Retriever, denseGraphRetriever };
