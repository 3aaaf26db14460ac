/**
 * The identifier-scheme ablation's two baselines (paper §"Ablation studies: DocID
 * representation" and Appendix "Identifier Schemes and the Coverage Floor"): "Both baselines
 * create labels using hierarchical k-means clustering", which "assigns every paper a
 * root-to-leaf path".
 *
 * - numeric codebook: the path's cluster indices, then the paper's index inside its leaf, each
 *   index one Llama-3 digit token ("related papers share a prefix"; unique per paper);
 * - C2T cluster keywords: the same path, each cluster replaced by a keyword of its members,
 *   cut to 12 tokens ("papers under a leaf collide").
 *
 * Both are per paper, not per item: every item of a paper, in every facet, maps to the
 * paper's identifier, and every facet's trie holds the same identifiers. They produce a
 * DocIdIndex like the facet-item bullets' (lib/genret/docid.ts), so vocabulary, tries,
 * distillation, pack and model files go through prepare.ts unchanged.
 */
import { FACETS, type Facet, type FacetLists } from "@/lib/corpus";
import { ENGLISH_STOPWORDS, OVERLAP_STOPWORDS, tokenize, decodeTokens, encodeDocIdTokens } from "@/lib/text";
import type { PackedFacetItems } from "@/lib/graph";
import { mulberry32 } from "@/lib/random";
import { DOCID_MAX_TOKENS, postingCounts, type DocIdIndex, type FacetDocIds, buildIdentifiers, identifiersFromIndex, type Identifiers } from "@/lib/genret";

export const DOCID_SCHEMES = ["bullet", "numeric", "c2t"] as const;
export type DocIdScheme = (typeof DOCID_SCHEMES)[number];

/** Branching factor k of the hierarchical k-means. */
export const CLUSTER_BRANCHING = 10;
/** A cluster with at most this many papers is a leaf (so a leaf index is one digit). */
export const CLUSTER_LEAF_SIZE = 10;
/** Lloyd iterations per node (fewer when the assignment stops changing). */
export const KMEANS_ITERATIONS = 25;

// ── k-means ──

export interface KMeansOptions {
  seed?: number;
  iterations?: number;
}

function squaredDistance(data: Float32Array, row: number, centroids: Float64Array, c: number, dim: number): number {
  let s = 0;
  const a = row * dim;
  const b = c * dim;
  for (let d = 0; d < dim; d++) {
    const x = data[a + d] - centroids[b + d];
    s += x * x;
  }
  return s;
}

/**
 * Lloyd's k-means (squared Euclidean) over the rows `rows` of a row-major `data` matrix,
 * seeded k-means++ initialisation. Returns each row's cluster (parallel to `rows`) and the
 * number of clusters, renumbered 0..count-1 in initialisation order with empty ones dropped.
 * Fewer than k clusters come back when the rows have fewer than k distinct points (k-means++
 * stops once every row coincides with a centroid). Ties go to the lower centroid, and an
 * emptied cluster keeps its centroid, so the result is a function of (data, rows, k, seed).
 */
