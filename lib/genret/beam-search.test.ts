import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { constrainedBeamSearch, expandToPapers, forcedCompletion, type DecodeRequest, type DecoderSession } from "./beam-search";
import { buildTrie } from "./trie";
import { EOS } from "./vocab";

/**
 * A hand-built model: the logit of token t after prefix p is table(p, t), the same for every
 * request. Rows are tracked as prefixes so start/next follow the search's bookkeeping.
 */
class TableSession implements DecoderSession {
  private rows: number[][] = [];
  calls = 0;
  constructor(private readonly table: (prefix: number[], token: number) => number) {}
  async start(requests: readonly DecodeRequest[]): Promise<void> {
    this.calls++;
    this.rows = requests.map(() => []);
  }
  async next(parents: Int32Array, tokens: Int32Array): Promise<void> {
    this.calls++;
    this.rows = Array.from(parents, (p, i) => [...this.rows[p], tokens[i]]);
  }
  logits(row: number, tokens: ArrayLike<number>, out: Float64Array): void {
    for (let i = 0; i < tokens.length; i++) out[i] = this.table(this.rows[row], tokens[i]);
  }
}

const request = (trie: ReturnType<typeof buildTrie>): DecodeRequest => ({ query: new Float32Array(4), facet: 0, trie });

/** Mean renormalised log-probability of each identifier, by enumerating the trie. */
function bruteForce(ids: number[][], table: (p: number[], t: number) => number, alpha = 1): Map<string, number> {
  const trie = buildTrie(ids);
  const out = new Map<string, number>();
  for (const seq of ids) {
    let node = 0;
    let sum = 0;
    for (let k = 0; k <= seq.length; k++) {
      const { tokens } = trie.children(node);
      const allowed = [...tokens, ...(trie.isTerminal(node) ? [EOS] : [])];
      const t = k < seq.length ? seq[k] : EOS;
      const lse = Math.log(allowed.reduce((s, a) => s + Math.exp(table(seq.slice(0, k), a)), 0));
      sum += table(seq.slice(0, k), t) - lse;
      if (k < seq.length) node = trie.step(node, seq[k]);
    }
    out.set(seq.join(","), sum / (seq.length + 1) ** alpha);
  }
  return out;
}

