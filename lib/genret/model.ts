/**
 * A trained generative retriever, as a directory: decoder.onnx (the step graph; a `tokens`
 * model also prefill.onnx, see onnx-session.ts), train.json (its architecture), vocab.json and trie-<facet>.bin (identifiers), papers.json (node index →
 * external id) and genret.json (embedder, variant, graph build). `generativeFacetLists`
 * turns a query's facet items into the per-facet candidate lists that fusion consumes
 * (lib/fusion FacetLists): each item decoded separately with its own beams, a facet's list
 * the concatenation of its items' lists in item order.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { PAPER_DEFAULTS } from "@/lib/config";
import { FACETS, type Facet } from "@/lib/corpus";
import type { Candidate, FacetLists } from "@/lib/fusion";
import { constrainedBeamSearch, expandToPapers, type DecodeRequest } from "./beam-search";
import { itemTokenIds } from "./item-tokens";
import { isTokenModel, OnnxDecoder, PREFILL_FILE, type DecoderConfig } from "./onnx-session";
import { readIdentifierFiles, type LoadedIdentifiers } from "./prepare";
import { compactIndex, readVocabFile, type CompactVocab } from "./vocab";

export interface GenretManifest {
  embedder: string;
  variant: string;
  [key: string]: unknown;
}

export interface GenretModel {
  dir: string;
  manifest: GenretManifest;
  config: DecoderConfig;
  identifiers: LoadedIdentifiers;
  paperIds: string[];
  decoder: OnnxDecoder;
}

/** The files of any model directory that are the decoder's, whatever its identifiers (tries). */
export const DECODER_FILES = ["decoder.onnx", "output.f32", "config.json", "vocab.json", "papers.json", "genret.json"];

export const MODEL_FILES = [...DECODER_FILES, ...FACETS.map((f) => `trie-${f}.bin`)];

/** Files a model directory has only for some decoders (a `tokens` model's prefill graph and its export check), copied along when present. */
export const OPTIONAL_DECODER_FILES = [PREFILL_FILE, "export-check.json"];

/** The names of `files` that `dir` lacks. */
export function missingFiles(dir: string, files: readonly string[]): string[] {
  return files.filter((f) => !existsSync(path.join(dir, f)));
}

export function missingModelFiles(dir: string): string[] {
  return missingFiles(dir, MODEL_FILES);
}

/** A loaded decoder with the files beside it that say what it decodes to. */
export interface DecoderFiles {
  manifest: GenretManifest;
  /** config.json's `config`, as written (a trainer may add fields, e.g. `facets`: the slot count). */
  config: DecoderConfig & { facets?: number };
  vocab: CompactVocab;
  /** Longest identifier in tokens (vocab.json). */
  maxTokens: number;
  /** papers.json: node index -> external id. */
  paperIds: string[];
  decoder: OnnxDecoder;
}

export interface DecoderLoadOptions {
  threads?: number;
  /** Another decoder.onnx than the directory's (output.f32 is read beside it). */
  decoder?: string;
  /** The caller's own checks of the architecture, run before the ONNX graph is loaded. */
  checkConfig?: (config: DecoderFiles["config"]) => void;
}

/**
 * The decoder part of a model directory (DECODER_FILES; the caller checks they exist and reads
 * its own tries). Throws when the decoder's output size is not vocab.json's.
 */
export async function loadDecoderFiles(dir: string, options: DecoderLoadOptions = {}): Promise<DecoderFiles> {
  const read = (name: string): unknown => JSON.parse(readFileSync(path.join(dir, name), "utf8"));
  const { config } = read("config.json") as { config: DecoderFiles["config"] };
  const { vocab, maxTokens } = readVocabFile(path.join(dir, "vocab.json"));
  if (config.vocab !== vocab.size) throw new Error(`${dir}: the decoder has ${config.vocab} output tokens, vocab.json ${vocab.size}`);
  options.checkConfig?.(config);
  if (isTokenModel(config) && !existsSync(path.join(path.dirname(options.decoder ?? path.join(dir, "decoder.onnx")), PREFILL_FILE)))
    throw new Error(`${dir}: the decoder reads item tokens (config.json condition "tokens") but ${PREFILL_FILE} is missing`);
  const manifest = read("genret.json") as GenretManifest;
  const paperIds = (read("papers.json") as { externalIds: string[] }).externalIds;
  const decoder = await OnnxDecoder.load(options.decoder ?? path.join(dir, "decoder.onnx"), config, { threads: options.threads });
  return { manifest, config, vocab, maxTokens, paperIds, decoder };
}

export async function loadGenretModel(dir: string, options: { threads?: number; decoder?: string } = {}): Promise<GenretModel> {
  const missing = missingModelFiles(dir);
  if (missing.length > 0) throw new Error(`${dir} is not a complete generative-retriever model (missing ${missing.join(", ")})`);
  // The tries first, so a broken one fails before the graph loads (vocab.json, small, is read twice).
  const identifiers = readIdentifierFiles(dir);
  const { manifest, config, paperIds, decoder } = await loadDecoderFiles(dir, options);
  return { dir, manifest, config, identifiers, paperIds, decoder };
}

