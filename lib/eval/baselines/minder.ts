/**
 * The MINDER baseline (paper, Appendix "MINDER Baseline"; Li et al. 2023, multiview
 * identifiers): the same decoder, training edges and constrained beam search as Graft, with
 * MINDER's identifiers instead of facet-item DocIDs. Every corpus paper carries three kinds of
 * untyped identifier, one trie per kind ("view"):
 *
 * - title: the normalised title cut to 12 Llama-3 tokens, one identifier per paper;
 * - substring: any contiguous 3..8-token n-gram of the paper's normalised abstract. The trie
 *   holds every such n-gram, so an identifier ends at every node of depth >= 3, and an
 *   identifier's postings are all papers whose abstract contains it;
 * - pseudo-query: MINDER generates pseudo-queries from the passage with a doc2query model.
 *   No query-generation model is available offline (STACK.md: no LLM or T5 weights in npm or
 *   Debian), so a paper's extracted facet items, all four facets in one untyped trie, stand in
 *   for its pseudo-queries: short, query-like statements generated from the paper by a model,
 *   which is what doc2query output is. This is a substitution, not MINDER's own view.
 *
 * One compact vocabulary covers the tokens of all three views. Training examples come from
 * the facet retriever's uniform distillation pairs (the paper: "the same training edges"):
 * each (source item -> neighbour paper) pair yields one example per view, the view's index
 * being the decoder's slot input (the input that is the facet for Graft's decoder).
 * Decoding runs each query item (all facets, untyped) once per view, and the per-view lists
 * are fused by MINDER's language-model score (lib/eval/generative.ts viewLmScore).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { FACETS, type Facet, type FacetLists } from "@/lib/corpus";
import type { Candidate } from "@/lib/fusion";
import type { PackedFacetItems } from "@/lib/graph";
import {
  constrainedBeamSearch,
  expandToPapers,
  type DecodeRequest,
  type DecoderSession,
  type DistillationExamples,
  docIdTokens,
  normalizeFacetItem,
  type DocIdIndex,
  DECODER_FILES,
  loadDecoderFiles,
  missingFiles,
  type DecoderFiles,
  type GenerativeQuery,
  decisionMaskByRow,
  PACK_VERSION,
  packQueries,
  writePackFiles,
  type PackHeader,
  buildTrie,
  PrefixTrie,
  readTrieFile,
  serializeTrie,
  trieStatistics,
  type TrieStatistics,
  buildCompactVocabFromTokens,
  compactIndex,
  EOS,
  PAD,
  vocabFileJson,
  type CompactVocab,
} from "@/lib/genret";
import { encodeDocIdTokens } from "@/lib/text";

/** The views, in slot order: a view's index is the decoder's slot (facet) input. */
export const MINDER_VIEWS = ["title", "substring", "pseudo-query"] as const;
export type MinderView = (typeof MINDER_VIEWS)[number];

export const MINDER_TRIE_FILES: Record<MinderView, string> = {
  title: "trie-title.bin",
  substring: "trie-substring.bin",
  "pseudo-query": "trie-pseudo.bin",
};
/** Marks a model or experiment directory as MINDER's (views, slot order, n-gram lengths). */
export const MINDER_MARKER = "minder.json";
export const MINDER_FORMAT = "graft-minder";
export const MINDER_FORMAT_VERSION = 1;

/** Substring identifiers are the abstract's n-grams of 3..8 tokens. */
export const SUBSTRING_MIN_TOKENS = 3;
export const SUBSTRING_MAX_TOKENS = 8;

/** What MINDER needs of a corpus paper (node order). */
export interface MinderPaper {
  title: string;
  abstract: string;
  facets: FacetLists;
}

export interface MinderIdentifiers {
  vocab: CompactVocab;
  /** Longest identifier in tokens (12: titles and pseudo-queries; substrings stop at 8). */
  maxTokens: number;
  /** One trie per view over compact ids; postings = paper node indices. */
  tries: Record<MinderView, PrefixTrie>;
  /** Compact tokens of each title / pseudo-query identifier (index = trie identifier). */
  titleTokens: number[][];
  pseudoTokens: number[][];
  /** Paper -> its title identifier, -1 when the title normalises to nothing. */
  titleOf: Int32Array;
  /** Per facet: facet DocID index (docid.ts) -> pseudo-query identifier. */
  pseudoOf: Record<Facet, Int32Array>;
  /** Compact tokens of each paper's normalised abstract (the substring view's text). */
  abstracts: Int32Array[];
}

