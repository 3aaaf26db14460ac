// The public surface of lib/facets: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export { FLAG_LABELS, type ItemFlag, STRUCTURAL_FLAGS } from "./audit/checks";
export { type Mark, segmentText } from "./audit/highlight";
export { type AuditedItem, loadPaperAudit, type PaperAuditView } from "./audit/read";
export type { FacetExtractor } from "./extractor";
export { LlmConfigError, loadLlmConfig } from "./llm/config";
export { createLlmExtractor } from "./llm/extract";
export { createOfflineExtractor } from "./offline/extractor";
