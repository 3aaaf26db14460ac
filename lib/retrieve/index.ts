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