/** Identifiers in first-seen order with the papers behind each (ascending, deduplicated). */
class IdentifierTable {
  readonly tokens: number[][] = [];
  readonly papers: number[][] = [];
  private readonly byKey = new Map<string, number>();

  add(tokens: readonly number[], paper: number): number {
    // Token ids joined with "," are an exact key for a sequence of integers.
    const key = tokens.join(",");
    let id = this.byKey.get(key);
    if (id === undefined) {
      id = this.tokens.length;
      this.byKey.set(key, id);
      this.tokens.push([...tokens]);
      this.papers.push([]);
    }
    this.papers[id].push(paper);
    return id;
  }

  /** Posting lists sorted and deduplicated (papers may arrive out of order across facets). */
  postings(): number[][] {
    return this.papers.map((list) => [...new Set(list)].sort((a, b) => a - b));
  }
}

/**
 * The substring trie: every distinct n-gram of SUBSTRING_MIN..SUBSTRING_MAX tokens of every
 * text is a path, and every node at depth >= minTokens ends an identifier (numbered in the
 * trie's breadth-first node order). Postings of an identifier: every text containing the
 * n-gram, ascending. Only the maximal windows (maxTokens long, shorter at a text's end) are
 * inserted; their prefixes are the shorter n-grams, so the trie needs no more nodes than the
 * distinct n-grams themselves.
 */
export function buildSubstringTrie(
  texts: readonly ArrayLike<number>[],
  minTokens: number = SUBSTRING_MIN_TOKENS,
  maxTokens: number = SUBSTRING_MAX_TOKENS,
): PrefixTrie {
  if (!Number.isInteger(minTokens) || minTokens < 1 || !Number.isInteger(maxTokens) || maxTokens < minTokens) {
    throw new RangeError(`buildSubstringTrie: need 1 <= minTokens <= maxTokens, got ${minTokens}, ${maxTokens}`);
  }
  const windows: ArrayLike<number>[] = [];
  const seen = new Set<string>();
  for (const text of texts) {
    const t = Int32Array.from(text);
    for (let s = 0; s + minTokens <= t.length; s++) {
      const w = t.subarray(s, Math.min(t.length, s + maxTokens));
      const key = w.join(",");
      if (seen.has(key)) continue;
      seen.add(key);
      windows.push(w);
    }
  }
  seen.clear();
  if (windows.length === 0) return new PrefixTrie(Int32Array.of(-1), Int32Array.of(1, 1), Int32Array.of(-1), 0, 0, Int32Array.of(0), new Int32Array(0));
  const base = buildTrie(windows);
  const n = base.nodeCount;

  // Depth from the breadth-first layout; identifiers at depth >= minTokens, in node order.
  const depth = new Uint8Array(n);
  const identifiers = new Int32Array(n).fill(-1);
  let count = 0;
  for (let node = 0; node < n; node++) {
    if (depth[node] >= minTokens) identifiers[node] = count++;
    for (let c = base.childStart[node]; c < base.childStart[node + 1]; c++) depth[c] = depth[node] + 1;
  }

  // Postings in two passes (count, then fill) over every window of every text, so no list per
  // identifier is ever allocated. lastText deduplicates an n-gram repeated within one text.
  const postingStart = new Int32Array(count + 1);
  const lastText = new Int32Array(n).fill(-1);
  const visit = (each: (id: number, text: number) => void): void => {
    lastText.fill(-1);
    texts.forEach((text, i) => {
      for (let s = 0; s + minTokens <= text.length; s++) {
        let node = 0;
        for (let k = s; k < Math.min(text.length, s + maxTokens); k++) {
          node = base.step(node, text[k]);
          if (identifiers[node] >= 0 && lastText[node] !== i) {
            lastText[node] = i;
            each(identifiers[node], i);
          }
        }
      }
    });
  };
  visit((id) => (postingStart[id + 1] += 1));
  for (let i = 0; i < count; i++) postingStart[i + 1] += postingStart[i];
  const postings = new Int32Array(postingStart[count]);
  const fill = postingStart.slice(0, count);
  // Texts are visited in ascending order, so each posting list comes out sorted.
  visit((id, text) => (postings[fill[id]++] = text));
  return new PrefixTrie(base.tokens, base.childStart, identifiers, count, base.maxDepth, postingStart, postings);
}