export function kMeans(
  data: Float32Array,
  dim: number,
  rows: ArrayLike<number>,
  k: number,
  options: KMeansOptions = {},
): { assignment: Int32Array; count: number } {
  const n = rows.length;
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  const assignment = new Int32Array(n);
  if (n === 0) return { assignment, count: 0 };
  const rand = mulberry32(options.seed ?? 0);
  const iterations = options.iterations ?? KMEANS_ITERATIONS;
  const centroids = new Float64Array(Math.min(k, n) * dim);
  const setCentroid = (c: number, row: number): void => {
    for (let d = 0; d < dim; d++) centroids[c * dim + d] = data[row * dim + d];
  };

  // k-means++: the first centre uniformly, each next one with probability ∝ D².
  setCentroid(0, rows[Math.floor(rand() * n)]);
  let centres = 1;
  const nearest = new Float64Array(n).fill(Infinity);
  while (centres < Math.min(k, n)) {
    let total = 0;
    for (let i = 0; i < n; i++) {
      const dd = squaredDistance(data, rows[i], centroids, centres - 1, dim);
      if (dd < nearest[i]) nearest[i] = dd;
      total += nearest[i];
    }
    if (total <= 0) break;
    let target = rand() * total;
    let pick = n - 1;
    for (let i = 0; i < n; i++) {
      target -= nearest[i];
      if (target < 0) {
        pick = i;
        break;
      }
    }
    setCentroid(centres++, rows[pick]);
  }

  const sums = new Float64Array(centres * dim);
  const sizes = new Int32Array(centres);
  assignment.fill(-1);
  for (let it = 0; it < Math.max(1, iterations); it++) {
    let changed = false;
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bestD = Infinity;
      for (let c = 0; c < centres; c++) {
        const dd = squaredDistance(data, rows[i], centroids, c, dim);
        if (dd < bestD) {
          bestD = dd;
          best = c;
        }
      }
      if (assignment[i] !== best) {
        assignment[i] = best;
        changed = true;
      }
    }
    if (!changed) break;
    sums.fill(0);
    sizes.fill(0);
    for (let i = 0; i < n; i++) {
      const c = assignment[i];
      sizes[c] += 1;
      const a = rows[i] * dim;
      for (let d = 0; d < dim; d++) sums[c * dim + d] += data[a + d];
    }
    for (let c = 0; c < centres; c++) {
      if (sizes[c] === 0) continue;
      for (let d = 0; d < dim; d++) centroids[c * dim + d] = sums[c * dim + d] / sizes[c];
    }
  }

  const used = new Uint8Array(centres);
  for (let i = 0; i < n; i++) used[assignment[i]] = 1;
  const renumber = new Int32Array(centres);
  let count = 0;
  for (let c = 0; c < centres; c++) renumber[c] = used[c] ? count++ : -1;
  for (let i = 0; i < n; i++) assignment[i] = renumber[assignment[i]];
  return { assignment, count };
}

// ── the cluster tree ──

export interface ClusterNode {
  /** Paper ordinals under this node, ascending. */
  members: number[];
  /** Child clusters in cluster-index order; empty for a leaf. */
  children: ClusterNode[];
}

export interface ClusterTree {
  root: ClusterNode;
  /** Per paper: the child index taken at each level from the root to its leaf. */
  paths: number[][];
  /** Per paper: its index inside its leaf (members in corpus order). */
  leafIndex: number[];
}

export interface ClusterTreeOptions extends KMeansOptions {
  branching?: number;
  leafSize?: number;
}

/** A node's k-means seed from the run's seed and the node's path, so a subtree's clustering does not depend on its siblings'. */
function nodeSeed(seed: number, path: readonly number[]): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (const c of path) h = Math.imul(h ^ (c + 1), 0x01000193) >>> 0;
  return h;
}

/** Per-paper embeddings: the mean of the paper's facet-item vectors over all facets, L2-normalised (zero for a paper without items). */
export function paperEmbeddings(items: Record<Facet, PackedFacetItems>): { data: Float32Array; dim: number; numPapers: number } {
  const dim = items[FACETS[0]].dim;
  const numPapers = items[FACETS[0]].offsets.length - 1;
  const data = new Float32Array(numPapers * dim);
  const acc = new Float64Array(dim);
  for (let p = 0; p < numPapers; p++) {
    acc.fill(0);
    for (const f of FACETS) {
      const it = items[f];
      if (it.dim !== dim || it.offsets.length !== numPapers + 1)
        throw new Error(`paperEmbeddings: facet ${f} does not match ${FACETS[0]} (dim or paper count)`);
      for (let r = it.offsets[p]; r < it.offsets[p + 1]; r++) for (let d = 0; d < dim; d++) acc[d] += it.data[r * dim + d];
    }
    let ss = 0;
    for (let d = 0; d < dim; d++) ss += acc[d] * acc[d];
    // The mean's direction is the sum's; normalising the sum skips the division.
    const inv = ss > 0 ? 1 / Math.sqrt(ss) : 0;
    for (let d = 0; d < dim; d++) data[p * dim + d] = acc[d] * inv;
  }
  return { data, dim, numPapers };
}

