// The public surface of lib/query: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export { FACET_LETTERS } from "./format";
export { inLibrary, type Library, libraryIndex, type LibraryIndex, libraryMatch, type LibraryMatch, type PaperIdentity } from "./library";
export { MAX_SEEDS, type MultiSeedPaper, type MultiSeedResult, type SeedInfo } from "./multi-seed";
export { relatedOptions, type RelatedOptions } from "./options";
export { paperDirection, type RelatedInput, relatedPapers } from "./related";
export {
  type AppliedFusion,
  type CreditedFacet,
  DEFAULT_FUSION,
  DEFAULT_K,
  DEFAULT_RETRIEVER,
  type Direction,
  DIRECTION_FILTERS,
  type DirectionFilter,
  FUSION_NAMES,
  type FusionName,
  MAX_K,
  type QueryErrorCode,
  type QueryPaper,
  type QuerySource,
  type QueryStep,
  type RelatedOptionsShape,
  type RelatedPaper,
  type RelatedResult,
  type RelatedStreamLine,
  RETRIEVER_INFO,
  RETRIEVER_NAMES,
  type RetrieverName,
} from "./types";
