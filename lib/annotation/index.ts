// The public surface of lib/annotation: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export { csvResponse, idSegment, readJson } from "./api";
export { type EvidenceSnippet, highlightSegments, locateEvidence } from "./evidence";
export { ratingsCsv, statisticsCsv, studyReport, type StudyReport } from "./report";
export { getSheet, getSheetItem, myStudies, ratingInput, saveRating, SCALE_LABELS, type Sheet, type SheetItem } from "./sheet";
export { createStudy, ITEMS_PER_PAPER, listStudies, setStudyStatus, splitSizes, STUDY_STATUSES, studyOptions } from "./study";
