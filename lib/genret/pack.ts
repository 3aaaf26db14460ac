/**
 * The training pack: what the Python trainer (workers/trainer) reads, as flat little-endian
 * arrays plus a JSON header, so the trainer needs nothing but numpy to load it and the
 * TypeScript side stays the one place where DocIDs, tries and distillation are defined.
 *
 *   pack.json      header (shapes, vocabulary, facet offsets, provenance)
 *   queries.f32    [numQueries, dim]  frozen sentence embedding of every facet item
 *                  (row = queryOffset[f] + items.offsets[paper] + item)
 *   targets.i32    [numTargets, maxLen] compact token ids of every DocID, then EOS, then PAD
 *                  (row = targetOffset[f] + identifier)
 *   examples.i32   [numExamples, 4]   facet, query row, target row, negative target row (-1)
 *   weights.f32    [numExamples]      cross-entropy weight (1 unless CE reweighting)
 *   decisions.u8   [numTargets, maxLen] 1 where the trie leaves the decoder a choice
 *   itemTokens.i32 [numQueries, itemTokens.maxTokens] (when the item texts are given) the
 *                  item's own compact tokens, PAD-filled, same rows as queries.f32
 *                  (item-tokens.ts: the `tokens` conditioning of the decoder)
 *
 * decisions.u8: constrained decoding renormalises over the trie's allowed tokens, so a
 * position where the prefix has a single continuation (and EOS is not allowed) costs nothing
 * at decoding time, whatever the model says. Training on such positions spends CPU on text
 * the decoder never chooses; the trainer can skip them (--decisions-only), which shortens
 * most targets to their distinguishing prefix.
 *
 * The model is conditioned on the query item's embedding ("one projected prefix vector plus
 * a facet embedding"), so the embedder must be the one used at query time: its id is in the
 * header and in the model manifest.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "@/lib/atomic-write";
import { FACETS, type Facet, type FacetLists } from "@/lib/corpus";
import type { PackedFacetItems } from "@/lib/graph";
import type { DistillationExamples } from "./distill";
import type { DocIdIndex } from "./docid";
import { ITEM_MAX_TOKENS, itemTokenIds, setItemRow } from "./item-tokens";
import type { PrefixTrie } from "./trie";
import { compactIndex, EOS, PAD, type CompactVocab } from "./vocab";

export const PACK_VERSION = 1;

export interface PackHeader {
  format: "graft-genret-pack";
  version: number;
  dim: number;
  /** DocID tokens + EOS. */
  maxLen: number;
  vocabSize: number;
  facets: Facet[];
  numQueries: number;
  numTargets: number;
  numExamples: number;
  queryOffset: Record<Facet, number>;
  targetOffset: Record<Facet, number>;
  embedder: string;
  variant: string;
  seed: number;
  hasNegatives: boolean;
  hasWeights: boolean;
  /** itemTokens.i32, when the pack was written with the item texts. */
  itemTokens?: ItemTokenStats;
}

/** What itemTokens.i32 holds: out-of-vocabulary tokens dropped (item-tokens.ts says why). */
export interface ItemTokenStats {
  maxTokens: number;
  /** Tokens kept over all rows. */
  tokens: number;
  /** Tokens of the first maxTokens that were outside the compact vocabulary. */
  dropped: number;
  /** Rows that kept no token at all (the decoder then sees the facet alone). */
  emptyRows: number;
}

export interface PackInput {
  index: DocIdIndex;
  vocab: CompactVocab;
  /** Item vectors per facet, node order = DocIdIndex paper order. */
  items: Record<Facet, PackedFacetItems>;
  examples: DistillationExamples;
  /** Per facet, over compact ids (prepare.ts buildIdentifiers): for decisions.u8. */
  tries: Record<Facet, PrefixTrie>;
  embedder: string;
  variant: string;
  /** The papers' facet item texts (node order): written as itemTokens.i32 when given. */
  texts?: readonly FacetLists[];
}

/**
 * Marks out[at + k] = 1 where the trie leaves the decoder a choice (more than one child, EOS
 * counted where an identifier ends) along the EOS-terminated target row at `at`; false when
 * the row leaves the trie.
 */