/**
 * Hierarchical k-means: split a node with more than `leafSize` papers into at most
 * `branching` clusters, recursively. When k-means cannot split a node (all its papers
 * coincide, e.g. papers without items), it is cut into `branching` consecutive runs of its
 * members instead, so recursion always ends and every leaf holds at most `leafSize` papers.
 */
export function buildClusterTree(data: Float32Array, dim: number, numPapers: number, options: ClusterTreeOptions = {}): ClusterTree {
  const branching = options.branching ?? CLUSTER_BRANCHING;
  const leafSize = options.leafSize ?? CLUSTER_LEAF_SIZE;
  const seed = options.seed ?? 0;
  if (!Number.isInteger(branching) || branching < 2 || branching > 10)
    throw new RangeError(`branching must be an integer in 2..10 (one digit per level), got ${branching}`);
  if (!Number.isInteger(leafSize) || leafSize < 1 || leafSize > 10)
    throw new RangeError(`leafSize must be an integer in 1..10 (one digit per leaf index), got ${leafSize}`);
  if (data.length !== numPapers * dim) throw new Error(`buildClusterTree: ${data.length} floats for ${numPapers} papers of dim ${dim}`);
  const paths: number[][] = Array.from({ length: numPapers }, () => []);
  const leafIndex = new Array<number>(numPapers).fill(-1);

  const split = (members: number[], path: number[]): ClusterNode => {
    if (members.length <= leafSize) {
      members.forEach((p, i) => {
        paths[p] = [...path];
        leafIndex[p] = i;
      });
      return { members, children: [] };
    }
    const { assignment, count } = kMeans(data, dim, members, branching, { seed: nodeSeed(seed, path), iterations: options.iterations });
    let groups: number[][];
    if (count >= 2) {
      groups = Array.from({ length: count }, () => []);
      members.forEach((p, i) => groups[assignment[i]].push(p));
    } else {
      const run = Math.ceil(members.length / branching);
      groups = [];
      for (let i = 0; i < members.length; i += run) groups.push(members.slice(i, i + run));
    }
    return { members, children: groups.map((g, c) => split(g, [...path, c])) };
  };
  const root = split(
    Array.from({ length: numPapers }, (_, p) => p),
    [],
  );
  return { root, paths, leafIndex };
}

// ── identifiers ──

/** What the baseline schemes read of a corpus (node order throughout). */
export interface SchemeCorpus {
  ids: string[];
  /** Facet item texts (C2T keywords; item counts must match `items`). */
  facets: FacetLists[];
  titles: string[];
  /** Item vectors per facet (lib/genret/corpus-files loadGenretCorpusFiles(...).data.items). */
  items: Record<Facet, PackedFacetItems>;
}

/** The Llama-3 token of each digit 0-9, checked to be a single token. */
export function digitTokens(): number[] {
  return Array.from({ length: 10 }, (_, d) => {
    const t = encodeDocIdTokens(String(d));
    if (t.length !== 1) throw new Error(`the digit "${d}" is ${t.length} Llama-3 tokens, not one`);
    return t[0];
  });
}

/**
 * A DocIdIndex in which every item of paper p in every facet has p's identifier
 * `tokensOf[p]`. Identifiers are numbered in corpus order of their first paper and shared
 * ones keep every paper (the same in each facet); `truncated[p]` marks papers whose
 * identifier was cut, counted per item as docid.ts counts cut items.
 */
