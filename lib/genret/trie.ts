/**
 * Prefix tries over DocID token sequences for constrained decoding (paper, Appendix
 * "Constrained-Decoding Algorithm"): at each step the trie gives the tokens that continue
 * towards a valid identifier; every other logit is masked.
 *
 * The paper builds "a nested mapping from token identifier to child nodes". Here a trie is
 * flat typed arrays, so it costs 12 bytes per node, loads from a file without
 * building any per-node object, and can be shared between workers as one buffer.
 *
 * Layout (nodes numbered breadth-first, root = 0; children of a node are consecutive
 * and sorted by token):
 *   token[node]        Int32  token on the edge into the node (-1 for the root)
 *   childStart[node]   Int32  first child; children are childStart[node] .. childStart[node+1]-1
 *                             (nodeCount + 1 entries, so the count needs no array of its own)
 *   identifier[node]   Int32  identifier index ending at this node, or -1
 * A node can be terminal AND have children (an identifier that is a prefix of another):
 * then both EOS and the continuations are allowed there.
 * Optional postings (identifier -> paper ordinals, CSR): postingStart[identifierCount + 1],
 * postings[postingCount].
 */
import { readFileSync, writeFileSync } from "node:fs";
import { endianness } from "node:os";
import { FACETS, type Facet } from "@/lib/corpus";
import type { DocIdIndex, FacetDocIds } from "./docid";

/** File magic: 8 ASCII bytes. */
export const TRIE_MAGIC = "GRFTTRIE";
export const TRIE_FORMAT_VERSION = 1;
/**
 * Header, all little-endian: magic[8] version:u32 flags:u32 nodeCount:u32
 * identifierCount:u32 postingCount:u32 maxDepth:u32. 32 bytes, so every section that
 * follows starts 4-byte aligned and can be viewed as an Int32Array in place.
 */
export const TRIE_HEADER_BYTES = 32;
const FLAG_POSTINGS = 1;

const HOST_IS_LITTLE_ENDIAN = endianness() === "LE";

/** The children of a node: `tokens` is a view (sorted ascending), child k is node firstChild + k. */
export interface TrieChildren {
  tokens: Int32Array;
  firstChild: number;
}

export class PrefixTrie {
  static readonly ROOT = 0;

  /** Use buildTrie or loadTrie; the constructor only checks that the arrays fit together. */
  constructor(
    readonly tokens: Int32Array,
    readonly childStart: Int32Array,
    readonly identifiers: Int32Array,
    readonly identifierCount: number,
    readonly maxDepth: number,
    readonly postingStart: Int32Array | null = null,
    readonly postings: Int32Array | null = null,
  ) {
    const n = tokens.length;
    if (n < 1 || childStart.length !== n + 1 || identifiers.length !== n) {
      throw new Error("PrefixTrie: token, childStart and identifier arrays do not match");
    }
    if ((postingStart === null) !== (postings === null)) {
      throw new Error("PrefixTrie: postingStart and postings go together");
    }
    if (postingStart !== null && postingStart.length !== identifierCount + 1) {
      throw new Error("PrefixTrie: postingStart must have identifierCount + 1 entries");
    }
  }

  /** Nodes including the root. */
  get nodeCount(): number {
    return this.tokens.length;
  }

  get hasPostings(): boolean {
    return this.postings !== null;
  }

  childCount(node: number): number {
    return this.childStart[node + 1] - this.childStart[node];
  }

  /** Children as views, for building the logit mask without allocating per child. */
  children(node: number): TrieChildren {
    const start = this.childStart[node];
    return { tokens: this.tokens.subarray(start, this.childStart[node + 1]), firstChild: start };
  }

