import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { PrefixTrie, TRIE_HEADER_BYTES, buildTrie, loadTrie, readTrieFile, serializeTrie, trieStatistics, verifyTrie, writeTrieFile } from "./trie";
import { mulberry32 } from "@/lib/random";

const EOS = 128001;

const rng = mulberry32;

/** Distinct random sequences over a small alphabet, so prefixes are shared and nested. */
function randomSequences(count: number, seed: number): number[][] {
  const next = rng(seed);
  const seen = new Set<string>();
  const out: number[][] = [];
  while (out.length < count) {
    const len = 1 + Math.floor(next() * 6);
    const seq = Array.from({ length: len }, () => Math.floor(next() * 5) * 1000 + 7);
    const key = seq.join(",");
    if (!seen.has(key)) {
      seen.add(key);
      out.push(seq);
    }
  }
  return out;
}

/** Checks a trie against a plain-Map oracle on members, their prefixes and random probes. */
function assertMatchesOracle(trie: PrefixTrie, sequences: number[][], seed: number): void {
  const ids = new Map(sequences.map((s, i) => [s.join(","), i]));
  const nextTokens = new Map<string, Set<number>>();
  for (const s of sequences) {
    for (let d = 0; d < s.length; d++) {
      const key = s.slice(0, d).join(",");
      let set = nextTokens.get(key);
      if (set === undefined) nextTokens.set(key, (set = new Set()));
      set.add(s[d]);
    }
  }
  sequences.forEach((s, i) => {
    const node = trie.walk(s);
    assert.ok(node > 0, `identifier ${i} unreachable`);
    assert.ok(trie.isTerminal(node));
    assert.equal(trie.identifierAt(node), i);
    assert.equal(trie.lookup(s), i);
    // Every prefix is a node whose children are exactly the oracle's next tokens.
    for (let d = 0; d <= s.length; d++) {
      const prefix = s.slice(0, d);
      const at = trie.walk(prefix);
      assert.ok(at >= 0);
      const expected = [...(nextTokens.get(prefix.join(",")) ?? [])].sort((a, b) => a - b);
      const { tokens, firstChild } = trie.children(at);
      assert.deepEqual([...tokens], expected);
      tokens.forEach((t, k) => assert.equal(trie.step(at, t), firstChild + k));
      assert.equal(trie.isTerminal(at), ids.has(prefix.join(",")));
    }
  });
  const next = rng(seed);
  for (let probe = 0; probe < 2000; probe++) {
    const len = Math.floor(next() * 8);
    const seq = Array.from({ length: len }, () => Math.floor(next() * 6) * 1000 + 7);
    assert.equal(trie.lookup(seq), ids.get(seq.join(",")) ?? -1, `probe ${seq.join(",")}`);
  }
}

describe("buildTrie", () => {
  test("every identifier reachable and terminal; anything else rejected", () => {
    const sequences = randomSequences(1500, 1);
    const trie = buildTrie(sequences);
    verifyTrie(trie);
    assert.equal(trie.identifierCount, sequences.length);
    assertMatchesOracle(trie, sequences, 2);
  });

  test("a random token sequence not in the set is rejected", () => {
    const trie = buildTrie([[10, 20, 30], [10, 21], [11]]);
    assert.equal(trie.lookup([10, 20, 31]), -1);
    assert.equal(trie.walk([10, 20, 31]), -1);
    assert.equal(trie.lookup([12]), -1);
    assert.equal(trie.lookup([10, 20, 30, 40]), -1);
    // A proper prefix is a node, but no identifier.
    assert.ok(trie.walk([10, 20]) > 0);
    assert.equal(trie.lookup([10, 20]), -1);
    assert.equal(trie.lookup([]), -1);
    assert.equal(trie.step(PrefixTrie.ROOT, 99), -1);
  });

  test("an identifier that prefixes another allows both EOS and continuation", () => {
    const trie = buildTrie([
      [5, 6, 7],
      [5, 6],
    ]);
    const mid = trie.walk([5, 6]);
    assert.ok(trie.isTerminal(mid));
    assert.equal(trie.identifierAt(mid), 1);
    assert.equal(trie.childCount(mid), 1);
    assert.deepEqual([...trie.allowedTokens(mid, EOS)], [7, EOS]);
    const leaf = trie.walk([5, 6, 7]);
    assert.equal(trie.identifierAt(leaf), 0);
    // At a leaf EOS is the only choice: decoding is forced to end.
    assert.deepEqual([...trie.allowedTokens(leaf, EOS)], [EOS]);
    // Inside a path (not terminal) EOS is not allowed.
    assert.deepEqual([...trie.allowedTokens(trie.walk([5]), EOS)], [6]);
    const stats = trieStatistics(trie);
    assert.equal(stats.terminalsWithChildren, 1);
    assert.equal(stats.terminals, 2);
    assert.equal(stats.leaves, 1);
  });

  test("nodes are breadth-first with sorted, contiguous children", () => {
    const trie = buildTrie([[3, 1], [1, 2], [2], [1, 1]]);
    assert.deepEqual([...trie.tokens], [-1, 1, 2, 3, 1, 2, 1]);
    assert.deepEqual([...trie.childStart], [1, 4, 6, 6, 7, 7, 7, 7]);
    assert.deepEqual([...trie.identifiers], [-1, -1, 2, -1, 3, 1, 0]);
    assert.deepEqual([...trie.children(PrefixTrie.ROOT).tokens], [1, 2, 3]);
  });

  test("empty and duplicate identifiers are rejected", () => {
    assert.throws(() => buildTrie([[1], []]), /identifier 1 is empty/);
    assert.throws(() => buildTrie([[1, 2], [3], [1, 2]]), /identical/);
    assert.throws(() => buildTrie([[1, -2]]), /invalid token/);
    assert.throws(() => buildTrie([[1]], [[0], [1]]), /posting lists/);
  });

  test("an empty trie has just the root", () => {
    const trie = buildTrie([]);
    assert.equal(trie.nodeCount, 1);
    assert.equal(trie.lookup([1]), -1);
    assert.deepEqual([...trie.allowedTokens(PrefixTrie.ROOT, EOS)], []);
    verifyTrie(loadTrie(serializeTrie(trie)));
  });

  test("postings map identifiers to their papers", () => {
    const trie = buildTrie(
      [
        [1, 2],
        [1, 3],
      ],
      [[0, 4, 9], [2]],
    );
    assert.deepEqual([...trie.papersOf(trie.lookup([1, 2]))], [0, 4, 9]);
    assert.deepEqual([...trie.papersOf(1)], [2]);
    assert.throws(() => trie.papersOf(2), RangeError);
    assert.throws(() => buildTrie([[1]]).papersOf(0), /without postings/);
  });
});