export function perPaperDocIdIndex(
  corpus: Pick<SchemeCorpus, "ids" | "items">,
  tokensOf: readonly (readonly number[])[],
  maxTokens: number,
  truncated?: readonly boolean[],
): DocIdIndex {
  const n = corpus.ids.length;
  if (tokensOf.length !== n) throw new Error(`perPaperDocIdIndex: ${tokensOf.length} identifiers for ${n} papers`);
  if (new Set(corpus.ids).size !== n) throw new Error("perPaperDocIdIndex: duplicate external ids");
  const identifiers: number[][] = [];
  const papersOf: number[][] = [];
  const idOf = new Int32Array(n);
  const byKey = new Map<string, number>();
  tokensOf.forEach((tokens, p) => {
    if (tokens.length === 0 || tokens.length > maxTokens)
      throw new Error(`paper ${corpus.ids[p]}: identifier of ${tokens.length} tokens (1..${maxTokens} allowed)`);
    const key = tokens.join(",");
    let id = byKey.get(key);
    if (id === undefined) {
      id = identifiers.length;
      byKey.set(key, id);
      identifiers.push([...tokens]);
      papersOf.push([]);
    }
    papersOf[id].push(p);
    idOf[p] = id;
  });
  const facets = {} as Record<Facet, FacetDocIds>;
  for (const f of FACETS) {
    const offsets = corpus.items[f].offsets;
    if (offsets.length !== n + 1) throw new Error(`perPaperDocIdIndex: ${f} items cover ${offsets.length - 1} papers, corpus ${n}`);
    const itemIdentifiers: number[][] = [];
    let truncatedItemCount = 0;
    for (let p = 0; p < n; p++) {
      const count = offsets[p + 1] - offsets[p];
      itemIdentifiers.push(new Array<number>(count).fill(idOf[p]));
      if (truncated?.[p]) truncatedItemCount += count;
    }
    // Arrays are shared between facets: nothing downstream mutates them.
    facets[f] = { facet: f, identifiers, papersOf, itemIdentifiers, itemCount: offsets[n], emptyItemCount: 0, truncatedItemCount };
  }
  return { maxTokens, paperIds: [...corpus.ids], facets };
}

/** Numeric codebook: path cluster indices then the leaf index, one digit token each; unique per paper. */
export function numericDocIdIndex(corpus: Pick<SchemeCorpus, "ids" | "items">, tree: ClusterTree): DocIdIndex {
  const digits = digitTokens();
  const tokens = tree.paths.map((path, p) => [...path, tree.leafIndex[p]].map((d) => digits[d]));
  const maxTokens = tokens.reduce((m, t) => Math.max(m, t.length), 1);
  return perPaperDocIdIndex(corpus, tokens, maxTokens);
}

// ── C2T keywords ──

/** Both stopword lists of lib/text/analyzer: the function words and the offline extractor's, which adds paper boilerplate ("paper", "using", "based"). */
const KEYWORD_STOPWORDS: ReadonlySet<string> = new Set([...ENGLISH_STOPWORDS, ...OVERLAP_STOPWORDS]);

/** Content words of a text: the analyzer's BM25 tokenize (lowercased letter/digit runs) without stopwords, words shorter than 3 or pure numbers. */
export function keywordTerms(text: string): string[] {
  return tokenize(text, { stopwords: KEYWORD_STOPWORDS, minLength: 3 }).filter((w) => !/^\p{N}+$/u.test(w));
}

/** Candidates kept per cluster for the distinct-keyword assignment. */
const KEYWORD_CANDIDATES = 32;

/**
 * One keyword per child cluster of a node. Score of word w for child C under parent P:
 *
 *   tf-idf(w, C) = df_C(w)/|C| · ln(1 + |P| / df_P(w)),
 *
 * df = how many member papers (title + facet items) contain w. Why this form:
 * - the idf is taken over the parent's papers, i.e. against the siblings, not the corpus:
 *   in a prefix trie the decoder chooses among a node's children, so a keyword has to tell
 *   a cluster from its siblings; corpus-wide idf would let every child of a "translation"
 *   node pick the same topical word, which separates nothing at that step;
 * - tf is the share of members containing the word, not raw counts, so one long paper
 *   repeating a word cannot name its cluster;
 * - the +1 keeps words present in every sibling positive, so a node with one child (the
 *   corpus as a single leaf) gets its most common word.
 * Siblings get distinct keywords (and none repeats an ancestor's), assigned greedily by
 * score, so the trie branches exactly as the tree does. Ties, common in small clusters where
 * many words are in every member and nowhere else under the parent, go to the word in fewer
 * papers of the corpus (`corpusDf`; the more specific word, not "also" or "achieves"), then
 * to the alphabetically first. A cluster without any content word left falls back to its
 * index as a digit string.
 */