/**
 * MINDER's three views of a corpus. `index` is the facet DocID index of the same papers in
 * the same order (prepare.ts buildIdentifiers): the pseudo-query view is its identifiers,
 * merged across facets, so a distillation pair's target item maps onto it directly.
 */
export function buildMinderIdentifiers(papers: readonly MinderPaper[], index: DocIdIndex): MinderIdentifiers {
  if (index.paperIds.length !== papers.length) throw new Error(`buildMinderIdentifiers: ${papers.length} papers, DocID index ${index.paperIds.length}`);
  const maxTokens = index.maxTokens;

  const titles = new IdentifierTable();
  const titleOf = new Int32Array(papers.length).fill(-1);
  papers.forEach((p, i) => {
    const tokens = docIdTokens(p.title, maxTokens);
    if (tokens.length > 0) titleOf[i] = titles.add(tokens, i);
  });

  const pseudo = new IdentifierTable();
  const pseudoOf = {} as Record<Facet, Int32Array>;
  for (const f of FACETS) {
    const facet = index.facets[f];
    pseudoOf[f] = new Int32Array(facet.identifiers.length);
    facet.identifiers.forEach((tokens, id) => {
      let pid = -1;
      for (const paper of facet.papersOf[id]) pid = pseudo.add(tokens, paper);
      pseudoOf[f][id] = pid;
    });
  }

  // Abstracts normalised like every other identifier text (docid.ts), kept whole.
  const llamaAbstracts = papers.map((p) => encodeDocIdTokens(normalizeFacetItem(p.abstract)));

  const all: number[] = [];
  for (const seq of titles.tokens) all.push(...seq);
  for (const seq of pseudo.tokens) all.push(...seq);
  for (const a of llamaAbstracts) if (a.length >= SUBSTRING_MIN_TOKENS) all.push(...a);
  const vocab = buildCompactVocabFromTokens(all);
  const map = compactIndex(vocab);
  const toCompact = (seq: readonly number[]): number[] => seq.map((t) => map.get(t) as number);
  // An abstract too short for any n-gram contributed no tokens; it has no substring identifier.
  const abstracts = llamaAbstracts.map((a) => (a.length >= SUBSTRING_MIN_TOKENS ? Int32Array.from(toCompact(a)) : new Int32Array(0)));

  const titleTokens = titles.tokens.map(toCompact);
  const pseudoTokens = pseudo.tokens.map(toCompact);
  return {
    vocab,
    maxTokens,
    tries: {
      title: buildTrie(titleTokens, titles.postings()),
      substring: buildSubstringTrie(abstracts),
      "pseudo-query": buildTrie(pseudoTokens, pseudo.postings()),
    },
    titleTokens,
    pseudoTokens,
    titleOf,
    pseudoOf,
    abstracts,
  };
}

// ── training examples ──

/** Inverse document frequency of each compact token over the abstracts: ln(N / df), 0 where unseen. */
export function abstractIdf(abstracts: readonly ArrayLike<number>[], vocabSize: number): Float64Array {
  const df = new Int32Array(vocabSize);
  const last = new Int32Array(vocabSize).fill(-1);
  abstracts.forEach((a, i) => {
    for (let k = 0; k < a.length; k++) {
      if (last[a[k]] !== i) {
        last[a[k]] = i;
        df[a[k]] += 1;
      }
    }
  });
  const idf = new Float64Array(vocabSize);
  for (let t = 0; t < vocabSize; t++) if (df[t] > 0) idf[t] = Math.log(abstracts.length / df[t]);
  return idf;
}

/** prev[k] = the last position before k holding the same token as k, or -1. */
function previousOccurrence(text: ArrayLike<number>): Int32Array {
  const prev = new Int32Array(text.length);
  const at = new Map<number, number>();
  for (let k = 0; k < text.length; k++) {
    prev[k] = at.get(text[k]) ?? -1;
    at.set(text[k], k);
  }
  return prev;
}

