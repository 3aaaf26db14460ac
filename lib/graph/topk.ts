/**
 * Exact top-K edges per paper per facet over all pairs, on onnxruntime-node (CPU).
 *
 * Max-sim needs item-level similarities, but papers have 1-5 items. Instead of padding every
 * paper to the largest count (wasting FLOPs and needing -inf masks), papers are grouped by item
 * count n, so a chunk of b papers is a dense [b·n, d] matrix with no padding at all, and for a
 * chunk pair (q, t) one small ONNX graph computes the facet scores and their row and column
 * top-K (maxsim-onnx.ts builds it, maxsim-engine.ts runs it). s_f is symmetric, so only chunk pairs
 * q ≤ t are computed: the row top-K serves the q papers and the column top-K the t papers,
 * halving the work. Per-block lists are merged in JS into a bounded heap per paper.
 *
 * Edges are ranked by w = α s + β c, not by s. Exactness over all pairs comes from two lists
 * per paper: (1) its top-K by s, and (2) its top-K by w among citation-linked papers (c > 0),
 * whose s the kernel gathers from the same block scores (Gather on a list of pair indices, so
 * no score matrix leaves onnxruntime and no s is recomputed in JS). A pair in the final top-K
 * is either linked, hence in (2), or unlinked with w = α s, hence in (1): otherwise K papers
 * would beat it on s and so on w. A candidate of (1) missing from a full list (2) is treated as
 * unlinked; if it was linked but evicted from (2), K linked papers outrank it, so it cannot
 * make the cut either way. (The paper prunes 100 facet-score candidates to 20 edges; this
 * makes that exact with K candidates.)
 *
 * Files: onnx-proto.ts (the ONNX encoder) → maxsim-onnx.ts (the block kernel) → maxsim-engine.ts
 * (chunk layout, sessions) and topk-accumulator.ts (bounded heaps) → this file (the all-pairs and
 * query passes, edges, the typed graph).
 */
import { FACETS, type Facet } from "@/lib/corpus";
import type { CitationRows } from "./citation-score";
import { FacetRowWriter, type FacetCsr, type PaperGraph } from "./csr";
import { DEFAULT_EDGE_WEIGHT, type EdgeWeightParams } from "./edge-weight";
import type { LexicalIndex, SparseVector } from "./lexical";
import { itemsOfPaper, maxSimFacetScore, maxSimOneToMany, numPapersOf, type PackedFacetItems } from "./maxsim";
import { type BlockResult, type BlockSide, type FacetBlocks, type FacetChunk, MaxSimEngine, NO_PAIRS, prepareFacetBlocks } from "./maxsim-engine";
import { MIX_CANDIDATES, mixScore } from "./similarity";
import { type RankedNeighbours, TopKAccumulator } from "./topk-accumulator";

// The engine and heap types callers of the top-K passes use, re-exported so that lib/retrieve
// and scripts/eval (other engineers' folders) keep importing them from here.
export { type FacetBlocks, MaxSimEngine, prepareFacetBlocks } from "./maxsim-engine";
export type { RankedNeighbours } from "./topk-accumulator";

// ---------------------------------------------------------------------------------------------
// All-pairs facet scores.

export interface KernelStats {
  /** Floating-point operations of the item-level products actually executed (2·rows·cols·dim). */
  flops: number;
  /** Same for a non-symmetric all-pairs pass (every ordered item pair), for comparison. */
  denseFlops: number;
  seconds: number;
  /** Of `seconds`, the time inside onnxruntime runs (the rest is JS: citation rows, merging). */
  onnxSeconds: number;
  blocks: number;
  /** Citation-linked pairs whose s was gathered in the kernel. */
  linkedPairs: number;
}

export interface FacetTopKOptions extends Partial<EdgeWeightParams> {
  /** Neighbours kept per paper (both lists). */
  k: number;
  /** Citation rows: when given, the linked list (2) of the header is built too. */
  citations?: CitationRows | null;
  chunkItems?: number;
  engine?: MaxSimEngine;
  threads?: number;
  /** Called after every block with (done, total). */
  onProgress?: (done: number, total: number) => void;
  /**
   * Only chunk rows [from, to) of the pass: the blocks (i, j ≥ i) for i in the range, plus, where
   * the range ends at the last chunk, the linked pairs of papers without items. One shard of a
   * sharded build (shards.ts); merging every shard's lists gives the whole pass's lists.
   */
  chunkRows?: { from: number; to: number };
}