export function childKeywords(
  memberTerms: readonly (readonly number[])[],
  vocab: readonly string[],
  children: readonly (readonly number[])[],
  exclude: ReadonlySet<number> = new Set(),
  corpusDf?: ArrayLike<number>,
): string[] {
  const V = vocab.length;
  const dfs = children.map((members) => {
    const df = new Int32Array(V);
    for (const p of members) for (const w of memberTerms[p]) df[w] += 1;
    return df;
  });
  const dfParent = new Int32Array(V);
  let parentSize = 0;
  children.forEach((members, c) => {
    parentSize += members.length;
    const df = dfs[c];
    for (let w = 0; w < V; w++) dfParent[w] += df[w];
  });
  const candidates = children.map((members, c) => {
    const df = dfs[c];
    const scored: { w: number; score: number }[] = [];
    for (let w = 0; w < V; w++) {
      if (df[w] === 0 || exclude.has(w)) continue;
      scored.push({ w, score: (df[w] / members.length) * Math.log(1 + parentSize / dfParent[w]) });
    }
    const rarer = (a: number, b: number): number => (corpusDf ? corpusDf[a] - corpusDf[b] : 0);
    scored.sort((a, b) => b.score - a.score || rarer(a.w, b.w) || (vocab[a.w] < vocab[b.w] ? -1 : vocab[a.w] > vocab[b.w] ? 1 : 0));
    return scored.slice(0, KEYWORD_CANDIDATES);
  });
  const chosen: (string | null)[] = children.map(() => null);
  const used = new Set<number>();
  for (let round = 0; round < children.length; round++) {
    let best: { c: number; w: number; score: number } | null = null;
    for (let c = 0; c < children.length; c++) {
      if (chosen[c] !== null) continue;
      const top = candidates[c].find((x) => !used.has(x.w));
      if (top && (best === null || top.score > best.score)) best = { c, ...top };
    }
    if (best === null) break;
    chosen[best.c] = vocab[best.w];
    used.add(best.w);
  }
  return chosen.map((k, c) => k ?? String(c));
}

/**
 * C2T: per paper, the keywords of the clusters on its root-to-leaf path (the root, the whole
 * corpus, has none unless it is itself the leaf), joined by spaces and cut to `maxTokens`
 * Llama-3 tokens like the bullet DocIDs. Papers under one leaf share an identifier.
 */
export function c2tKeywordPaths(corpus: Pick<SchemeCorpus, "facets" | "titles">, tree: ClusterTree): string[][] {
  const vocabIndex = new Map<string, number>();
  const vocab: string[] = [];
  const memberTerms = corpus.titles.map((title, p) => {
    const text = [title, ...FACETS.flatMap((f) => corpus.facets[p]?.[f] ?? [])].join("\n");
    const ids = new Set<number>();
    for (const w of keywordTerms(text)) {
      let id = vocabIndex.get(w);
      if (id === undefined) {
        id = vocab.length;
        vocabIndex.set(w, id);
        vocab.push(w);
      }
      ids.add(id);
    }
    return [...ids].sort((a, b) => a - b);
  });
  const corpusDf = new Int32Array(vocab.length);
  for (const terms of memberTerms) for (const w of terms) corpusDf[w] += 1;
  const keywordsOf: string[][] = corpus.titles.map(() => []);
  const walk = (node: ClusterNode, path: string[]): void => {
    if (node.children.length === 0) {
      for (const p of node.members) keywordsOf[p] = path;
      return;
    }
    const exclude = new Set(path.map((w) => vocabIndex.get(w)).filter((w): w is number => w !== undefined));
    const words = childKeywords(
      memberTerms,
      vocab,
      node.children.map((c) => c.members),
      exclude,
      corpusDf,
    );
    node.children.forEach((child, c) => walk(child, [...path, words[c]]));
  };
  if (tree.root.children.length === 0) {
    walk({ members: tree.root.members, children: [tree.root] }, []);
  } else {
    walk(tree.root, []);
  }
  return keywordsOf;
}

export function c2tDocIdIndex(
  corpus: Pick<SchemeCorpus, "ids" | "items" | "facets" | "titles">,
  tree: ClusterTree,
  maxTokens: number = DOCID_MAX_TOKENS,
): DocIdIndex {
  const truncated: boolean[] = [];
  const tokens = c2tKeywordPaths(corpus, tree).map((words) => {
    const full = encodeDocIdTokens(words.join(" "));
    truncated.push(full.length > maxTokens);
    return full.slice(0, maxTokens);
  });
  return perPaperDocIdIndex(corpus, tokens, maxTokens, truncated);
}