  /** The child reached by `token`, or -1 when no identifier continues that way. Binary search. */
  step(node: number, token: number): number {
    let lo = this.childStart[node];
    let hi = this.childStart[node + 1] - 1;
    const tokens = this.tokens;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const t = tokens[mid];
      if (t < token) lo = mid + 1;
      else if (t > token) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  /** True when an identifier ends here, i.e. EOS is allowed at this node. */
  isTerminal(node: number): boolean {
    return this.identifiers[node] >= 0;
  }

  /** The identifier index ending at this node, or -1. */
  identifierAt(node: number): number {
    return this.identifiers[node];
  }

  /** Node reached from the root by `sequence`, or -1 when it leaves the trie. */
  walk(sequence: ArrayLike<number>): number {
    let node = PrefixTrie.ROOT;
    for (let i = 0; i < sequence.length && node >= 0; i++) node = this.step(node, sequence[i]);
    return node;
  }

  /** Identifier index spelled exactly by `sequence`, or -1 (a mere prefix gives -1). */
  lookup(sequence: ArrayLike<number>): number {
    const node = this.walk(sequence);
    return node < 0 ? -1 : this.identifiers[node];
  }

  /**
   * Tokens the decoder may emit at `node`: the children's tokens, plus `eosTokenId` when an
   * identifier ends here. A leaf therefore allows EOS alone, which forces termination as the
   * paper's decoder does. Allocates only at terminal nodes.
   */
  allowedTokens(node: number, eosTokenId: number): Int32Array {
    const { tokens } = this.children(node);
    if (!this.isTerminal(node)) return tokens;
    const out = new Int32Array(tokens.length + 1);
    out.set(tokens);
    out[tokens.length] = eosTokenId;
    return out;
  }

  /** Paper ordinals behind an identifier, in corpus order (a view). Needs postings. */
  papersOf(identifier: number): Int32Array {
    if (this.postingStart === null || this.postings === null) {
      throw new Error("PrefixTrie.papersOf: this trie was built without postings");
    }
    if (!(identifier >= 0 && identifier < this.identifierCount)) {
      throw new RangeError(`PrefixTrie.papersOf: no identifier ${identifier}`);
    }
    return this.postings.subarray(this.postingStart[identifier], this.postingStart[identifier + 1]);
  }
}

function compareSequences(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return a.length - b.length;
}

/**
 * Builds a trie whose identifier i is `sequences[i]`. Sequences must be non-empty, distinct,
 * and made of non-negative int32 tokens. `postings[i]`, when given, lists the paper
 * ordinals behind identifier i and is stored as is.
 */
export function buildTrie(sequences: readonly ArrayLike<number>[], postings?: readonly (readonly number[])[]): PrefixTrie {
  const n = sequences.length;
  let totalTokens = 0;
  let maxDepth = 0;
  for (let i = 0; i < n; i++) {
    const seq = sequences[i];
    if (seq.length === 0) throw new Error(`buildTrie: identifier ${i} is empty`);
    for (let k = 0; k < seq.length; k++) {
      const t = seq[k];
      if (!Number.isInteger(t) || t < 0 || t > 0x7fffffff) {
        throw new Error(`buildTrie: identifier ${i} has invalid token ${t}`);
      }
    }
    totalTokens += seq.length;
    if (seq.length > maxDepth) maxDepth = seq.length;
  }
  if (postings !== undefined && postings.length !== n) {
    throw new Error(`buildTrie: ${postings.length} posting lists for ${n} identifiers`);
  }

  // Sorted lexicographically (a prefix before its extensions), the identifiers under any
  // node form one contiguous run, so each node is just a [lo, hi) range of `order`.
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => compareSequences(sequences[a], sequences[b]) || a - b);

  const capacity = totalTokens + 1;
  const token = new Int32Array(capacity);
  const childStart = new Int32Array(capacity + 1);
  const identifier = new Int32Array(capacity).fill(-1);
  const lo = new Int32Array(capacity);
  const hi = new Int32Array(capacity);
  const depth = new Int32Array(capacity);
  token[0] = -1;
  hi[0] = n;
  let count = 1;

