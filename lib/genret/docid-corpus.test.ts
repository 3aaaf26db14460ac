/**
 * DocIDs and tries on the real demo corpus (ACL-CiteGraph): every facet item of every paper
 * must be decodable through its facet's trie and resolve back to that paper.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { FACETS } from "@/lib/corpus";
import { buildDocIdIndex, docIdStatistics, docIdTokens, leadingTokens, normalizeFacetItem, readDocIdSources } from "./docid";
import { encodeDocIdTokens, getLlama3Tokenizer } from "@/lib/text";
import { buildFacetTries, loadTrie, serializeTrie, trieStatistics } from "./trie";
import { sharedDataDir } from "@/lib/paths";

const dataDir = sharedDataDir();
const corpusFile = path.join(dataDir, "acl-citegraph", "papers.jsonl");

test("every corpus facet item maps to an identifier in its facet's trie, owned by its paper", (t) => {
  if (!existsSync(corpusFile)) {
    t.skip(`demo corpus not found at ${corpusFile}`);
    return;
  }
  const papers = readDocIdSources(corpusFile);
  const index = buildDocIdIndex(papers);
  const tries = buildFacetTries(index);
  const tokenizer = getLlama3Tokenizer();
  let checked = 0;

  for (const facet of FACETS) {
    // Check the serialised form, i.e. what decoding will actually load.
    const trie = loadTrie(serializeTrie(tries[facet]));
    const docIds = index.facets[facet];
    papers.forEach((paper, ordinal) => {
      for (const item of paper.facets[facet] ?? []) {
        const tokens = docIdTokens(item);
        assert.ok(tokens.length > 0 && tokens.length <= 12, `${paper.externalId}: ${item}`);
        const id = trie.lookup(tokens);
        assert.ok(id >= 0, `${facet} item of ${paper.externalId} not in trie: ${item}`);
        assert.ok(docIds.papersOf[id].includes(ordinal));
        assert.ok(trie.papersOf(id).includes(ordinal));
        assert.deepEqual(docIds.identifiers[id], tokens);
        checked += 1;
      }
    });
    const stats = trieStatistics(trie);
    assert.equal(stats.terminals, docIds.identifiers.length);
    assert.ok(stats.bytesPerNode <= 16);
  }
  assert.ok(checked > 15_000, `only ${checked} items checked`);
  assert.equal(docIdStatistics(index).total.items, checked);

  // Only a prefix of each item is tokenised (leadingTokens): the same tokens and truncation as
  // tokenising the whole item, on every item of the corpus.
  for (const paper of papers) {
    for (const facet of FACETS) {
      for (const item of paper.facets[facet] ?? []) {
        const full = encodeDocIdTokens(normalizeFacetItem(item));
        assert.deepEqual(leadingTokens(normalizeFacetItem(item), 12), { tokens: full.slice(0, 12), truncated: full.length > 12 }, item);
      }
    }
  }

  // Literal encoding (no special-token parsing) equals the library's own encode on real text.
  for (const paper of papers.slice(0, 500)) {
    for (const facet of FACETS) {
      for (const item of paper.facets[facet] ?? []) {
        const text = normalizeFacetItem(item);
        const reference = tokenizer.encode(text, { add_special_tokens: false }).slice(0, 12);
        assert.deepEqual(docIdTokens(item), reference);
      }
    }
  }
});
