/**
 * Trie-constrained beam search (paper, Appendix "Constrained-Decoding Algorithm"): every
 * step is restricted to the trie's children (forbidden logits masked, the distribution
 * renormalised over what the trie allows), EOS is allowed exactly where an identifier ends
 * and is the only choice at a leaf (so it is forced there), hypotheses are ranked by their
 * log-probability divided by length^α (α = 1: the paper's mean per token; α = 0: the sequence
 * log-probability), and hypotheses still open at the maximum length (off a leaf) are discarded. Several requests (the items of one query) decode together in one batch,
 * sharing each model call.
 *
 * The model is behind `DecoderSession` so the search is testable with a hand-built model and
 * runs on onnxruntime in production (onnx-session.ts).
 */
import { PAPER_DEFAULTS } from "@/lib/config";
import type { PrefixTrie } from "./trie";
import { EOS } from "./vocab";

/**
 * A model mid-decoding. `start`/`next` advance the batch; `logits(row, tokens, out)` then
 * gives the unnormalised scores of just the tokens the trie allows for a row (the search
 * renormalises over them, so no model ever needs a full-vocabulary softmax).
 */
export interface DecoderSession {
  /** Runs the first step for each request (row i = request i). */
  start(requests: readonly DecodeRequest[]): Promise<void>;
  /** Extends rows of the previous step: new row i continues old row parents[i] with tokens[i]. */
  next(parents: Int32Array, tokens: Int32Array): Promise<void>;
  /** Writes the logits of `tokens` for `row` of the current step into `out`. */
  logits(row: number, tokens: ArrayLike<number>, out: Float64Array): void;
}

export interface DecodeRequest {
  /** The query item's embedding (empty for a decoder that reads its tokens). */
  query: Float32Array;
  /** The query item's own compact tokens (lib/genret/item-tokens.ts), for a `tokens` decoder. */
  words?: Int32Array;
  /** The decoder's slot: a FACETS index, or a MINDER view index. */
  facet: number;
  trie: PrefixTrie;
}

export interface Hypothesis {
  identifier: number;
  /** Log-probability / length^α (EOS counted in the length); α = 1 is the mean per token. */
  score: number;
  tokens: number[];
}

export interface BeamSearchOptions {
  beams?: number;
  /** Maximum tokens before EOS (the DocID length). */
  maxTokens?: number;
  /**
   * α in score = log p / length^α. 1 (default) is the paper's mean log-probability per token.
   * With renormalised constrained decoding a forced token costs log 1 = 0, so the mean favours
   * long identifiers whatever their probability; 0 ranks by the identifier's probability.
   */
  lengthPenalty?: number;
}

interface Live {
  row: number;
  node: number;
  sum: number;
  tokens: number[];
}

/**
 * When every path below `node` is forced (one child and no identifier ending, down to a
 * leaf), the identifier it must end in and that identifier's token count; else null. Forced
 * tokens have renormalised probability 1, so such a hypothesis is complete: its sum of
 * log-probabilities is final and only its length grows. Finishing it at once gives the same
 * score as decoding the forced tokens one by one and saves the model calls (most DocIDs are
 * determined by their first 3-5 tokens).
 */
export function forcedCompletion(trie: PrefixTrie, node: number, depth: number): { identifier: number; length: number } | null {
  let n = node;
  let d = depth;
  for (;;) {
    const count = trie.childCount(n);
    if (trie.isTerminal(n)) return count === 0 ? { identifier: trie.identifierAt(n), length: d } : null;
    if (count !== 1) return null;
    n = trie.children(n).firstChild;
    d += 1;
  }
}

interface Candidate {
  parent: Live;
  token: number;
  node: number;
  sum: number;
  rank: number;
}

/** log Σ exp of the first n entries. */
function logSumExp(x: Float64Array, n: number): number {
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (x[i] > max) max = x[i];
  if (max === -Infinity) return -Infinity;
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.exp(x[i] - max);
  return max + Math.log(s);
}

/** Keeps the `k` best candidates by their normalised score (ties: earlier first). */
function topK(cands: Candidate[], k: number): Candidate[] {
  if (cands.length <= k) return cands.sort((a, b) => b.rank - a.rank);
  return cands.sort((a, b) => b.rank - a.rank).slice(0, k);
}