describe("constrainedBeamSearch", () => {
  // Compact ids: 0 PAD, 1 EOS, tokens from 2. [2,3] is a prefix of [2,3,7] (an internal end).
  const ids = [[2, 3], [2, 3, 7], [2, 4, 5], [6], [8, 9, 10, 11]];
  const table = (p: number[], t: number): number => Math.sin(7 * t + 3 * p.length + (p[0] ?? 0)) * 2;

  it("returns exactly the trie's identifiers, ranked by mean renormalised log-probability", async () => {
    const trie = buildTrie(ids);
    const [hyps] = await constrainedBeamSearch(new TableSession(table), [request(trie)], { beams: 10, maxTokens: 12 });
    const expected = bruteForce(ids, table);
    assert.equal(hyps.length, ids.length);
    for (const h of hyps) {
      assert.deepEqual(h.tokens, ids[h.identifier]);
      assert.ok(Math.abs(h.score - (expected.get(ids[h.identifier].join(",")) as number)) < 1e-9);
    }
    const scores = hyps.map((h) => h.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
  });

  it("lengthPenalty α ranks by log-probability / length^α (0: the identifier's probability)", async () => {
    const trie = buildTrie(ids);
    for (const alpha of [0, 0.5]) {
      const [hyps] = await constrainedBeamSearch(new TableSession(table), [request(trie)], { beams: 10, lengthPenalty: alpha });
      const expected = bruteForce(ids, table, alpha);
      assert.equal(hyps.length, ids.length);
      for (const h of hyps) assert.ok(Math.abs(h.score - (expected.get(ids[h.identifier].join(",")) as number)) < 1e-9, `α ${alpha}`);
      const scores = hyps.map((h) => h.score);
      assert.deepEqual(
        scores,
        [...scores].sort((a, b) => b - a),
      );
    }
    // A forced 4-token chain (log p = log ½ at its one decision) against a 1-token identifier
    // (also ½): equal probabilities, so α = 0 ties them while the mean prefers the long one.
    const tie = buildTrie([[8, 9, 10, 11], [12]]);
    const [mean] = await constrainedBeamSearch(new TableSession(() => 0), [request(tie)], { beams: 2 });
    const [prob] = await constrainedBeamSearch(new TableSession(() => 0), [request(tie)], { beams: 2, lengthPenalty: 0 });
    assert.deepEqual(
      mean.map((h) => h.identifier),
      [0, 1],
    );
    assert.ok(mean[0].score > mean[1].score);
    assert.ok(Math.abs(prob[0].score - Math.log(0.5)) < 1e-12 && Math.abs(prob[1].score - Math.log(0.5)) < 1e-12);
  });

  it("never leaves the trie, even when the model prefers tokens outside it", async () => {
    const trie = buildTrie(ids);
    // Huge logits for tokens no identifier uses; the search must not see them.
    const adversarial = (p: number[], t: number): number => (t > 11 ? 100 : table(p, t));
    const [hyps] = await constrainedBeamSearch(new TableSession(adversarial), [request(trie)], { beams: 3 });
    assert.ok(hyps.length > 0 && hyps.length <= 3);
    for (const h of hyps) assert.deepEqual(trie.lookup(h.tokens), h.identifier);
  });

  it("forces EOS at a leaf and finishes forced chains without model calls", async () => {
    // [8,9,10,11] is determined by its first token: after 8 the rest is forced.
    const trie = buildTrie([[8, 9, 10, 11], [12]]);
    const session = new TableSession(() => 0);
    const [hyps] = await constrainedBeamSearch(session, [request(trie)], { beams: 5 });
    assert.equal(session.calls, 1, "one model call: both identifiers are determined by their first token");
    // Uniform over two first tokens: log(1/2) spread over 5 and 2 tokens (EOS included).
    const byId = new Map(hyps.map((h) => [h.identifier, h.score]));
    assert.ok(Math.abs((byId.get(0) as number) - Math.log(0.5) / 5) < 1e-12);
    assert.ok(Math.abs((byId.get(1) as number) - Math.log(0.5) / 2) < 1e-12);
    // Mean per token favours the longer identifier, whose forced tokens cost nothing.
    assert.deepEqual(hyps[0].tokens, [8, 9, 10, 11]);
  });

  it("keeps at most `beams` hypotheses and decodes several requests in one batch", async () => {
    const many = Array.from({ length: 40 }, (_, i) => [2 + (i % 5), 10 + i]);
    const trie = buildTrie(many);
    const session = new TableSession(table);
    const out = await constrainedBeamSearch(session, [request(trie), request(buildTrie(ids))], { beams: 7 });
    assert.equal(out.length, 2);
    assert.equal(out[0].length, 7);
    for (const h of out[0]) assert.equal(trie.lookup(h.tokens), h.identifier);
    assert.equal(out[1].length, 5);
  });

  it("discards hypotheses still open at the length limit", async () => {
    const trie = buildTrie([[2, 3, 4], [5]]);
    const [hyps] = await constrainedBeamSearch(new TableSession(table), [request(trie)], { beams: 5, maxTokens: 2 });
    assert.deepEqual(
      hyps.map((h) => h.tokens),
      [[5]],
    );
  });
});

describe("forcedCompletion", () => {
  it("follows single-child chains to a leaf and stops at a branch or an internal identifier", () => {
    const trie = buildTrie([
      [2, 3, 4],
      [2, 3],
      [5, 6, 7],
    ]);
    const n5 = trie.step(0, 5);
    assert.deepEqual(forcedCompletion(trie, n5, 1), { identifier: 2, length: 3 });
    // After [2], [2,3] ends inside the chain to [2,3,4]: a real choice (EOS or 4) remains.
    assert.equal(forcedCompletion(trie, trie.step(0, 2), 1), null);
    assert.equal(forcedCompletion(trie, 0, 0), null);
  });
});

describe("expandToPapers", () => {
  it("expands a shared identifier into consecutive ranks in corpus order and skips the query", () => {
    const trie = buildTrie([[2], [3]], [[4, 1, 9].sort((a, b) => a - b), [1, 6]]);
    const hyps = [
      { identifier: 0, score: -0.1, tokens: [2] },
      { identifier: 1, score: -0.5, tokens: [3] },
    ];
    assert.deepEqual(
      expandToPapers(hyps, trie).map((x) => x.paper),
      [1, 4, 9, 6],
    );
    assert.deepEqual(
      expandToPapers(hyps, trie, 4).map((x) => x.paper),
      [1, 9, 6],
    );
  });
});