// ── one entry point for the pack script ──

export interface SchemeIdentifiers {
  scheme: DocIdScheme;
  identifiers: Identifiers;
  /** The cluster tree (numeric and C2T). */
  tree?: ClusterTree;
}

export function isDocIdScheme(s: string): s is DocIdScheme {
  return (DOCID_SCHEMES as readonly string[]).includes(s);
}

/** Identifiers of a corpus under a scheme; the baselines' tree is built with `options` (default k = 10, leaves ≤ 10, seed 0). */
export function schemeIdentifiers(scheme: DocIdScheme, corpus: SchemeCorpus, options: ClusterTreeOptions = {}): SchemeIdentifiers {
  if (scheme === "bullet") return { scheme, identifiers: buildIdentifiers(corpus) };
  FACETS.forEach((f) => {
    const offsets = corpus.items[f].offsets;
    corpus.facets.forEach((lists, p) => {
      const n = lists?.[f]?.length ?? 0;
      if (offsets[p + 1] - offsets[p] !== n) throw new Error(`paper ${corpus.ids[p]}: ${n} ${f} items but ${offsets[p + 1] - offsets[p]} item vectors`);
    });
  });
  const emb = paperEmbeddings(corpus.items);
  if (emb.numPapers !== corpus.ids.length) throw new Error(`item vectors cover ${emb.numPapers} papers, corpus ${corpus.ids.length}`);
  const tree = buildClusterTree(emb.data, emb.dim, emb.numPapers, options);
  const index = scheme === "numeric" ? numericDocIdIndex(corpus, tree) : c2tDocIdIndex(corpus, tree);
  return { scheme, identifiers: identifiersFromIndex(index), tree };
}

// ── statistics ──

export interface IdentifierShape {
  distinctIdentifiers: number;
  /** Identifiers shared by more than one paper. */
  collisions: number;
  /** Papers behind a shared identifier. */
  papersInCollisions: number;
  maxPapersPerIdentifier: number;
  /** Tokens per distinct identifier. */
  meanTokens: number;
  maxTokens: number;
}

/** Shape of one facet's identifiers (for the baselines every facet is the same). */
export function identifierShape(ids: FacetDocIds): IdentifierShape {
  const { collisions, papersInCollisions, maxPapers } = postingCounts(ids.papersOf);
  let tokens = 0;
  let maxTokens = 0;
  for (const id of ids.identifiers) {
    tokens += id.length;
    maxTokens = Math.max(maxTokens, id.length);
  }
  const n = ids.identifiers.length;
  return { distinctIdentifiers: n, collisions, papersInCollisions, maxPapersPerIdentifier: maxPapers, meanTokens: n === 0 ? 0 : tokens / n, maxTokens };
}

export interface TreeShape {
  nodes: number;
  leaves: number;
  maxDepth: number;
  /** Mean leaf depth over papers (levels below the root). */
  meanPaperDepth: number;
  meanLeafSize: number;
}

export function treeShape(tree: ClusterTree): TreeShape {
  let nodes = 0;
  let leaves = 0;
  let maxDepth = 0;
  const visit = (node: ClusterNode, depth: number): void => {
    nodes += 1;
    if (node.children.length === 0) {
      leaves += 1;
      maxDepth = Math.max(maxDepth, depth);
    }
    for (const c of node.children) visit(c, depth + 1);
  };
  visit(tree.root, 0);
  const n = tree.paths.length;
  return {
    nodes,
    leaves,
    maxDepth,
    meanPaperDepth: n === 0 ? 0 : tree.paths.reduce((s, p) => s + p.length, 0) / n,
    meanLeafSize: leaves === 0 ? 0 : n / leaves,
  };
}

/** Identifier text of a paper's first identifier in a facet (for examples), or null. */
export function identifierText(index: DocIdIndex, facet: Facet, paper: number): string | null {
  const id = index.facets[facet].itemIdentifiers[paper]?.find((i) => i >= 0);
  return id === undefined ? null : decodeTokens(index.facets[facet].identifiers[id]);
}