export async function constrainedBeamSearch(
  session: DecoderSession,
  requests: readonly DecodeRequest[],
  options: BeamSearchOptions = {},
): Promise<Hypothesis[][]> {
  const beams = options.beams ?? PAPER_DEFAULTS.beams;
  const maxTokens = options.maxTokens ?? 12;
  const alpha = options.lengthPenalty ?? 1;
  // Candidates of one step share their length, so pruning by sum / len^α is pruning by sum.
  const norm = (sum: number, len: number) => (alpha === 0 ? sum : sum / len ** alpha);
  const finished: Hypothesis[][] = requests.map(() => []);
  if (requests.length === 0) return finished;
  let live: Live[][] = requests.map((_, r) => [{ row: r, node: 0, sum: 0, tokens: [] }]);
  await session.start(requests);
  let scores = new Float64Array(1024);
  let allowed = new Int32Array(1024);

  for (let step = 0; step <= maxTokens; step++) {
    const parents: number[] = [];
    const tokens: number[] = [];
    const nextLive: Live[][] = requests.map(() => []);
    for (let r = 0; r < requests.length; r++) {
      const trie = requests[r].trie;
      const cands: Candidate[] = [];
      for (const h of live[r]) {
        const { tokens: children, firstChild } = trie.children(h.node);
        const terminal = trie.isTerminal(h.node);
        const n = children.length + (terminal ? 1 : 0);
        if (n > allowed.length) {
          allowed = new Int32Array(2 * n);
          scores = new Float64Array(2 * n);
        }
        allowed.set(children);
        if (terminal) allowed[children.length] = EOS;
        session.logits(h.row, allowed.subarray(0, n), scores);
        const lse = logSumExp(scores, n);
        if (lse === -Infinity) continue;
        const len = h.tokens.length + 1;
        if (terminal) {
          const sum = h.sum + (scores[children.length] - lse);
          finished[r].push({ identifier: trie.identifierAt(h.node), score: norm(sum, len), tokens: h.tokens });
        }
        // At the length limit only EOS may follow; longer sequences would leave the trie anyway.
        if (step === maxTokens) continue;
        for (let i = 0; i < children.length; i++) {
          const sum = h.sum + (scores[i] - lse);
          cands.push({ parent: h, token: children[i], node: firstChild + i, sum, rank: norm(sum, len) });
        }
      }
      for (const c of topK(cands, beams)) {
        const forced = forcedCompletion(trie, c.node, c.parent.tokens.length + 1);
        if (forced) {
          // Past the length limit it could never end on a leaf: discarded, as the search would.
          if (forced.length > maxTokens) continue;
          // Complete: the forced tail (and EOS at the leaf) each add log 1 = 0.
          const tail: number[] = [];
          for (let n = c.node; trie.childCount(n) > 0; n = trie.children(n).firstChild) tail.push(trie.children(n).tokens[0]);
          finished[r].push({ identifier: forced.identifier, score: norm(c.sum, forced.length + 1), tokens: [...c.parent.tokens, c.token, ...tail] });
          continue;
        }
        nextLive[r].push({ row: parents.length, node: c.node, sum: c.sum, tokens: [...c.parent.tokens, c.token] });
        parents.push(c.parent.row);
        tokens.push(c.token);
      }
    }
    if (parents.length === 0) break;
    live = nextLive;
    await session.next(Int32Array.from(parents), Int32Array.from(tokens));
  }
  return finished.map((list) => list.sort((a, b) => b.score - a.score).slice(0, beams));
}

/**
 * Identifiers → papers: a multi-paper identifier expands into consecutive ranks in corpus
 * order (the trie's postings are sorted); a paper reached twice keeps its first rank.
 */
export function expandToPapers(hyps: readonly Hypothesis[], trie: PrefixTrie, exclude = -1): { paper: number; hypothesis: Hypothesis }[] {
  const seen = new Set<number>();
  const out: { paper: number; hypothesis: Hypothesis }[] = [];
  for (const h of hyps) {
    for (const p of trie.papersOf(h.identifier)) {
      if (p === exclude || seen.has(p)) continue;
      seen.add(p);
      out.push({ paper: p, hypothesis: h });
    }
  }
  return out;
}
