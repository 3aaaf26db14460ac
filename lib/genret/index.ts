// The public surface of lib/genret: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export { constrainedBeamSearch, type DecodeRequest, type DecoderSession, expandToPapers } from "./beam-search";
export { distill, DISTILL_VARIANTS, type DistillationExamples, distillationStatistics, type DistillOptions, trainMask } from "./distill";
export { buildDocIdIndex, DOCID_MAX_TOKENS, type DocIdIndex, docIdTokens, type FacetDocIds, normalizeFacetItem, postingCounts } from "./docid";
export {
  DECODER_FILES,
  type DecoderFiles,
  generativeFacetLists,
  type GenerativeQuery,
  type GenretModel,
  loadDecoderFiles,
  loadGenretModel,
  missingFiles,
  missingModelFiles,
  OPTIONAL_DECODER_FILES,
} from "./model";
export { isTokenModel } from "./onnx-session";
export { EXPORT_CHECK_FILE, exportCheckDifference } from "./export-check";
export { ITEM_MAX_TOKENS, itemTokenIds } from "./item-tokens";
export { decisionMaskByRow, PACK_VERSION, type PackHeader, packQueries, writePackFiles, writeTrainingPack } from "./pack";
export { buildIdentifiers, type GenretCorpus, identifierFiles, type Identifiers, identifiersFromIndex, readIdentifierFiles, trainingExamples } from "./prepare";
export { buildTrie, loadTrie, PrefixTrie, readTrieFile, serializeTrie, trieStatistics, type TrieStatistics } from "./trie";
export { buildCompactVocabFromTokens, compactIndex, type CompactVocab, EOS, PAD, vocabFileJson } from "./vocab";
