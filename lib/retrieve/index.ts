// The built-in retrievers, registered once when the query pipeline is first imported. A new
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
