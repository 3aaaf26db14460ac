// The public surface of lib/eval: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export {
  CSFCUBE_HEADING,
  CSFCUBE_INTRO,
  csfcubeColumns,
  csfcubeLines,
  type CsfcubeRow,
  type CsfcubeState,
  FACETS_LABEL,
  readCsfcubeReport,
} from "./csfcube-report";
export { loadGenerativeProvider } from "./generative";
export { readLatestCsfcube, readLatestReport } from "./latest";
export { bootstrapCi, type ConfidenceInterval } from "./metrics";
export type { Cutoff } from "./paper-figures";
export {
  type EvalReport,
  formatChange,
  formatDelta,
  formatLatency,
  formatRatio,
  type Part,
  PARTS,
  type RecallRow,
  renderLatest,
  type Suite,
  SUITES,
  type TableName,
  tableNote,
  TABLES,
  USER_PAPER_SOURCE_LABELS,
  USER_PAPER_SOURCES,
  USER_PAPERS_HEADING,
  USER_PAPERS_INTRO,
  type UserPaperRow,
  type UserPapersSection,
  type UserPaperTable,
  userPaperTableNote,
  writeReport,
} from "./report";
export { coverageLadderSvg, recallCurvesSvg } from "./svg";