/**
 * The training substring of a target abstract for a source item: the window of the longest
 * n-gram length (SUBSTRING_MAX_TOKENS, or the whole abstract when shorter) whose tokens
 * overlap the source item most, ties to the earliest window. Overlap is the summed IDF of the
 * distinct window tokens that also occur in the item: plain token counts would let "the", ","
 * and "of" pick the window. Longest, because overlap only grows with length and the longest
 * n-gram is the most specific identifier (fewest papers behind it); it also follows SEAL and
 * MINDER, which train on the passage spans that overlap the query. Returns null when the
 * abstract has no n-gram. `prev` is previousOccurrence(abstract), passed to reuse it.
 */
export function bestSubstring(
  abstract: ArrayLike<number>,
  item: ArrayLike<number>,
  idf: ArrayLike<number>,
  prev: Int32Array = previousOccurrence(abstract),
): { start: number; length: number } | null {
  const L = abstract.length;
  if (L < SUBSTRING_MIN_TOKENS) return null;
  const len = Math.min(SUBSTRING_MAX_TOKENS, L);
  const inItem = new Set<number>();
  for (let k = 0; k < item.length; k++) inItem.add(item[k]);
  let best = 0;
  let bestScore = -1;
  for (let s = 0; s + len <= L; s++) {
    let score = 0;
    for (let k = s; k < s + len; k++) if (prev[k] < s && inItem.has(abstract[k])) score += idf[abstract[k]];
    if (score > bestScore) {
      bestScore = score;
      best = s;
    }
  }
  return { start: best, length: len };
}

/** Column-oriented MINDER examples; row r is (slot[r], sourceFacet[r], ...). */
export interface MinderExamples {
  readonly length: number;
  /** View index (MINDER_VIEWS), the decoder's slot input. */
  readonly slot: Uint8Array;
  /** Index into FACETS of the source item (its query row). */
  readonly sourceFacet: Uint8Array;
  readonly sourcePaper: Int32Array;
  readonly sourceItem: Int32Array;
  readonly targetPaper: Int32Array;
  /** Identifier in the view's trie. */
  readonly targetIdentifier: Int32Array;
  /** Per view, the distinct target identifiers in first-use order with their compact tokens. */
  readonly targets: Record<MinderView, Map<number, ArrayLike<number>>>;
  /** Distillation pairs that yielded no example for a view (no title, abstract too short). */
  readonly skipped: Record<MinderView, number>;
  readonly seed: number;
}

/**
 * One example per view for each distillation pair (source facet, source paper, source item,
 * target paper, target facet DocID): title -> the neighbour's title, substring -> bestSubstring
 * of the neighbour's abstract for the source item, pseudo-query -> the neighbour's item the
 * pair targets. The query row is always the pair's source item.
 */