export interface FacetTopK {
  /** Each paper's top-k by facet score s, self excluded. */
  neighbours: RankedNeighbours;
  /** Each paper's top-k citation-linked papers by w, aux = [s, c] (absent without citations). */
  linked: RankedNeighbours | null;
  stats: KernelStats;
}

/** Exact top-k by facet score (and top-k linked by edge weight) for every paper of one facet. */
export async function facetTopK(items: PackedFacetItems, options: FacetTopKOptions): Promise<FacetTopK> {
  const blocks = prepareFacetBlocks(items, options.chunkItems);
  const engine = options.engine ?? (await MaxSimEngine.create({ threads: options.threads }));
  try {
    return await facetTopKOnBlocks(blocks, engine, options);
  } finally {
    if (!options.engine) await engine.release();
  }
}

/** Growable typed buffers for the per-block linked pair lists. */
class PairBucket {
  flat = new Int32Array(64);
  src = new Int32Array(64);
  dst = new Int32Array(64);
  c = new Float32Array(64);
  length = 0;
  push(flat: number, src: number, dst: number, c: number): void {
    if (this.length === this.flat.length) {
      const grow = <T extends Int32Array | Float32Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      this.flat = grow(this.flat, (n) => new Int32Array(n));
      this.src = grow(this.src, (n) => new Int32Array(n));
      this.dst = grow(this.dst, (n) => new Int32Array(n));
      this.c = grow(this.c, (n) => new Float32Array(n));
    }
    this.flat[this.length] = flat;
    this.src[this.length] = src;
    this.dst[this.length] = dst;
    this.c[this.length] = c;
    this.length++;
  }
}

