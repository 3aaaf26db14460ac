import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { FACETS } from "@/lib/corpus";
import { buildDocIdIndex } from "./docid";
import { buildCompactVocab, buildCompactVocabFromTokens, compactIndex, EOS, PAD, readVocabFile, vocabFileJson } from "./vocab";

describe("compact vocabulary", () => {
  it("lays out PAD, EOS, then the distinct Llama-3 ids ascending", () => {
    const vocab = buildCompactVocabFromTokens([900, 7, 900, 42, 7]);
    assert.deepEqual(Array.from(vocab.llamaIds), [-1, -1, 7, 42, 900]);
    assert.equal(vocab.size, 5);
    assert.equal(vocab.llamaIds[PAD], -1);
    assert.equal(vocab.llamaIds[EOS], -1);
    assert.deepEqual(
      [...compactIndex(vocab)],
      [
        [7, 2],
        [42, 3],
        [900, 4],
      ],
    );
    assert.deepEqual(Array.from(buildCompactVocabFromTokens([]).llamaIds), [-1, -1]);
  });

  it("of a DocID index is the vocabulary over its identifiers' tokens", () => {
    const index = buildDocIdIndex([
      { externalId: "a", facets: { problems: ["Parsing noisy text"], methods: ["A neural parser"], results: [], contributions: [] } },
      { externalId: "b", facets: { problems: ["Parsing"], methods: [], results: ["Better accuracy"], contributions: ["A treebank"] } },
    ]);
    const tokens = FACETS.flatMap((f) => index.facets[f].identifiers.flat());
    const vocab = buildCompactVocab(index);
    assert.deepEqual(vocab, buildCompactVocabFromTokens(tokens));
    assert.equal(vocab.size, new Set(tokens).size + 2);
  });

  it("round-trips through vocab.json", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "graft-vocab-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const vocab = buildCompactVocabFromTokens([3, 1, 2]);
    const file = path.join(dir, "vocab.json");
    writeFileSync(file, vocabFileJson(vocab, 12));
    assert.deepEqual(JSON.parse(vocabFileJson(vocab, 12)), { llamaIds: [-1, -1, 1, 2, 3], maxTokens: 12 });
    assert.deepEqual(readVocabFile(file), { vocab, maxTokens: 12 });
    writeFileSync(file, JSON.stringify({ llamaIds: [5, -1, 1], maxTokens: 12 }));
    assert.throws(() => readVocabFile(file), /entries 0 and 1 must be PAD and EOS/);
  });
});
