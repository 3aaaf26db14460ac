// The public surface of lib/corpus: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export {
  corpusName,
  corpusOverview,
  type CorpusOverview,
  DEFAULT_CORPUS,
  getPaperDetail,
  listCorpora,
  listPapers,
  NotFoundError,
  type PaperDetail,
  type PaperList,
  paperListQuery,
  type PaperSummary,
  parseAuthors,
  requireCorpus,
} from "./browse";
export { FORMAT_LABELS, FORMAT_NAMES, IMPORT_FORMATS, type ImportFormat, sniffLine } from "./formats/detect";
export { CorpusFormatError, formatIssue } from "./issues";
export { parsePaperRecord } from "./paper-schema";
export { type CitationRecord, type Facet, type FacetLists, FACETS, type InputIssue, type PaperRecord, type Split } from "./types";