  // Breadth-first: children are appended in the order their parents are expanded, so each
  // node's children are consecutive and childStart is non-decreasing.
  for (let node = 0; node < count; node++) {
    const d = depth[node];
    let i = lo[node];
    const end = hi[node];
    if (i < end && sequences[order[i]].length === d) {
      identifier[node] = order[i];
      i += 1;
      if (i < end && sequences[order[i]].length === d) {
        throw new Error(`buildTrie: identifiers ${order[i - 1]} and ${order[i]} are identical`);
      }
    }
    childStart[node] = count;
    while (i < end) {
      const t = sequences[order[i]][d];
      let j = i + 1;
      while (j < end && sequences[order[j]][d] === t) j++;
      token[count] = t;
      lo[count] = i;
      hi[count] = j;
      depth[count] = d + 1;
      count += 1;
      i = j;
    }
  }
  childStart[count] = count;

  let postingStart: Int32Array | null = null;
  let postingArray: Int32Array | null = null;
  if (postings !== undefined) {
    postingStart = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) postingStart[i + 1] = postingStart[i] + postings[i].length;
    postingArray = new Int32Array(postingStart[n]);
    for (let i = 0; i < n; i++) {
      const list = postings[i];
      for (let k = 0; k < list.length; k++) {
        const p = list[k];
        if (!Number.isInteger(p) || p < 0 || p > 0x7fffffff) {
          throw new Error(`buildTrie: identifier ${i} has invalid paper ordinal ${p}`);
        }
        postingArray[postingStart[i] + k] = p;
      }
    }
  }

  return new PrefixTrie(token.slice(0, count), childStart.slice(0, count + 1), identifier.slice(0, count), n, maxDepth, postingStart, postingArray);
}

/** The trie of one facet's DocIDs, with each identifier's papers as postings. */
export function buildFacetTrie(docIds: FacetDocIds): PrefixTrie {
  return buildTrie(docIds.identifiers, docIds.papersOf);
}

/** One trie per facet, as the paper builds them ("four in total"). */
export function buildFacetTries(index: DocIdIndex): Record<Facet, PrefixTrie> {
  const tries = {} as Record<Facet, PrefixTrie>;
  for (const facet of FACETS) tries[facet] = buildFacetTrie(index.facets[facet]);
  return tries;
}

function serializedByteLength(trie: PrefixTrie): number {
  const n = trie.nodeCount;
  let words = n + (n + 1) + n;
  if (trie.postingStart !== null && trie.postings !== null) {
    words += trie.postingStart.length + trie.postings.length;
  }
  return TRIE_HEADER_BYTES + 4 * words;
}

/** The trie as one little-endian binary blob (see TRIE_HEADER_BYTES for the header). */
export function serializeTrie(trie: PrefixTrie): Buffer {
  const out = Buffer.alloc(serializedByteLength(trie));
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  out.write(TRIE_MAGIC, 0, "latin1");
  view.setUint32(8, TRIE_FORMAT_VERSION, true);
  view.setUint32(12, trie.hasPostings ? FLAG_POSTINGS : 0, true);
  view.setUint32(16, trie.nodeCount, true);
  view.setUint32(20, trie.identifierCount, true);
  view.setUint32(24, trie.postings?.length ?? 0, true);
  view.setUint32(28, trie.maxDepth, true);

  let offset = TRIE_HEADER_BYTES;
  const put = (section: Int32Array): void => {
    if (HOST_IS_LITTLE_ENDIAN) {
      // Buffer.alloc gives its own ArrayBuffer at byteOffset 0, so `offset` is 4-aligned.
      new Int32Array(out.buffer, out.byteOffset + offset, section.length).set(section);
    } else {
      for (let i = 0; i < section.length; i++) view.setInt32(offset + 4 * i, section[i], true);
    }
    offset += 4 * section.length;
  };
  put(trie.tokens);
  put(trie.childStart);
  put(trie.identifiers);
  if (trie.postingStart !== null && trie.postings !== null) {
    put(trie.postingStart);
    put(trie.postings);
  }
  return out;
}