export function minderExamples(ids: MinderIdentifiers, papers: readonly MinderPaper[], pairs: DistillationExamples): MinderExamples {
  const map = compactIndex(ids.vocab);
  const idf = abstractIdf(ids.abstracts, ids.vocab.size);
  const prevCache = new Map<number, Int32Array>();
  // Source item texts are tokenised in full (not cut to 12): overlap wants every word.
  const itemTokens = new Map<string, number[]>();
  const tokensOfItem = (f: Facet, paper: number, item: number): number[] => {
    const key = `${f}:${paper}:${item}`;
    let hit = itemTokens.get(key);
    if (!hit) {
      const text = papers[paper].facets[f]?.[item] ?? "";
      hit = encodeDocIdTokens(normalizeFacetItem(text)).flatMap((t) => (map.has(t) ? [map.get(t) as number] : []));
      itemTokens.set(key, hit);
    }
    return hit;
  };

  const cap = pairs.length * MINDER_VIEWS.length;
  const slot = new Uint8Array(cap);
  const sourceFacet = new Uint8Array(cap);
  const sourcePaper = new Int32Array(cap);
  const sourceItem = new Int32Array(cap);
  const targetPaper = new Int32Array(cap);
  const targetIdentifier = new Int32Array(cap);
  const targets = Object.fromEntries(MINDER_VIEWS.map((v) => [v, new Map<number, ArrayLike<number>>()])) as Record<MinderView, Map<number, ArrayLike<number>>>;
  const skipped = Object.fromEntries(MINDER_VIEWS.map((v) => [v, 0])) as Record<MinderView, number>;
  let n = 0;
  const push = (view: number, r: number, id: number, tokens: () => ArrayLike<number>): void => {
    slot[n] = view;
    sourceFacet[n] = pairs.facet[r];
    sourcePaper[n] = pairs.sourcePaper[r];
    sourceItem[n] = pairs.sourceItem[r];
    targetPaper[n] = pairs.targetPaper[r];
    targetIdentifier[n] = id;
    const t = targets[MINDER_VIEWS[view]];
    if (!t.has(id)) t.set(id, tokens());
    n += 1;
  };

  const substringTrie = ids.tries.substring;
  for (let r = 0; r < pairs.length; r++) {
    const f = FACETS[pairs.facet[r]];
    const d = pairs.targetPaper[r];
    const title = ids.titleOf[d];
    if (title >= 0) push(0, r, title, () => ids.titleTokens[title]);
    else skipped.title += 1;

    const abstract = ids.abstracts[d];
    let prev = prevCache.get(d);
    if (!prev) prevCache.set(d, (prev = previousOccurrence(abstract)));
    const span = bestSubstring(abstract, tokensOfItem(f, pairs.sourcePaper[r], pairs.sourceItem[r]), idf, prev);
    if (span) {
      const window = abstract.subarray(span.start, span.start + span.length);
      const id = substringTrie.lookup(window);
      if (id < 0) throw new Error(`minderExamples: n-gram of paper ${d} is not in the substring trie`);
      push(1, r, id, () => window);
    } else {
      skipped.substring += 1;
    }

    const pid = ids.pseudoOf[f][pairs.targetIdentifier[r]];
    push(2, r, pid, () => ids.pseudoTokens[pid]);
  }
  return {
    length: n,
    slot: slot.slice(0, n),
    sourceFacet: sourceFacet.slice(0, n),
    sourcePaper: sourcePaper.slice(0, n),
    sourceItem: sourceItem.slice(0, n),
    targetPaper: targetPaper.slice(0, n),
    targetIdentifier: targetIdentifier.slice(0, n),
    targets,
    skipped,
    seed: pairs.meta.seed,
  };
}

// ── the training pack (lib/genret/pack.ts's format, with views as slots) ──

/**
 * pack.ts's header with the views in place of the facets: the trainer sizes its slot
 * embedding from `facets` and reads nothing else of them. Target rows are only the
 * identifiers some example uses (the substring trie has millions), view by view.
 */
export interface MinderPackHeader extends Omit<PackHeader, "facets" | "targetOffset"> {
  facets: MinderView[];
  targetOffset: Record<MinderView, number>;
  /** The distillation variant the pairs came from. */
  sourceVariant: string;
}

export interface MinderPackInput {
  ids: MinderIdentifiers;
  /** Item vectors per facet, node order: the query rows, laid out as pack.ts does. */
  items: Record<Facet, PackedFacetItems>;
  examples: MinderExamples;
  embedder: string;
  sourceVariant: string;
}

export function writeMinderPack(dir: string, input: MinderPackInput): MinderPackHeader {
  const { ids, items, examples } = input;
  const q = packQueries(items);
  const maxLen = ids.maxTokens + 1;
  const targetOffset = {} as Record<MinderView, number>;
  const rowOf = {} as Record<MinderView, Map<number, number>>;
  let numTargets = 0;
  for (const v of MINDER_VIEWS) {
    targetOffset[v] = numTargets;
    rowOf[v] = new Map([...examples.targets[v].keys()].map((id, k) => [id, numTargets + k]));
    numTargets += examples.targets[v].size;
  }
  const targets = new Int32Array(numTargets * maxLen).fill(PAD);
  const viewOfRow = new Uint8Array(numTargets);
  MINDER_VIEWS.forEach((v, vi) => {
    for (const [id, tokens] of examples.targets[v]) {
      const row = rowOf[v].get(id) as number;
      if (tokens.length > ids.maxTokens) throw new Error(`writeMinderPack: ${v} identifier ${id} has ${tokens.length} tokens (max ${ids.maxTokens})`);
      targets.set(Array.from(tokens), row * maxLen);
      targets[row * maxLen + tokens.length] = EOS;
      viewOfRow[row] = vi;
    }
  });

  const rows = new Int32Array(examples.length * 4);
  for (let r = 0; r < examples.length; r++) {
    const f = FACETS[examples.sourceFacet[r]];
    const v = MINDER_VIEWS[examples.slot[r]];
    rows[4 * r] = examples.slot[r];
    rows[4 * r + 1] = q.row(f, examples.sourcePaper[r], examples.sourceItem[r]);
    rows[4 * r + 2] = rowOf[v].get(examples.targetIdentifier[r]) as number;
    rows[4 * r + 3] = -1;
  }

  const header: MinderPackHeader = {
    format: "graft-genret-pack",
    version: PACK_VERSION,
    dim: q.dim,
    maxLen,
    vocabSize: ids.vocab.size,
    facets: [...MINDER_VIEWS],
    numQueries: q.numQueries,
    numTargets,
    numExamples: examples.length,
    queryOffset: q.queryOffset,
    targetOffset,
    embedder: input.embedder,
    variant: "minder",
    seed: examples.seed,
    hasNegatives: false,
    hasWeights: false,
    sourceVariant: input.sourceVariant,
  };
  return writePackFiles(dir, header, {
    queries: q.queries,
    targets,
    examples: rows,
    weights: new Float32Array(examples.length).fill(1),
    decisions: decisionMaskByRow(targets, maxLen, (row) => ids.tries[MINDER_VIEWS[viewOfRow[row]]]),
  });
}