function markDecisions(out: Uint8Array, rows: Int32Array, at: number, maxLen: number, trie: PrefixTrie): boolean {
  let node = 0;
  for (let k = 0; k < maxLen; k++) {
    const t = rows[at + k];
    const options = trie.childCount(node) + (trie.isTerminal(node) ? 1 : 0);
    out[at + k] = options > 1 ? 1 : 0;
    if (t === EOS) break;
    node = trie.step(node, t);
    if (node < 0) return false;
  }
  return true;
}

/** 1 at each target position where the trie allows more than one token (EOS included). */
export function decisionMask(rows: Int32Array, maxLen: number, offset: Record<Facet, number>, tries: Record<Facet, PrefixTrie>): Uint8Array {
  const out = new Uint8Array(rows.length);
  for (const f of FACETS) {
    const trie = tries[f];
    for (let i = 0; i < trie.identifierCount; i++) {
      if (!markDecisions(out, rows, (offset[f] + i) * maxLen, maxLen, trie)) throw new Error(`decisionMask: identifier ${i} of ${f} is not in its trie`);
    }
  }
  return out;
}

/** decisionMask for target rows that each name their own trie (MINDER: one trie per view). */
export function decisionMaskByRow(rows: Int32Array, maxLen: number, trieOfRow: (row: number) => PrefixTrie): Uint8Array {
  const out = new Uint8Array(rows.length);
  for (let row = 0; row * maxLen < rows.length; row++) {
    if (!markDecisions(out, rows, row * maxLen, maxLen, trieOfRow(row))) throw new Error(`decisionMask: target row ${row} is not in its trie`);
  }
  return out;
}

/**
 * queries.f32: every facet's item vectors, facet after facet; an item's row is
 * queryOffset[f] + items[f].offsets[paper] + item (`row`).
 */
export interface PackedQueries {
  dim: number;
  numQueries: number;
  queryOffset: Record<Facet, number>;
  queries: Float32Array;
  row(f: Facet, paper: number, item: number): number;
}

export function packQueries(items: Record<Facet, PackedFacetItems>): PackedQueries {
  const dim = items[FACETS[0]].dim;
  const queryOffset = {} as Record<Facet, number>;
  let numQueries = 0;
  for (const f of FACETS) {
    queryOffset[f] = numQueries;
    numQueries += items[f].offsets[items[f].offsets.length - 1];
  }
  const queries = new Float32Array(numQueries * dim);
  for (const f of FACETS) queries.set(items[f].data, queryOffset[f] * dim);
  return { dim, numQueries, queryOffset, queries, row: (f, paper, item) => queryOffset[f] + items[f].offsets[paper] + item };
}

/**
 * itemTokens.i32: every item's own compact tokens (item-tokens.ts), in the rows of queries.f32.
 * Throws when a paper's texts do not match its vectors (the two must come from one store read).
 */
export function packItemTokens(
  texts: readonly FacetLists[],
  items: Record<Facet, PackedFacetItems>,
  q: PackedQueries,
  vocab: CompactVocab,
  maxTokens: number = ITEM_MAX_TOKENS,
): { tokens: Int32Array; stats: ItemTokenStats } {
  const compact = compactIndex(vocab);
  const out = new Int32Array(q.numQueries * maxTokens).fill(PAD);
  const stats: ItemTokenStats = { maxTokens, tokens: 0, dropped: 0, emptyRows: 0 };
  for (const f of FACETS) {
    const { offsets } = items[f];
    if (texts.length !== offsets.length - 1) throw new Error(`packItemTokens: ${texts.length} papers of texts, ${offsets.length - 1} of ${f} vectors`);
    texts.forEach((paper, p) => {
      const list = paper[f] ?? [];
      if (list.length !== offsets[p + 1] - offsets[p])
        throw new Error(`packItemTokens: paper ${p} has ${list.length} ${f} texts, ${offsets[p + 1] - offsets[p]} vectors`);
      list.forEach((text, i) => {
        const { ids, dropped } = itemTokenIds(text, compact, maxTokens);
        setItemRow(out, q.row(f, p, i), ids, maxTokens);
        stats.tokens += ids.length;
        stats.dropped += dropped;
        if (ids.length === 0) stats.emptyRows += 1;
      });
    });
  }
  return { tokens: out, stats };
}