export interface LoadTrieOptions {
  /**
   * Check every structural invariant (O(nodes), a few ms per million nodes) so a corrupt
   * file fails here rather than misguiding decoding. Default true.
   */
  verify?: boolean;
}

/**
 * A trie over `bytes` as produced by serializeTrie. Zero-copy: the arrays are Int32Array
 * views into `bytes`' memory, which must therefore not be modified afterwards. A section is
 * copied only when it cannot be viewed in place (a buffer not 4-byte aligned, or a
 * big-endian host).
 */
export function loadTrie(bytes: Uint8Array, options: LoadTrieOptions = {}): PrefixTrie {
  if (bytes.byteLength < TRIE_HEADER_BYTES) throw new Error("loadTrie: shorter than the header");
  const magic = Buffer.from(bytes.buffer, bytes.byteOffset, 8).toString("latin1");
  if (magic !== TRIE_MAGIC) throw new Error("loadTrie: not a Graft trie file (bad magic)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== TRIE_FORMAT_VERSION) {
    throw new Error(`loadTrie: format version ${version}, expected ${TRIE_FORMAT_VERSION}`);
  }
  const flags = view.getUint32(12, true);
  if ((flags & ~FLAG_POSTINGS) !== 0) throw new Error(`loadTrie: unknown flags ${flags}`);
  const nodeCount = view.getUint32(16, true);
  const identifierCount = view.getUint32(20, true);
  const postingCount = view.getUint32(24, true);
  const maxDepth = view.getUint32(28, true);
  const withPostings = (flags & FLAG_POSTINGS) !== 0;

  let words = 3 * nodeCount + 1;
  if (withPostings) words += identifierCount + 1 + postingCount;
  const expected = TRIE_HEADER_BYTES + 4 * words;
  if (bytes.byteLength !== expected) {
    throw new Error(`loadTrie: ${bytes.byteLength} bytes, header implies ${expected}`);
  }

  let offset = TRIE_HEADER_BYTES;
  const take = (length: number): Int32Array => {
    const at = bytes.byteOffset + offset;
    let section: Int32Array;
    if (HOST_IS_LITTLE_ENDIAN && at % 4 === 0) {
      section = new Int32Array(bytes.buffer, at, length);
    } else {
      section = new Int32Array(length);
      for (let i = 0; i < length; i++) section[i] = view.getInt32(offset + 4 * i, true);
    }
    offset += 4 * length;
    return section;
  };
  const tokens = take(nodeCount);
  const childStart = take(nodeCount + 1);
  const identifiers = take(nodeCount);
  const postingStart = withPostings ? take(identifierCount + 1) : null;
  const postings = withPostings ? take(postingCount) : null;

  const trie = new PrefixTrie(tokens, childStart, identifiers, identifierCount, maxDepth, postingStart, postings);
  if (options.verify ?? true) verifyTrie(trie);
  return trie;
}

/**
 * Throws when the arrays break an invariant the lookups rely on: breadth-first children
 * ranges that tile nodes 1..n-1, tokens strictly increasing among siblings, each identifier
 * at exactly one node, no empty identifier, depth <= maxDepth, postings well formed.
 */