// ── statistics ──

export interface MinderViewStatistics {
  identifiers: number;
  /** Paper entries over all identifiers' postings. */
  postings: number;
  /** Papers with at least one identifier in the view. */
  papers: number;
  /** The most papers behind one identifier. */
  maxPapersPerIdentifier: number;
  trie: TrieStatistics;
}

export function minderStatistics(ids: MinderIdentifiers): { vocabSize: number; maxTokens: number; views: Record<MinderView, MinderViewStatistics> } {
  const views = {} as Record<MinderView, MinderViewStatistics>;
  for (const v of MINDER_VIEWS) {
    const trie = ids.tries[v];
    const ps = trie.postingStart as Int32Array;
    const postings = trie.postings as Int32Array;
    let max = 0;
    for (let i = 0; i < trie.identifierCount; i++) max = Math.max(max, ps[i + 1] - ps[i]);
    views[v] = {
      identifiers: trie.identifierCount,
      postings: postings.length,
      papers: new Set(postings).size,
      maxPapersPerIdentifier: max,
      trie: trieStatistics(trie),
    };
  }
  return { vocabSize: ids.vocab.size, maxTokens: ids.maxTokens, views };
}

export function minderExampleStatistics(examples: MinderExamples) {
  const byView = Object.fromEntries(
    MINDER_VIEWS.map((v) => [v, { examples: 0, distinctTargets: examples.targets[v].size, targetPapers: 0, skippedPairs: examples.skipped[v] }]),
  );
  const papers = MINDER_VIEWS.map(() => new Set<number>());
  for (let r = 0; r < examples.length; r++) {
    byView[MINDER_VIEWS[examples.slot[r]]].examples += 1;
    papers[examples.slot[r]].add(examples.targetPaper[r]);
  }
  MINDER_VIEWS.forEach((v, i) => (byView[v].targetPapers = papers[i].size));
  return {
    examples: examples.length,
    views: byView as Record<MinderView, { examples: number; distinctTargets: number; targetPapers: number; skippedPairs: number }>,
  };
}

// ── the identifier files of a model directory ──

interface MinderMarker {
  format: typeof MINDER_FORMAT;
  version: number;
  views: MinderView[];
  trieFiles: Record<MinderView, string>;
  substringTokens: [number, number];
  [key: string]: unknown;
}

/** vocab.json (as prepare.ts writes it), the three view tries and the minder.json marker. */
export function minderIdentifierFiles(ids: MinderIdentifiers, extra: Record<string, unknown> = {}): { name: string; data: string | Uint8Array }[] {
  const marker: MinderMarker = {
    format: MINDER_FORMAT,
    version: MINDER_FORMAT_VERSION,
    views: [...MINDER_VIEWS],
    trieFiles: MINDER_TRIE_FILES,
    substringTokens: [SUBSTRING_MIN_TOKENS, SUBSTRING_MAX_TOKENS],
    ...extra,
  };
  return [
    { name: "vocab.json", data: vocabFileJson(ids.vocab, ids.maxTokens) },
    ...MINDER_VIEWS.map((v) => ({ name: MINDER_TRIE_FILES[v], data: serializeTrie(ids.tries[v]) })),
    { name: MINDER_MARKER, data: JSON.stringify(marker, null, 1) },
  ];
}