export async function facetTopKOnBlocks(blocks: FacetBlocks, engine: MaxSimEngine, options: FacetTopKOptions): Promise<FacetTopK> {
  const { k, onProgress } = options;
  const citations = options.citations ?? null;
  const alpha = options.alpha ?? DEFAULT_EDGE_WEIGHT.alpha;
  const beta = options.beta ?? DEFAULT_EDGE_WEIGHT.beta;
  const { chunks, dim, numPapers } = blocks;
  if (citations && citations.numPapers !== numPapers) throw new Error("facetTopK: citation rows cover a different paper count");
  const acc = new TopKAccumulator(numPapers, k);
  const linked = citations ? new TopKAccumulator(numPapers, k, 2) : null;
  const { chunkOf, localOf } = chunkPositions(chunks, numPapers);
  const started = performance.now();
  let flops = 0;
  let runs = 0;
  let linkedPairs = 0;
  let onnxMs = 0;
  const rowsFrom = options.chunkRows?.from ?? 0;
  const rowsTo = options.chunkRows?.to ?? chunks.length;
  if (rowsFrom < 0 || rowsTo > chunks.length || rowsFrom > rowsTo) throw new Error(`facetTopK: chunk rows ${rowsFrom}..${rowsTo} outside 0..${chunks.length}`);
  let total = 0;
  for (let i = rowsFrom; i < rowsTo; i++) total += chunks.length - i;
  let done = 0;
  let totalRows = 0;
  for (const c of chunks) totalRows += c.papers.length * c.itemsPerPaper;

  for (let i = rowsFrom; i < rowsTo; i++) {
    const q = chunks[i];
    const bq = q.numPapers;
    const buckets = citations && linked ? citationPairBuckets(chunks, i, citations, linked, chunkOf, localOf, beta) : [];
    for (let j = i; j < chunks.length; j++, done++) {
      const t = chunks[j];
      const bt = t.numPapers;
      const diagonal = i === j;
      // On the diagonal each row contains its own paper: ask for one more and drop it.
      const kRow = Math.min(diagonal ? k + 1 : k, bt);
      const kCol = diagonal ? 0 : Math.min(k, bq);
      if (k === 0 || (diagonal && bt === 1)) continue;
      const bucket = buckets[j];
      const pairs = bucket ? bucket.flat.subarray(0, bucket.length) : NO_PAIRS;
      const tRun = performance.now();
      const r = await engine.block(q, t, dim, kRow, kCol, diagonal, pairs);
      onnxMs += performance.now() - tRun;
      flops += 2 * bq * q.itemsPerPaper * bt * t.itemsPerPaper * dim;
      runs++;
      offerBlockLists(acc, q, t, r, kRow, kCol, diagonal);
      if (bucket && linked) {
        linkedPairs += bucket.length;
        offerLinkedPairs(linked, bucket, r, diagonal, alpha, beta);
      }
      onProgress?.(done + 1, total);
    }
  }
  // Papers without items never head a chunk: all their linked pairs have s = 0.
  if (citations && linked && rowsTo === chunks.length) {
    for (let p = 0; p < numPapers; p++) {
      if (chunkOf[p] >= 0) continue;
      const row = citations.row(p);
      for (let e = 0; e < row.targets.length; e++) linked.offer(p, row.targets[e], beta * row.scores[e], 0, row.scores[e]);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    neighbours: acc.finish(),
    linked: linked ? linked.finish() : null,
    stats: { flops, denseFlops: 2 * totalRows * totalRows * dim, seconds, onnxSeconds: onnxMs / 1000, blocks: runs, linkedPairs },
  };
}

/** Per paper, its chunk (−1 for a paper without items) and its row within the chunk. */
function chunkPositions(chunks: FacetBlocks["chunks"], numPapers: number): { chunkOf: Int32Array; localOf: Int32Array } {
  const chunkOf = new Int32Array(numPapers).fill(-1);
  const localOf = new Int32Array(numPapers);
  chunks.forEach((c, i) =>
    c.papers.forEach((p, l) => {
      chunkOf[p] = i;
      localOf[p] = l;
    }),
  );
  return { chunkOf, localOf };
}

/**
 * Citation rows of chunk i's papers, bucketed by the chunk of the other paper. A pair with a
 * chunk before i was already seen from that chunk's side; a paper without items has s = 0 with
 * everyone, so its pairs go straight to the linked list.
 */
function citationPairBuckets(
  chunks: FacetBlocks["chunks"],
  i: number,
  citations: CitationRows,
  linked: TopKAccumulator,
  chunkOf: Int32Array,
  localOf: Int32Array,
  beta: number,
): PairBucket[] {
  const q = chunks[i];
  const buckets: PairBucket[] = [];
  for (let j = i; j < chunks.length; j++) buckets[j] = new PairBucket();
  for (let a = 0; a < q.numPapers; a++) {
    const pa = q.papers[a];
    const row = citations.row(pa);
    for (let e = 0; e < row.targets.length; e++) {
      const b = row.targets[e];
      const j = chunkOf[b];
      const c = row.scores[e];
      if (j < 0) linked.offer(pa, b, beta * c, 0, c);
      else if (j >= i) buckets[j].push(a * chunks[j].numPapers + localOf[b], pa, b, c);
    }
  }
  return buckets;
}

/** A block's row lists (q papers against t) and column lists (t against q, off the diagonal) into the top-K. */
function offerBlockLists(acc: TopKAccumulator, q: FacetChunk, t: FacetChunk, r: BlockResult, kRow: number, kCol: number, diagonal: boolean): void {
  const floor = acc.floor;
  // Lists arrive best first, so the first value below a paper's floor ends its list.
  for (let a = 0; a < q.numPapers; a++) {
    const src = q.papers[a];
    for (let m = 0; m < kRow; m++) {
      const v = r.rowVals[a * kRow + m];
      if (v < floor[src]) break;
      const dst = t.papers[r.rowIdx[a * kRow + m]];
      if (dst !== src) acc.offer(src, dst, v);
    }
  }
  for (let b = 0; b < t.numPapers && !diagonal; b++) {
    const dst = t.papers[b];
    for (let m = 0; m < kCol; m++) {
      const v = r.colVals[b * kCol + m];
      if (v < floor[dst]) break;
      acc.offer(dst, q.papers[r.colIdx[b * kCol + m]], v);
    }
  }
}

/** A block's citation pairs, weighted w = αs + βc, into the linked lists (both papers' rows). */
function offerLinkedPairs(linked: TopKAccumulator, bucket: PairBucket, r: BlockResult, diagonal: boolean, alpha: number, beta: number): void {
  const lfloor = linked.floor;
  for (let e = 0; e < bucket.length; e++) {
    const s = r.pairVals[e];
    const c = bucket.c[e];
    const w = Math.fround(alpha * s + beta * c);
    const src = bucket.src[e];
    const dst = bucket.dst[e];
    if (w >= lfloor[src]) linked.offer(src, dst, w, s, c);
    // Diagonal pairs also appear in the other paper's row; off-diagonal ones only here.
    if (!diagonal && w >= lfloor[dst]) linked.offer(dst, src, w, s, c);
  }
}

/**
 * Top-k corpus papers by s_f for one query given by its item vectors: the ephemeral insertion
 * of an out-of-corpus paper (appendix "Ephemeral insertion"), the same max-sim against every
 * corpus item, then pruned. `exclude` drops one corpus paper, e.g. the query itself when it is
 * indexed. Citation scores, if the caller has any for the query, are combined by the caller.
 */
export async function queryFacetTopK(
  engine: MaxSimEngine,
  blocks: FacetBlocks,
  queryItems: readonly Float32Array[],
  k: number,
  exclude = -1,
): Promise<{ targets: Int32Array; scores: Float32Array }> {
  const acc = new TopKAccumulator(1, k);
  if (queryItems.length > 0 && k > 0) {
    const dim = blocks.dim;
    const q = new Float32Array(queryItems.length * dim);
    queryItems.forEach((v, i) => {
      if (v.length !== dim) throw new Error(`queryFacetTopK: vector of length ${v.length}, expected ${dim}`);
      q.set(v, i * dim);
    });
    const side: BlockSide = { itemsPerPaper: queryItems.length, numPapers: 1, data: q };
    for (const t of blocks.chunks) {
      const kRow = Math.min(k + 1, t.numPapers);
      const r = await engine.block(side, t, dim, kRow, 0, true);
      for (let m = 0; m < kRow; m++) {
        const dst = t.papers[r.rowIdx[m]];
        if (dst === exclude) continue;
        if (!acc.offer(0, dst, r.rowVals[m])) break;
      }
    }
  }
  const res = acc.finish();
  return { targets: res.targets, scores: res.scores };
}

/**
 * First-hop edges of an out-of-corpus query for the dense-graph walk (`walkFacet` start): the
 * top-k corpus papers by s, weighted α·s. The query has no co-citations and no corpus maxima
 * of its own, so the citation term is 0, as for unlinked pairs inside the corpus.
 */
export async function ephemeralEdges(
  engine: MaxSimEngine,
  blocks: FacetBlocks,
  queryItems: readonly Float32Array[],
  options: { k?: number; alpha?: number; exclude?: number } = {},
): Promise<{ targets: Int32Array; weights: Float32Array; exclude: number }> {
  const alpha = options.alpha ?? DEFAULT_EDGE_WEIGHT.alpha;
  const exclude = options.exclude ?? -1;
  const { targets, scores } = await queryFacetTopK(engine, blocks, queryItems, options.k ?? 20, exclude);
  return { targets, weights: scores.map((s) => alpha * s), exclude };
}

/** An unseen paper's items in one facet: unit embedding vectors and TF-IDF vectors, aligned. */
export interface QueryFacetItems {
  vectors: readonly Float32Array[];
  lexical: readonly SparseVector[];
}

/**
 * Top-k corpus papers by s_mix for one unseen paper (ephemeral insertion under a mix build):
 * the `candidates` best by s_cos and by s_lex, scored exactly with both. `exclude` is never
 * returned.
 */
export async function mixedQueryTopK(
  engine: MaxSimEngine,
  blocks: FacetBlocks,
  dense: PackedFacetItems,
  index: LexicalIndex,
  query: QueryFacetItems,
  options: {
    k: number;
    lexicalWeight: number;
    candidates?: number;
    exclude?: number;
    /** The best papers by s_cos when not queryFacetTopK over every item (an ANN index, lib/graph/ann.ts). */
    denseTopK?: (vectors: readonly Float32Array[], k: number, exclude: number) => Promise<{ targets: Int32Array; scores: Float32Array }>;
  },
): Promise<{ targets: Int32Array; scores: Float32Array }> {
  const wide = options.candidates ?? MIX_CANDIDATES;
  const exclude = options.exclude ?? -1;
  const denseTopK = options.denseTopK ?? ((vectors, n, ex) => queryFacetTopK(engine, blocks, vectors, n, ex));
  const cos = query.vectors.length > 0 ? await denseTopK(query.vectors, wide, exclude) : { targets: new Int32Array(0), scores: new Float32Array(0) };
  const lex = index.queryTopK(query.lexical, wide, exclude);
  const sCos = new Map<number, number>();
  cos.targets.forEach((b, i) => sCos.set(b, cos.scores[i]));
  for (const b of lex.targets) if (!sCos.has(b)) sCos.set(b, query.vectors.length > 0 ? maxSimFacetScore(query.vectors, itemsOfPaper(dense, b)) : 0);
  const sLex = new Map<number, number>();
  lex.targets.forEach((b, i) => sLex.set(b, lex.scores[i]));
  const scored = [...sCos].map(([b, c]) => [b, mixScore(options.lexicalWeight, c, sLex.get(b) ?? index.queryPairScore(query.lexical, b))] as const);
  scored.sort((x, y) => y[1] - x[1] || x[0] - y[0]);
  const top = scored.slice(0, options.k);
  return { targets: Int32Array.from(top, (t) => t[0]), scores: Float32Array.from(top, (t) => t[1]) };
}

/** Plain-JS reference: scores each paper against all others with maxSimOneToMany. O(N²) per facet. */
export function bruteForceFacetTopK(items: PackedFacetItems, k: number): RankedNeighbours {
  const n = numPapersOf(items);
  const acc = new TopKAccumulator(n, k);
  const rows: Float32Array[] = [];
  for (let p = 0; p < n; p++) {
    const a = items.offsets[p];
    const b = items.offsets[p + 1];
    if (a === b) continue;
    for (let r = a; r < b; r++) rows.push(items.data.subarray(r * items.dim, (r + 1) * items.dim));
    const scores = maxSimOneToMany(rows, items);
    rows.length = 0;
    for (let t = 0; t < n; t++) {
      if (t !== p && items.offsets[t + 1] > items.offsets[t]) acc.offer(p, t, scores[t]);
    }
  }
  return acc.finish();
}

// ---------------------------------------------------------------------------------------------
// Edges: top-k by w from the two lists.

export interface FacetEdgeOptions extends Partial<EdgeWeightParams> {
  k: number;
}

/**
 * One facet's pruned top-k edges as a CSR, rows ranked by w = α s + β c (ties: lower target
 * first), from the facet-score list and the linked list of `facetTopK` (see the header for why
 * this is exact). α and β must be the ones the linked list was ranked with.
 */
export function buildFacetEdges(result: Pick<FacetTopK, "neighbours" | "linked">, options: FacetEdgeOptions): FacetCsr {
  const { k } = options;
  const alpha = options.alpha ?? DEFAULT_EDGE_WEIGHT.alpha;
  const { neighbours: cand, linked } = result;
  const n = cand.numPapers;
  if (cand.k < k || (linked && linked.k < k)) throw new Error(`buildFacetEdges: lists hold fewer than k = ${k} per paper`);
  if (linked && (linked.numPapers !== n || linked.auxWidth !== 2)) throw new Error("buildFacetEdges: linked list does not match");
  const rows = new FacetRowWriter(n, k);
  const stamp = new Int32Array(n).fill(-1);
  const sOf = new Float32Array(n);
  const cOf = new Float32Array(n);
  const wOf = new Float64Array(n);
  const pool: number[] = [];
  for (let a = 0; a < n; a++) {
    pool.length = 0;
    if (linked) {
      for (let e = linked.offsets[a]; e < linked.offsets[a + 1]; e++) {
        const b = linked.targets[e];
        stamp[b] = a;
        wOf[b] = linked.scores[e];
        sOf[b] = linked.aux[2 * e];
        cOf[b] = linked.aux[2 * e + 1];
        pool.push(b);
      }
    }
    for (let e = cand.offsets[a]; e < cand.offsets[a + 1]; e++) {
      const b = cand.targets[e];
      if (stamp[b] === a) continue;
      sOf[b] = cand.scores[e];
      cOf[b] = 0;
      wOf[b] = alpha * sOf[b];
      pool.push(b);
    }
    pool.sort((x, y) => wOf[y] - wOf[x] || x - y);
    rows.writeRow(a, pool, wOf, sOf, cOf);
  }
  return rows.csr();
}

// ---------------------------------------------------------------------------------------------
// Whole typed graph.

export interface PaperGraphBuildOptions extends Partial<EdgeWeightParams> {
  /** Edges kept per paper per facet (the paper's K = 20). */
  k?: number;
  chunkItems?: number;
  threads?: number;
  onProgress?: (facet: Facet, done: number, total: number) => void;
  /**
   * Ranks one facet's edges from the kernel's lists instead of buildFacetEdges (a build whose
   * s_f is not the plain cosine max-sim rescores the candidates, see similarity.ts).
   */
  rankEdges?: (facet: Facet, lists: FacetTopK, k: number) => FacetCsr;
  /** One facet's lists from elsewhere instead of the in-process pass (a sharded build merges its block jobs' lists). */
  facetLists?: (facet: Facet, items: PackedFacetItems) => Promise<FacetTopK>;
}

export interface FacetBuildReport {
  facet: Facet;
  papers: number;
  items: number;
  kernel: KernelStats;
  /** Seconds spent ranking the two lists into edges. */
  edgeSeconds: number;
  edges: number;
}

/**
 * Builds the typed graph: per facet, the exact lists on onnxruntime, then the top-k edges by
 * edge weight. `citations` null gives a facet-similarity-only graph (c = 0 everywhere).
 */
export async function buildPaperGraph(
  facetItems: Partial<Record<Facet, PackedFacetItems>>,
  citations: CitationRows | null,
  options: PaperGraphBuildOptions = {},
): Promise<{ graph: PaperGraph; facets: FacetBuildReport[] }> {
  const k = options.k ?? 20;
  const entries = FACETS.filter((f) => facetItems[f] !== undefined).map((f) => [f, facetItems[f] as PackedFacetItems] as const);
  if (entries.length === 0) throw new Error("buildPaperGraph: no facets given");
  const numPapers = numPapersOf(entries[0][1]);
  const engine = options.facetLists ? null : await MaxSimEngine.create({ threads: options.threads });
  const facets: Partial<Record<Facet, FacetCsr>> = {};
  const reports: FacetBuildReport[] = [];
  try {
    for (const [facet, items] of entries) {
      if (numPapersOf(items) !== numPapers) throw new Error(`buildPaperGraph: facet ${facet} has a different paper count`);
      const lists = engine
        ? await facetTopKOnBlocks(prepareFacetBlocks(items, options.chunkItems), engine, {
            k,
            citations,
            alpha: options.alpha,
            beta: options.beta,
            onProgress: (d, t) => options.onProgress?.(facet, d, t),
          })
        : await (options.facetLists as NonNullable<PaperGraphBuildOptions["facetLists"]>)(facet, items);
      const t0 = performance.now();
      const csr = options.rankEdges ? options.rankEdges(facet, lists, k) : buildFacetEdges(lists, { k, alpha: options.alpha });
      facets[facet] = csr;
      reports.push({
        facet,
        papers: numPapers,
        items: items.offsets[numPapers],
        kernel: lists.stats,
        edgeSeconds: (performance.now() - t0) / 1000,
        edges: csr.targets.length,
      });
    }
  } finally {
    await engine?.release();
  }
  return { graph: { numPapers, k, facets }, facets: reports };
}