export function verifyTrie(trie: PrefixTrie): void {
  const { tokens, childStart, identifiers, identifierCount } = trie;
  const n = trie.nodeCount;
  const fail = (why: string): never => {
    throw new Error(`verifyTrie: ${why}`);
  };
  if (tokens[0] !== -1) fail("root token must be -1");
  if (identifiers[0] !== -1) fail("the root cannot end an identifier");
  if (childStart[0] !== 1 && n > 1) fail("root's children must start at node 1");
  if (childStart[n] !== n) fail("childStart must end at nodeCount");
  const depth = new Int32Array(n);
  const seen = new Uint8Array(identifierCount);
  for (let node = 0; node < n; node++) {
    const start = childStart[node];
    const end = childStart[node + 1];
    // Breadth-first numbering puts every child after its parent.
    if (start > end || start <= node) fail(`bad child range of node ${node}`);
    for (let c = start; c < end; c++) {
      if (tokens[c] < 0) fail(`negative token at node ${c}`);
      if (c > start && tokens[c] <= tokens[c - 1]) fail(`children of node ${node} not sorted`);
      depth[c] = depth[node] + 1;
      if (depth[c] > trie.maxDepth) fail(`node ${c} deeper than maxDepth`);
    }
    const id = identifiers[node];
    if (id !== -1) {
      if (id < 0 || id >= identifierCount) fail(`identifier ${id} out of range`);
      if (seen[id] === 1) fail(`identifier ${id} at two nodes`);
      seen[id] = 1;
    } else if (start === end && node !== 0) {
      fail(`leaf ${node} ends no identifier`);
    }
  }
  for (let i = 0; i < identifierCount; i++) if (seen[i] !== 1) fail(`identifier ${i} unreachable`);
  if (trie.postingStart !== null && trie.postings !== null) {
    const ps = trie.postingStart;
    if (ps[0] !== 0 || ps[identifierCount] !== trie.postings.length) fail("bad posting offsets");
    for (let i = 0; i < identifierCount; i++) if (ps[i + 1] < ps[i]) fail("posting offsets decrease");
    for (let k = 0; k < trie.postings.length; k++) if (trie.postings[k] < 0) fail("negative posting");
  }
}

export function writeTrieFile(path: string, trie: PrefixTrie): void {
  writeFileSync(path, serializeTrie(trie));
}

/** Reads the file into one Buffer and views it (see loadTrie). */
export function readTrieFile(path: string, options: LoadTrieOptions = {}): PrefixTrie {
  return loadTrie(readFileSync(path), options);
}

export interface TrieStatistics {
  /** Nodes including the root. */
  nodes: number;
  /** Nodes excluding the root: what the paper's trie table reports as "Nodes". */
  nodesExcludingRoot: number;
  /** Nodes ending an identifier = distinct DocIDs: the paper's "Leaves" (one per DocID). */
  terminals: number;
  /** Nodes without children. */
  leaves: number;
  /** Terminal nodes that also have children (an identifier that prefixes another). */
  terminalsWithChildren: number;
  maxDepth: number;
  rootFanout: number;
  maxFanout: number;
  /** Bytes of the node arrays (token, childStart, identifier). */
  nodeBytes: number;
  /** nodeBytes / nodes. */
  bytesPerNode: number;
  /** Bytes of the postings (identifier -> papers), 0 without them. */
  postingBytes: number;
  /** Size of serializeTrie's output. */
  fileBytes: number;
}

export function trieStatistics(trie: PrefixTrie): TrieStatistics {
  const n = trie.nodeCount;
  let leaves = 0;
  let terminals = 0;
  let terminalsWithChildren = 0;
  let maxFanout = 0;
  for (let node = 0; node < n; node++) {
    const fanout = trie.childCount(node);
    if (fanout === 0) leaves += 1;
    if (fanout > maxFanout) maxFanout = fanout;
    if (trie.isTerminal(node)) {
      terminals += 1;
      if (fanout > 0) terminalsWithChildren += 1;
    }
  }
  const nodeBytes = trie.tokens.byteLength + trie.childStart.byteLength + trie.identifiers.byteLength;
  const postingBytes = (trie.postingStart?.byteLength ?? 0) + (trie.postings?.byteLength ?? 0);
  return {
    nodes: n,
    nodesExcludingRoot: n - 1,
    terminals,
    leaves,
    terminalsWithChildren,
    maxDepth: trie.maxDepth,
    rootFanout: trie.childCount(PrefixTrie.ROOT),
    maxFanout,
    nodeBytes,
    bytesPerNode: nodeBytes / n,
    postingBytes,
    fileBytes: serializedByteLength(trie),
  };
}