// ── a trained MINDER model and its decoding ──

/** Files of a MINDER model directory: the decoder's, vocabulary, the three tries, the marker. */
export const MINDER_MODEL_FILES = [...DECODER_FILES, MINDER_MARKER, ...MINDER_VIEWS.map((v) => MINDER_TRIE_FILES[v])];

export function missingMinderModelFiles(dir: string): string[] {
  return missingFiles(dir, MINDER_MODEL_FILES);
}

/** What decoding needs: the view tries and something that opens a decoder session. */
export interface MinderDecoding {
  tries: Record<MinderView, PrefixTrie>;
  maxTokens: number;
  decoder: { open(): DecoderSession };
}

export interface MinderModel extends MinderDecoding, DecoderFiles {
  dir: string;
  decoder: DecoderFiles["decoder"];
}

export async function loadMinderModel(dir: string, options: { threads?: number } = {}): Promise<MinderModel> {
  const missing = missingMinderModelFiles(dir);
  if (missing.length > 0) throw new Error(`${dir} is not a complete MINDER model (missing ${missing.join(", ")})`);
  const marker = JSON.parse(readFileSync(path.join(dir, MINDER_MARKER), "utf8")) as Partial<MinderMarker>;
  if (marker.format !== MINDER_FORMAT || JSON.stringify(marker.views) !== JSON.stringify(MINDER_VIEWS)) {
    throw new Error(`${dir}/${MINDER_MARKER}: expected format ${MINDER_FORMAT} with views ${MINDER_VIEWS.join(", ")} (the decoder's slot order)`);
  }
  const checkConfig = (config: DecoderFiles["config"]): void => {
    if (config.facets !== undefined && config.facets !== MINDER_VIEWS.length) {
      throw new Error(`${dir}: the decoder has ${config.facets} slots, MINDER needs ${MINDER_VIEWS.length} (one per view): was it trained on a MINDER pack?`);
    }
  };
  // The tries first, so a broken one fails before the graph loads.
  const tries = Object.fromEntries(MINDER_VIEWS.map((view) => [view, readTrieFile(path.join(dir, MINDER_TRIE_FILES[view]))])) as Record<MinderView, PrefixTrie>;
  return { dir, tries, ...(await loadDecoderFiles(dir, { threads: options.threads, checkConfig })) };
}

export type MinderViewLists = Record<MinderView, Candidate[]>;

/**
 * Decodes every query item (all facets, untyped, in FACETS then item order) once per view with
 * that view's trie, all in one beam-search batch. A view's list is the concatenation of its
 * items' beams in item order, each item's identifiers expanded to their papers as the facet
 * retriever does (expandToPapers: a paper reached twice from one item keeps its first rank).
 * `score` is the identifier's beam score (mean log-probability per token by default),
 * `queryItem` the item's position in that untyped order, `docId` the view identifier.
 */
export async function minderViewLists(
  model: MinderDecoding,
  query: GenerativeQuery,
  options: { beams?: number; lengthPenalty?: number } = {},
): Promise<MinderViewLists> {
  const items = FACETS.flatMap((f) => [...(query.items[f] ?? [])]);
  const requests: (DecodeRequest & { view: MinderView; item: number })[] = [];
  MINDER_VIEWS.forEach((view, slot) => items.forEach((vec, item) => requests.push({ query: vec, facet: slot, trie: model.tries[view], view, item })));
  const lists = Object.fromEntries(MINDER_VIEWS.map((v) => [v, [] as Candidate[]])) as MinderViewLists;
  if (requests.length === 0) return lists;
  const hyps = await constrainedBeamSearch(model.decoder.open(), requests, {
    beams: options.beams ?? 50,
    maxTokens: model.maxTokens,
    lengthPenalty: options.lengthPenalty,
  });
  requests.forEach((r, i) => {
    for (const { paper, hypothesis } of expandToPapers(hyps[i], r.trie, query.exclude ?? -1)) {
      lists[r.view].push({ paper, score: hypothesis.score, queryItem: r.item, docId: hypothesis.identifier });
    }
  });
  return lists;
}
