/**
 * The generative retriever's data stages, as pure functions over plain data: DocIDs →
 * compact vocabulary → per-facet prefix tries (in compact ids, with the papers behind each
 * identifier as postings) → coverage-aware distillation → training pack. `graft build`
 * (lib/genret/build.ts), the benchmarks and the eval harness all go through here.
 */
import path from "node:path";
import { FACETS, type Facet, type FacetLists, type Split } from "@/lib/corpus";
import type { PaperGraph, PackedFacetItems } from "@/lib/graph";
import {
  DISTILL_VARIANTS,
  distill,
  distillationStatistics,
  trainingSources,
  type DistillationExamples,
  type DistillOptions,
  type DistillVariant,
} from "./distill";
import { buildDocIdIndex, DOCID_MAX_TOKENS, docIdStatistics, type BuildDocIdOptions, type DocIdIndex } from "./docid";
import { buildTrie, readTrieFile, serializeTrie, trieStatistics, type PrefixTrie } from "./trie";
import { buildCompactVocab, compactIndex, readVocabFile, vocabFileJson, type CompactVocab } from "./vocab";

export interface GenretCorpus {
  /** External ids in node order (the graph's order). */
  ids: string[];
  splits: (Split | null)[];
  /** Facet item texts per paper, node order. */
  facets: FacetLists[];
  graph: PaperGraph;
}

export interface Identifiers {
  index: DocIdIndex;
  vocab: CompactVocab;
  /** One trie per facet over compact token ids; postings = paper node indices. */
  tries: Record<Facet, PrefixTrie>;
}

export function buildIdentifiers(corpus: Pick<GenretCorpus, "ids" | "facets">, options: BuildDocIdOptions = {}): Identifiers {
  return identifiersFromIndex(corpusDocIds(corpus, options));
}

/** The DocIDs of a corpus in node order (the first half of buildIdentifiers). */
export function corpusDocIds(corpus: Pick<GenretCorpus, "ids" | "facets">, options: BuildDocIdOptions = {}): DocIdIndex {
  return buildDocIdIndex(
    corpus.ids.map((externalId, i) => ({ externalId, facets: corpus.facets[i] })),
    DOCID_MAX_TOKENS,
    options,
  );
}

/** Vocabulary and tries of any DocID index (the bullet DocIDs or a baseline scheme's, lib/eval/baselines/docid-schemes.ts). */
export function identifiersFromIndex(index: DocIdIndex): Identifiers {
  const vocab = buildCompactVocab(index);
  const map = compactIndex(vocab);
  const tries = {} as Record<Facet, PrefixTrie>;
  for (const f of FACETS) {
    const ids = index.facets[f];
    tries[f] = buildTrie(
      ids.identifiers.map((seq) => seq.map((t) => map.get(t) as number)),
      ids.papersOf,
    );
  }
  return { index, vocab, tries };
}

export function variantOptions(variant: DistillVariant | string, seed: number): DistillOptions {
  const base = (DISTILL_VARIANTS as Record<string, DistillOptions>)[variant];
  if (!base) throw new Error(`unknown distillation variant "${variant}" (one of: ${Object.keys(DISTILL_VARIANTS).join(", ")})`);
  return { ...base, seed };
}

/** Distilled training examples from the corpus's training papers (trainingSources: every paper not held out as dev/test). */
export function trainingExamples(corpus: GenretCorpus, ids: Identifiers, variant: string, seed: number): DistillationExamples {
  const items = Object.fromEntries(FACETS.map((f) => [f, ids.index.facets[f]])) as Record<Facet, DocIdIndex["facets"][Facet]>;
  return distill({ graph: corpus.graph, items, sourceMask: trainingSources(corpus.splits).mask }, variantOptions(variant, seed));
}

/** Statistics the paper reports for identifiers, tries and training data. */
export function identifierReport(ids: Identifiers) {
  return {
    docIds: docIdStatistics(ids.index),
    vocabSize: ids.vocab.size,
    tries: Object.fromEntries(FACETS.map((f) => [f, trieStatistics(ids.tries[f])])),
  };
}

export { distillationStatistics, trainingSources };

// ── the identifier artefacts of a build (read back at query time) ──

/** The files a model directory needs besides the decoder: vocabulary and the four tries. */
export function identifierFiles(ids: Identifiers): { name: string; data: string | Uint8Array }[] {
  return [
    { name: "vocab.json", data: vocabFileJson(ids.vocab, ids.index.maxTokens) },
    ...FACETS.map((f) => ({ name: `trie-${f}.bin`, data: serializeTrie(ids.tries[f]) })),
  ];
}

export interface LoadedIdentifiers {
  vocab: CompactVocab;
  maxTokens: number;
  tries: Record<Facet, PrefixTrie>;
}

export function readIdentifierFiles(dir: string): LoadedIdentifiers {
  const tries = {} as Record<Facet, PrefixTrie>;
  for (const f of FACETS) tries[f] = readTrieFile(path.join(dir, `trie-${f}.bin`));
  return { ...readVocabFile(path.join(dir, "vocab.json")), tries };
}

export type { PackedFacetItems };
