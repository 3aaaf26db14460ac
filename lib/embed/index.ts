// The public surface of lib/embed: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export { cacheDirFor, CachedRowReader, chunkedProgress, embedWithCache, readVectorCache, readVectorCacheKeys, textKey } from "./cache";
export { addTitleAbstractPairs, citationPairs, DEFAULT_CONTRASTIVE, paperText, parseFold, trainContrastiveEncoder } from "./contrastive";
export { createLsaEmbedder, fitLsa, loadLsaModel, LsaEmbedder, lsaFingerprint, type LsaModel, type ProjectionFormat, saveLsaModel } from "./lsa";
export { createEmbedder, embedderSpecFromEnv, parseEmbedderSpec } from "./registry";
export { dot, type Embedder } from "./types";