describe("serialisation", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "graft-trie-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const sequences = randomSequences(800, 3);
  const postings = sequences.map((_, i) => (i % 7 === 0 ? [i, i + 1] : [i]));
  const built = buildTrie(sequences, postings);

  test("round trip through a file: identical arrays and behaviour, zero-copy views", () => {
    const file = path.join(dir, "problems.trie");
    writeTrieFile(file, built);
    const bytes = readFileSync(file);
    assert.equal(bytes.toString("latin1", 0, 8), "GRFTTRIE");
    assert.equal(bytes.readUInt32LE(8), 1);
    assert.equal(bytes.readUInt32LE(16), built.nodeCount);
    assert.equal(bytes.byteLength, trieStatistics(built).fileBytes);

    const loaded = loadTrie(bytes);
    // Views over the file's own memory, not copies.
    assert.equal(loaded.tokens.buffer, bytes.buffer);
    assert.equal(loaded.postings?.buffer, bytes.buffer);
    assert.equal(loaded.tokens.byteOffset, bytes.byteOffset + TRIE_HEADER_BYTES);
    for (const key of ["tokens", "childStart", "identifiers", "postingStart", "postings"] as const) {
      assert.deepEqual(loaded[key], built[key], key);
    }
    assert.equal(loaded.maxDepth, built.maxDepth);
    assert.deepEqual(trieStatistics(loaded), trieStatistics(built));
    assertMatchesOracle(readTrieFile(file), sequences, 4);
    sequences.forEach((s, i) => assert.deepEqual([...loaded.papersOf(loaded.lookup(s))], postings[i]));
  });

  test("an unaligned buffer still loads (by copying)", () => {
    const bytes = serializeTrie(built);
    const shifted = new Uint8Array(bytes.byteLength + 1).subarray(1);
    shifted.set(bytes);
    const loaded = loadTrie(shifted);
    assert.notEqual(loaded.tokens.buffer, shifted.buffer);
    assert.deepEqual(loaded.tokens, built.tokens);
    assertMatchesOracle(loaded, sequences, 5);
  });

  test("a trie without postings round-trips too", () => {
    const plain = buildTrie(sequences);
    const loaded = loadTrie(serializeTrie(plain));
    assert.equal(loaded.hasPostings, false);
    assert.equal(serializeTrie(plain).byteLength, TRIE_HEADER_BYTES + 4 * (3 * plain.nodeCount + 1));
  });

  test("bad files are rejected", () => {
    const good = serializeTrie(built);
    const badMagic = Buffer.from(good);
    badMagic.write("NOTATRIE", 0, "latin1");
    assert.throws(() => loadTrie(badMagic), /bad magic/);
    const badVersion = Buffer.from(good);
    badVersion.writeUInt32LE(99, 8);
    assert.throws(() => loadTrie(badVersion), /version 99/);
    assert.throws(() => loadTrie(good.subarray(0, good.byteLength - 4)), /header implies/);
    assert.throws(() => loadTrie(good.subarray(0, 10)), /shorter than the header/);
    // Swap two sibling tokens of the root: lookups would silently fail, verify catches it.
    const corrupt = Buffer.from(good);
    const first = TRIE_HEADER_BYTES + 4;
    const a = corrupt.readInt32LE(first);
    corrupt.writeInt32LE(corrupt.readInt32LE(first + 4), first);
    corrupt.writeInt32LE(a, first + 4);
    assert.throws(() => loadTrie(corrupt), /not sorted/);
    assert.doesNotThrow(() => loadTrie(corrupt, { verify: false }));
  });
});

describe("trieStatistics", () => {
  test("counts nodes, terminals, leaves and bytes", () => {
    const trie = buildTrie([[1, 2, 3], [1, 2], [4]], [[0], [1, 2], [3]]);
    const s = trieStatistics(trie);
    assert.equal(s.nodes, 5);
    assert.equal(s.nodesExcludingRoot, 4);
    assert.equal(s.terminals, 3);
    assert.equal(s.leaves, 2);
    assert.equal(s.terminalsWithChildren, 1);
    assert.equal(s.maxDepth, 3);
    assert.equal(s.rootFanout, 2);
    assert.equal(s.maxFanout, 2);
    assert.equal(s.nodeBytes, 4 * (5 + 6 + 5));
    assert.equal(s.bytesPerNode, (4 * 16) / 5);
    assert.equal(s.postingBytes, 4 * (4 + 4));
    assert.equal(s.fileBytes, TRIE_HEADER_BYTES + s.nodeBytes + s.postingBytes);
  });
});
