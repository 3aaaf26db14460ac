// The public surface of lib/text: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export {
  analyzer,
  bm25Idf,
  contentTokens,
  ENGLISH_STOPWORDS,
  extractorTokens,
  type Idf,
  idfFrom,
  lexicalTerms,
  lsaTerms,
  luceneIdf,
  OVERLAP_STOPWORDS,
  smoothIdf,
  sublinearTf,
  termCounts,
  tfidfTokens,
  tfidfVector,
  type TokenDocs,
  tokenize,
  type TokenizeOptions,
} from "./analyzer";
export { porterStem } from "./porter";
export { decodeTokens, encodeDocIdTokens, getLlama3Tokenizer } from "./tokenizer";