/** Compact-token rows of every identifier of every facet, each EOS-terminated and PAD-filled. */
export function encodeTargets(index: DocIdIndex, vocab: CompactVocab): { rows: Int32Array; maxLen: number; offset: Record<Facet, number> } {
  const map = compactIndex(vocab);
  const maxLen = index.maxTokens + 1;
  const offset = {} as Record<Facet, number>;
  let total = 0;
  for (const f of FACETS) {
    offset[f] = total;
    total += index.facets[f].identifiers.length;
  }
  const rows = new Int32Array(total * maxLen).fill(PAD);
  for (const f of FACETS) {
    index.facets[f].identifiers.forEach((ids, i) => {
      const at = (offset[f] + i) * maxLen;
      ids.forEach((t, k) => (rows[at + k] = map.get(t) as number));
      rows[at + ids.length] = EOS;
    });
  }
  return { rows, maxLen, offset };
}

const bytes = (a: Int32Array | Float32Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** The arrays of a pack, as the files list at the top of this module lays them out. */
export interface PackArrays {
  queries: Float32Array;
  targets: Int32Array;
  examples: Int32Array;
  weights: Float32Array;
  decisions: Uint8Array;
  itemTokens?: Int32Array;
}

/** A pack header whose decoder slots need not be the facets (MINDER's are its views). */
export type AnyPackHeader = Omit<PackHeader, "facets" | "targetOffset"> & { facets: readonly string[]; targetOffset: Record<string, number> };

/** Writes a pack's files into `dir`, pack.json last: its presence marks a complete pack. */
export function writePackFiles<H extends AnyPackHeader>(dir: string, header: H, arrays: PackArrays): H {
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(path.join(dir, "queries.f32"), bytes(arrays.queries));
  writeFileAtomic(path.join(dir, "targets.i32"), bytes(arrays.targets));
  writeFileAtomic(path.join(dir, "examples.i32"), bytes(arrays.examples));
  writeFileAtomic(path.join(dir, "weights.f32"), bytes(arrays.weights));
  writeFileAtomic(path.join(dir, "decisions.u8"), arrays.decisions);
  if (arrays.itemTokens) writeFileAtomic(path.join(dir, "itemTokens.i32"), bytes(arrays.itemTokens));
  writeFileAtomic(path.join(dir, "pack.json"), JSON.stringify(header, null, 1));
  return header;
}

export function writeTrainingPack(dir: string, input: PackInput): PackHeader {
  const { index, vocab, items, examples } = input;
  const q = packQueries(items);
  const targets = encodeTargets(index, vocab);
  const rows = new Int32Array(examples.length * 4);
  let hasNegatives = false;
  for (let r = 0; r < examples.length; r++) {
    const f = FACETS[examples.facet[r]];
    rows[4 * r] = examples.facet[r];
    rows[4 * r + 1] = q.row(f, examples.sourcePaper[r], examples.sourceItem[r]);
    rows[4 * r + 2] = targets.offset[f] + examples.targetIdentifier[r];
    const neg = examples.negative[r];
    rows[4 * r + 3] = neg >= 0 ? targets.offset[f] + neg : -1;
    if (neg >= 0) hasNegatives = true;
  }
  const hasWeights = examples.weight.some((w) => w !== 1);
  const itemTokens = input.texts ? packItemTokens(input.texts, items, q, vocab) : null;

  const header: PackHeader = {
    format: "graft-genret-pack",
    version: PACK_VERSION,
    dim: q.dim,
    maxLen: targets.maxLen,
    vocabSize: vocab.size,
    facets: [...FACETS],
    numQueries: q.numQueries,
    numTargets: targets.rows.length / targets.maxLen,
    numExamples: examples.length,
    queryOffset: q.queryOffset,
    targetOffset: targets.offset,
    embedder: input.embedder,
    variant: input.variant,
    seed: examples.meta.seed,
    hasNegatives,
    hasWeights,
    ...(itemTokens ? { itemTokens: itemTokens.stats } : {}),
  };
  return writePackFiles(dir, header, {
    queries: q.queries,
    targets: targets.rows,
    examples: rows,
    weights: examples.weight,
    decisions: decisionMask(targets.rows, targets.maxLen, targets.offset, input.tries),
    itemTokens: itemTokens?.tokens,
  });
}
