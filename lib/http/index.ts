// The public surface of lib/http: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export { queryGate } from "./admission";
export { ApiError, fetchJson, isRetryable } from "./client";
export { codedResponse, errorAnswer, errorResponse, handleRoute, json, knownErrorBody, parseSearchParams, parseWith, searchParamsObject } from "./respond";
export { resolveSegment, segmentCandidates } from "./segments";
export { STATUS_OF_CODE } from "./status";
export type { ApiErrorBody, ApiErrorCode } from "./types";