export interface GenerativeQuery {
  /** The query's item embeddings per facet (same embedder as the model's manifest); unused by a `tokens` model. */
  items: Partial<Record<Facet, readonly Float32Array[]>>;
  /** The query's item texts per facet: what a `tokens` model reads (required by one). */
  texts?: Partial<Record<Facet, readonly string[]>>;
  /** Corpus index of the query paper, excluded from its own lists. */
  exclude?: number;
}

/**
 * How a facet's list is assembled from its items' beams. "concatenate" is the paper's (item 1's
 * candidates, then item 2's, …); "interleave" takes every item's first candidate, then every second, …;
 * "score" merges all items' beams by their score.
 */
export type ListOrder = "concatenate" | "interleave" | "score";

export interface DecodingSettings {
  /** Beams per item (the paper: 50). */
  beams: number;
  /** α in log p / length^α (1: the paper's mean per token; see BeamSearchOptions). */
  lengthPenalty: number;
  listOrder: ListOrder;
}

/** The paper's decoding (Appendix "Constrained-Decoding Algorithm" and "Inference"). */
export const PAPER_DECODING: DecodingSettings = { beams: PAPER_DEFAULTS.beams, lengthPenalty: 1, listOrder: "concatenate" };

export interface GenerativeOptions extends Partial<DecodingSettings> {
  facets?: readonly Facet[];
  /**
   * Filled with the compact tokens of every decoded identifier, keyed `${facet}:${identifier}`
   * (the search has them already; callers that show DocIDs need not search the trie).
   */
  identifierTokens?: Map<string, readonly number[]>;
}

/** One facet's list from its items' candidate lists (each best first), in the chosen order. */
function orderItemLists(perItem: readonly (readonly Candidate[])[], order: ListOrder): Candidate[] {
  if (order === "concatenate") return perItem.flat();
  const flat = perItem.flatMap((list) => list.map((c, rank) => ({ c, rank })));
  // Array.prototype.sort is stable, so ties keep item (bullet) order.
  flat.sort(order === "interleave" ? (a, b) => a.rank - b.rank : (a, b) => (b.c.score ?? 0) - (a.c.score ?? 0));
  return flat.map(({ c }) => c);
}

/** Candidates per facet, best first; `score` is the identifier's normalised log-probability. */
export async function generativeFacetLists(model: GenretModel, query: GenerativeQuery, options: GenerativeOptions = {}): Promise<FacetLists> {
  const facets = options.facets ?? FACETS;
  const settings = { ...PAPER_DECODING, ...definedOnly(options) };
  const requests = decodeRequests(model, query, facets);
  const lists: Partial<Record<Facet, Candidate[]>> = {};
  for (const f of facets) lists[f] = [];
  if (requests.length === 0) return lists;
  const hyps = await constrainedBeamSearch(model.decoder.open(), requests, {
    beams: settings.beams,
    maxTokens: model.identifiers.maxTokens,
    lengthPenalty: settings.lengthPenalty,
  });
  // Each item's identifiers → papers (a paper reached twice from one item keeps its first rank).
  const perRequest = requests.map((r, i) => {
    if (options.identifierTokens) for (const h of hyps[i]) options.identifierTokens.set(`${r.facetName}:${h.identifier}`, h.tokens);
    return expandToPapers(hyps[i], r.trie, query.exclude ?? -1).map(({ paper, hypothesis }): Candidate => ({
      paper,
      score: hypothesis.score,
      queryItem: r.item,
      docId: hypothesis.identifier,
    }));
  });
  for (const f of facets) {
    lists[f] = orderItemLists(
      perRequest.filter((_, i) => requests[i].facetName === f),
      settings.listOrder,
    );
  }
  return lists;
}

type FacetRequest = DecodeRequest & { facetName: Facet; item: number };

const NO_VECTOR = new Float32Array(0);
const compactMaps = new WeakMap<CompactVocab, Map<number, number>>();

/** One request per query item: its vector, or for a `tokens` model its text's compact tokens. */
function decodeRequests(model: GenretModel, query: GenerativeQuery, facets: readonly Facet[]): FacetRequest[] {
  const requests: FacetRequest[] = [];
  const base = (f: Facet, item: number) => ({ facet: FACETS.indexOf(f), trie: model.identifiers.tries[f], facetName: f, item });
  if (!isTokenModel(model.config)) {
    for (const f of facets) (query.items[f] ?? []).forEach((vec, item) => requests.push({ query: vec, ...base(f, item) }));
    return requests;
  }
  if (!query.texts) throw new Error(`${model.dir}: this model reads the query items' words: the query has no item texts`);
  const vocab = model.identifiers.vocab;
  let compact = compactMaps.get(vocab);
  if (!compact) compactMaps.set(vocab, (compact = compactIndex(vocab)));
  const limit = model.config.item_tokens;
  for (const f of facets) {
    (query.texts[f] ?? []).forEach((text, item) =>
      requests.push({ query: NO_VECTOR, words: Int32Array.from(itemTokenIds(text, compact, limit).ids), ...base(f, item) }),
    );
  }
  return requests;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
