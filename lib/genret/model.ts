/**
 * A trained generative retriever, as a directory: decoder.onnx (the step graph), train.json
 * (its architecture), vocab.json and trie-<facet>.bin (identifiers), papers.json (node index →
 * external id) and genret.json (embedder, variant, graph build). `generativeFacetLists`
 * turns a query's facet items into the per-facet candidate lists that fusion consumes
 * (lib/fusion FacetLists): each item decoded separately with its own beams, a facet's list
 * the concatenation of its items' lists in item order.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { Candidate, FacetLists } from "@/lib/fusion/types";
import { constrainedBeamSearch, expandToPapers, type DecodeRequest } from "./beam-search";
import { OnnxDecoder, type DecoderConfig } from "./onnx-session";
import { readIdentifierFiles, type LoadedIdentifiers } from "./prepare";

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

export const MODEL_FILES = ["decoder.onnx", "output.f32", "config.json", "vocab.json", "papers.json", "genret.json", ...FACETS.map((f) => `trie-${f}.bin`)];

export function missingModelFiles(dir: string): string[] {
  return MODEL_FILES.filter((f) => !existsSync(path.join(dir, f)));
}

export async function loadGenretModel(dir: string, options: { threads?: number; decoder?: string } = {}): Promise<GenretModel> {
  const missing = missingModelFiles(dir);
  if (missing.length > 0) throw new Error(`${dir} is not a complete generative-retriever model (missing ${missing.join(", ")})`);
  const train = JSON.parse(readFileSync(path.join(dir, "config.json"), "utf8")) as { config: DecoderConfig };
  const identifiers = readIdentifierFiles(dir);
  if (train.config.vocab !== identifiers.vocab.size) {
    throw new Error(`${dir}: the decoder has ${train.config.vocab} output tokens, vocab.json ${identifiers.vocab.size}`);
  }
  const manifest = JSON.parse(readFileSync(path.join(dir, "genret.json"), "utf8")) as GenretManifest;
  const paperIds = (JSON.parse(readFileSync(path.join(dir, "papers.json"), "utf8")) as { externalIds: string[] }).externalIds;
  const decoder = await OnnxDecoder.load(options.decoder ?? path.join(dir, "decoder.onnx"), train.config, { threads: options.threads });
  return { dir, manifest, config: train.config, identifiers, paperIds, decoder };
}

export interface GenerativeQuery {
  /** The query's item embeddings per facet (same embedder as the model's manifest). */
  items: Partial<Record<Facet, readonly Float32Array[]>>;
  /** Corpus index of the query paper, excluded from its own lists. */
  exclude?: number;
}

export interface GenerativeOptions {
  beams?: number;
  facets?: readonly Facet[];
  /**
   * Filled with the compact tokens of every decoded identifier, keyed `${facet}:${identifier}`
   * (the search has them already; callers that show DocIDs need not search the trie).
   */
  identifierTokens?: Map<string, readonly number[]>;
}

/** Candidates per facet, best first; `score` is the identifier's mean log-probability. */
export async function generativeFacetLists(model: GenretModel, query: GenerativeQuery, options: GenerativeOptions = {}): Promise<FacetLists> {
  const facets = options.facets ?? FACETS;
  const requests: (DecodeRequest & { facetName: Facet; item: number })[] = [];
  for (const f of facets) {
    (query.items[f] ?? []).forEach((vec, item) =>
      requests.push({ query: vec, facet: FACETS.indexOf(f), trie: model.identifiers.tries[f], facetName: f, item }),
    );
  }
  const lists: Partial<Record<Facet, Candidate[]>> = {};
  for (const f of facets) lists[f] = [];
  if (requests.length === 0) return lists;
  const hyps = await constrainedBeamSearch(model.decoder.open(), requests, { beams: options.beams ?? 50, maxTokens: model.identifiers.maxTokens });
  requests.forEach((r, i) => {
    const list = lists[r.facetName] as Candidate[];
    if (options.identifierTokens) for (const h of hyps[i]) options.identifierTokens.set(`${r.facetName}:${h.identifier}`, h.tokens);
    for (const { paper, hypothesis } of expandToPapers(hyps[i], r.trie, query.exclude ?? -1)) {
      list.push({ paper, score: hypothesis.score, queryItem: r.item, docId: hypothesis.identifier });
    }
  });
  return lists;
}
