import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { mulberry32 } from "@/lib/random";
import { fitLexicalModel, LexicalIndex, packLexicalItems } from "./lexical";
import { LexicalPool, lexicalAllPairsTopK } from "./lexical-pool";

const WORDS = "neural machine translation entity tagger sentiment parsing graph attention corpus lexicon tweets clinical summarization retrieval".split(" ");

function randomPapers(seed: number, n: number): string[][] {
  const rand = mulberry32(seed);
  return Array.from({ length: n }, (_, p) =>
    Array.from({ length: p % 9 === 0 ? 0 : 1 + Math.floor(rand() * 4) }, () =>
      Array.from({ length: 2 + Math.floor(rand() * 6) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" "),
    ),
  );
}

describe("lexical all-pairs on worker threads", () => {
  const papers = randomPapers(21, 300);
  const model = fitLexicalModel(papers.flat());
  const pool = LexicalPool.create({ threads: 2, chunkRows: 17 });
  after(() => pool.close());

  it("gives the one-thread lists bit for bit, capped and exact, reused across indexes", async () => {
    for (const [texts, options] of [
      [papers, { maxPostings: 40, candidates: 25 }],
      [papers.slice().reverse(), { maxPostings: Infinity }],
    ] as const) {
      const index = new LexicalIndex(packLexicalItems(model, texts));
      const one = index.allPairsTopK(8, options);
      const progress: number[] = [];
      const two = await pool.allPairsTopK(new LexicalIndex(packLexicalItems(model, texts)), 8, { ...options, onProgress: (d) => progress.push(d) });
      assert.deepEqual(two, one);
      assert.ok(one.targets.length > 0);
      assert.equal(progress.at(-1), texts.length, "progress reaches every row");
    }
  });

  it("runs in this thread for one thread, on a pool of its own for more", async () => {
    const index = new LexicalIndex(packLexicalItems(model, papers));
    const want = index.allPairsTopK(4, { maxPostings: 30 });
    assert.deepEqual(await lexicalAllPairsTopK(index, 4, { threads: 1, maxPostings: 30 }), want);
    assert.deepEqual(await lexicalAllPairsTopK(index, 4, { threads: 3, chunkRows: 50, maxPostings: 30, onProgress: () => {} }), want);
  });

  it("refuses a pass once closed", async () => {
    const other = LexicalPool.create({ threads: 1 });
    await other.close();
    await assert.rejects(other.allPairsTopK(new LexicalIndex(packLexicalItems(model, papers)), 3), /closed/);
  });
});
