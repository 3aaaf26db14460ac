import { readFileSync } from "node:fs";
import path from "node:path";
import { newestIntactBuildWith } from "@/lib/builds";
import { parseAuthors, FACETS, type Facet } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { dataRoot } from "@/lib/paths";
import { CachedRowReader, cacheDirFor, readVectorCacheKeys, textKey } from "@/lib/embed";
import { PackedTexts, PackedTextsBuilder } from "./packed-texts";
import {
  readPaperGraph,
  type PaperGraph,
  lexicalFacetIndex,
  parseLexicalModel,
  type LexicalFacetIndex,
  type PackedFacetItems,
  similarityOfParams,
  type ItemSimilarity,
  prepareFacetBlocks,
  type FacetBlocks,
} from "@/lib/graph";
import type { FacetBlockIndex } from "./ephemeral";
import { RetrievalError } from "./retriever";
import { itemsOf, memoMap, type FacetItemTexts, type IndexPaper, type RetrievalIndex } from "./retrieval-index";

// The serving side of a graph build, loaded once per process and shared by every request
// (CLI, HTTP API, web app). It follows the newest complete build: a new build is picked up
// atomically on the next request after it completes, and never half-written.
//
// Besides the CSR it holds a snapshot, taken when the build is loaded, of what every query
// needs per corpus paper: its display fields and its facet items with their vectors (from the
// build's vector cache). Queries then touch no database rows at all, and a re-import shows up
// with the next graph build, which is also when the graph itself would change.
//
// Memory at 64k papers (reports/scale.md, section 5): texts are packed UTF-8 outside V8's heap
// (a heap of small strings let V8 grow its heap by a multiple under queries), and the item
// vectors stay in the build's vector cache on disk until a path that reads all of them (the
// exact insertion blocks, the ANN, a mix build's dense side) asks; a query's few hundred
// candidates read theirs from the file (the page cache, not this process, holds them).

export interface GraphPaper extends IndexPaper {
  venue: string | null;
  authors: string[];
}

export type { FacetItemTexts };

/** A served build: the narrow index retrievers read (./retrieval-index.ts), and what the query pipeline shows. */
export interface LoadedGraph extends RetrievalIndex {
  build: number;
  corpus: string;
  /** Node index → external id / store id. */
  externalIds: string[];
  dbIds: number[];
  indexOfDbId: Map<number, number>;
  indexOfExternalId: Map<string, number>;
  /** Node index → display fields. */
  papers: GraphPaper[];
  /**
   * Per facet, the unit vectors of the items that have one (`items` holds only those), read from
   * the vector cache when a facet is first asked for (333 MB at 64k papers); a query's candidates
   * use `itemVectors`.
   */
  vectors: Record<Facet, PackedFacetItems>;
  beta: number;
  /** The embedder id of the build; query items must be embedded with it. */
  embedder: string;
  dim: number;
  /** Item vectors by exact text (the build's cache), for corpus and stored query papers. */
  vectorOf(text: string): Float32Array | undefined;
  /**
   * Each facet's block layout is built when first read; above the ANN threshold, dropped once the
   * facet's index (kept in the build directory) is ready. The memo's indexes are dropped with the build.
   */
  blocks(): FacetBlockIndex;
}

const cache = new Map<string, LoadedGraph>();
const loading = new Map<string, Promise<LoadedGraph>>();
// Look for a newer build at most this often per corpus (one cheap query).
const RECHECK_MS = 5_000;
const checked = new Map<string, number>();

/** The corpus has no graph to serve yet: a set-up step is missing, not a server fault. */
export class NoGraphBuildError extends RetrievalError {
  constructor(message: string) {
    super("not_ready", message);
    this.name = "NoGraphBuildError";
  }
}

export async function loadGraph(db: Db, corpus: string): Promise<LoadedGraph> {
  const now = Date.now();
  const held = cache.get(corpus);
  if (held && now - (checked.get(corpus) ?? 0) < RECHECK_MS) return held;
  // Concurrent first requests share one load instead of each reading the build.
  const inFlight = loading.get(corpus);
  if (inFlight) return inFlight;
  const p = (async () => {
    checked.set(corpus, now);
    // A damaged newer build (a truncated graph.csr, a file changed since) is skipped for the newest intact one.
    const build = await newestIntactBuildWith(db, corpus, "graph.csr", "graph");
    if (!build) throw new NoGraphBuildError(`corpus "${corpus}" has no graph build yet: run \`npm run graft -- build --stage graph --corpus ${corpus}\``);
    if (held && held.build === build.id) return held;
    const loaded = await readBuild(db, corpus, build);
    cache.set(corpus, loaded);
    return loaded;
  })();
  loading.set(corpus, p);
  try {
    return await p;
  } finally {
    loading.delete(corpus);
  }
}

/** Forgets every loaded build (tests that rebuild a corpus in one process). */
export function clearGraphCache(): void {
  cache.clear();
  checked.clear();
}

/** The vector cache's rows by key: open addressing over the cache's own key bytes (no string per key). */
class CacheRows {
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(
    private readonly keys: Uint8Array,
    count: number,
  ) {
    let size = 2;
    while (size < count * 2) size *= 2;
    this.mask = size - 1;
    this.slots = new Int32Array(size); // row + 1; 0 is an empty slot
    for (let row = 0; row < count; row++) this.slots[this.slotOf(keys, row * KEY_BYTES)] = row + 1;
  }

  /** The row of a key (32 bytes), or −1. */
  rowOf(key: Uint8Array): number {
    return this.slots[this.slotOf(key, 0)] - 1;
  }

  // The slot holding the key at key[at ..], or the empty slot where it would go.
  private slotOf(key: Uint8Array, at: number): number {
    // Keys are SHA-256 digests: their first bytes are already uniform.
    let s = (key[at] | (key[at + 1] << 8) | (key[at + 2] << 16) | (key[at + 3] << 24)) & this.mask;
    for (;;) {
      const held = this.slots[s];
      if (held === 0) return s;
      const o = (held - 1) * KEY_BYTES;
      let same = true;
      for (let b = 0; b < KEY_BYTES && same; b++) same = this.keys[o + b] === key[at + b];
      if (same) return s;
      s = (s + 1) & this.mask;
    }
  }
}
const KEY_BYTES = 32;

/** Display fields of every node, packed (one object per node would be ≈ 36 MiB of heap at 64k). */
interface PaperFields {
  externalIds: string[];
  titles: PackedTexts;
  /** NO_YEAR where the paper has none. */
  years: Int32Array;
  /** Index into venueNames, −1 for none. */
  venues: Int32Array;
  venueNames: string[];
  /** Node p's authors are authors.at(authorStart[p] .. authorStart[p + 1] − 1). */
  authors: PackedTexts;
  authorStart: Int32Array;
}
const NO_YEAR = -0x80000000;

/** A node's display fields, decoded when read. */
class ServedPaper implements GraphPaper {
  constructor(
    private readonly fields: PaperFields,
    private readonly node: number,
  ) {}
  get externalId(): string {
    return this.fields.externalIds[this.node];
  }
  get title(): string {
    return this.fields.titles.at(this.node);
  }
  get year(): number | null {
    const y = this.fields.years[this.node];
    return y === NO_YEAR ? null : y;
  }
  get venue(): string | null {
    const v = this.fields.venues[this.node];
    return v < 0 ? null : this.fields.venueNames[v];
  }
  get authors(): string[] {
    return this.fields.authors.slice(this.fields.authorStart[this.node], this.fields.authorStart[this.node + 1]);
  }
  toJSON(): GraphPaper {
    return { externalId: this.externalId, title: this.title, year: this.year, venue: this.venue, authors: this.authors };
  }
}

// A served build's open vector-cache file is closed once nothing holds the build any more.
const closeWhenCollected = new FinalizationRegistry<CachedRowReader>((reader) => reader.close());

type DisplayFields = { title: string; year: number | null; venue: string | null; authors: string[] };
/** A build's papers.json: node index → external id / store id. */
type NodeIds = { externalIds: string[]; dbIds: number[] };
// Bounds the number of bound parameters per query (SQLite and PostgreSQL).
const STEP = 500;

async function readBuild(db: Db, corpus: string, build: { id: number; dir: string; params: string; manifest: string }): Promise<LoadedGraph> {
  const dir = path.resolve(dataRoot(), build.dir);
  const graph = readPaperGraph(path.join(dir, "graph.csr"));
  const ids = JSON.parse(readFileSync(path.join(dir, "papers.json"), "utf8")) as NodeIds;
  const params = JSON.parse(build.params) as { alpha?: number; beta?: number; similarity?: unknown };
  const similarity = similarityOfParams(params);
  const manifest = JSON.parse(build.manifest) as { embedder?: { id?: string; dim?: number } };
  const embedder = manifest.embedder?.id ?? "";
  const vectorCache = openBuildVectors(corpus, embedder, manifest.embedder?.dim, () => loaded);
  const indexOfDbId = new Map(ids.dbIds.map((id, i) => [id, i]));
  const papers = await loadPaperFields(db, ids, indexOfDbId);
  const { items, itemRows } = await loadItemTexts(db, ids.dbIds, indexOfDbId, vectorCache.rowOfText);
  const { vectors, itemVectors } = facetVectors(items, itemRows, vectorCache);
  const loaded: LoadedGraph = {
    build: build.id,
    corpus,
    graph,
    externalIds: ids.externalIds,
    dbIds: ids.dbIds,
    indexOfDbId,
    indexOfExternalId: new Map(ids.externalIds.map((id, i) => [id, i])),
    papers,
    items,
    vectors,
    itemVectors,
    alpha: params.alpha ?? 0.75,
    beta: params.beta ?? 0.25,
    similarity,
    lexical: lazyLexicalIndex(dir, similarity, graph, items, ids.dbIds),
    embedder,
    dim: vectorCache.dim,
    vectorOf: vectorCache.vectorOf,
    blocks: lazyBlockIndex(dir, graph, vectors),
    memo: memoMap(),
  };
  return loaded;
}

/** A build's vector cache, read in place: rows by text, read into the caller's buffer. */
interface BuildVectors {
  dim: number;
  /** Whether the build names an embedder whose cache is there (else nothing is read). */
  present: boolean;
  /** The cache row of a text, or −1. */
  rowOfText(text: string): number;
  readRows(rowList: ArrayLike<number>, into: Float32Array): void;
  vectorOf(text: string): Float32Array | undefined;
}

/**
 * The cache's vectors stay on disk: a facet's items are packed (read row by row) when a path
 * needing all of them first asks, a candidate's are read when scored, and any other cached
 * text's when asked for. The file is opened at the first read and closed once `owner()` (the
 * loaded build) is collected.
 */
function openBuildVectors(corpus: string, embedder: string, manifestDim: number | undefined, owner: () => object): BuildVectors {
  const cacheDir = embedder ? cacheDirFor(corpus, embedder) : "";
  const cached = embedder ? readVectorCacheKeys(cacheDir) : null;
  const rows = cached ? new CacheRows(cached.keys, cached.manifest.count) : null;
  const rowOfText = (text: string): number => (rows ? rows.rowOf(textKey(text)) : -1);
  const dim = cached?.manifest.dim ?? manifestDim ?? 0;
  let reader: CachedRowReader | null = null;
  const readRows = (rowList: ArrayLike<number>, into: Float32Array): void => {
    if (!cached) return;
    if (!reader) {
      reader = new CachedRowReader(cacheDir, cached.manifest);
      closeWhenCollected.register(owner(), reader);
    }
    reader.read(rowList, into);
  };
  const vectorOf = (text: string): Float32Array | undefined => {
    const row = rowOfText(text);
    if (row < 0 || !cached) return undefined;
    const v = new Float32Array(dim);
    readRows([row], v);
    return v;
  };
  return { dim, present: cached !== null, rowOfText, readRows, vectorOf };
}

/** Every node's display fields from the store (its external id as title where the row is gone), packed. */
async function loadPaperFields(db: Db, ids: NodeIds, indexOfDbId: ReadonlyMap<number, number>): Promise<ServedPaper[]> {
  const display: DisplayFields[] = ids.externalIds.map((externalId) => ({
    title: externalId,
    year: null,
    venue: null,
    authors: [],
  }));
  for (let i = 0; i < ids.dbIds.length; i += STEP) {
    const found = await db.paper.findMany({
      where: { id: { in: ids.dbIds.slice(i, i + STEP) } },
      select: { id: true, title: true, year: true, venue: true, authors: true },
    });
    for (const r of found) display[indexOfDbId.get(r.id) as number] = { title: r.title, year: r.year, venue: r.venue, authors: parseAuthors(r.authors) };
  }
  return packPapers(ids.externalIds, display);
}

/**
 * Items in node order, kept only when the build's cache has their vector (every item the build
 * embedded does): texts and vectors stay aligned. Per facet, also the cache row of each item.
 */
async function loadItemTexts(
  db: Db,
  dbIds: number[],
  indexOfDbId: ReadonlyMap<number, number>,
  rowOfText: (text: string) => number,
): Promise<{ items: Record<Facet, FacetItemTexts>; itemRows: Record<Facet, Int32Array> }> {
  const n = dbIds.length;
  const perNode = Object.fromEntries(FACETS.map((f) => [f, dbIds.map(() => [] as string[])])) as Record<Facet, string[][]>;
  for (let i = 0; i < n; i += STEP) {
    const found = await db.facetItem.findMany({
      where: { paperId: { in: dbIds.slice(i, i + STEP) } },
      select: { paperId: true, facet: true, text: true },
      orderBy: [{ paperId: "asc" }, { position: "asc" }],
    });
    for (const r of found) {
      if (!(FACETS as readonly string[]).includes(r.facet)) continue;
      perNode[r.facet as Facet][indexOfDbId.get(r.paperId) as number].push(r.text);
    }
  }
  const items = {} as Record<Facet, FacetItemTexts>;
  const itemRows = {} as Record<Facet, Int32Array>;
  for (const f of FACETS) {
    const offsets = new Int32Array(n + 1);
    const texts = new PackedTextsBuilder();
    const kept: number[] = [];
    perNode[f].forEach((list, p) => {
      for (const t of list) {
        const row = rowOfText(t);
        if (row < 0) continue;
        texts.push(t);
        kept.push(row);
      }
      offsets[p + 1] = kept.length;
    });
    perNode[f] = [];
    items[f] = { offsets, texts: texts.finish() };
    itemRows[f] = Int32Array.from(kept);
  }
  return { items, itemRows };
}

/** Each facet's item vectors, read from the cache when first asked for; a node's without them. */
function facetVectors(
  items: Record<Facet, FacetItemTexts>,
  itemRows: Record<Facet, Int32Array>,
  { dim, present, readRows }: BuildVectors,
): Pick<LoadedGraph, "vectors" | "itemVectors"> {
  const packed: Partial<Record<Facet, PackedFacetItems>> = {};
  const vectors = {} as Record<Facet, PackedFacetItems>;
  for (const f of FACETS)
    Object.defineProperty(vectors, f, {
      enumerable: true,
      get: () => {
        if (!packed[f]) {
          const data = new Float32Array(itemRows[f].length * dim);
          readRows(itemRows[f], data);
          packed[f] = { dim, offsets: items[f].offsets, data };
        }
        return packed[f];
      },
    });
  const itemVectors = (f: Facet, p: number): Float32Array[] => {
    const { offsets } = items[f];
    const from = offsets[p];
    const to = offsets[p + 1];
    const held = packed[f];
    const out: Float32Array[] = [];
    if (held) {
      for (let r = from; r < to; r++) out.push(held.data.subarray(r * dim, (r + 1) * dim));
      return out;
    }
    if (to === from || !present) return out;
    const data = new Float32Array((to - from) * dim);
    readRows(itemRows[f].subarray(from, to), data);
    for (let r = 0; r < to - from; r++) out.push(data.subarray(r * dim, (r + 1) * dim));
    return out;
  };
  return { vectors, itemVectors };
}

/** A mix build's TF-IDF model and per-facet inverted files, built on first use; null for a cosine build. */
function lazyLexicalIndex(
  dir: string,
  similarity: ItemSimilarity,
  graph: PaperGraph,
  items: Record<Facet, FacetItemTexts>,
  dbIds: number[],
): () => LexicalFacetIndex | null {
  let lexical: LexicalFacetIndex | null = null;
  return () => {
    if (similarity.kind !== "mix") return null;
    if (!lexical) {
      const model = parseLexicalModel(readFileSync(path.join(dir, "lexical.json"), "utf8"));
      const texts: Partial<Record<Facet, string[][]>> = {};
      for (const f of FACETS) {
        if (!graph.facets[f]) continue;
        const { offsets, texts: all } = items[f];
        texts[f] = dbIds.map((_, p) => all.slice(offsets[p], offsets[p + 1]));
      }
      lexical = lexicalFacetIndex(model, texts);
    }
    return lexical;
  };
}

/**
 * Each facet's blocks (a second copy of its vectors) are made when the exact path first reads
 * them, and dropped once the facet's ANN index is ready (above the threshold).
 */
function lazyBlockIndex(dir: string, graph: PaperGraph, vectors: Record<Facet, PackedFacetItems>): () => FacetBlockIndex {
  let blocks: FacetBlockIndex | null = null;
  return () => {
    if (!blocks) {
      const built: Partial<Record<Facet, FacetBlocks>> = {};
      const servedItems: Partial<Record<Facet, PackedFacetItems>> = {};
      const b = { served: { items: servedItems, dir, release: (f: Facet) => delete built[f] } } as FacetBlockIndex;
      for (const f of FACETS) {
        if (!graph.facets[f]) continue;
        Object.defineProperty(servedItems, f, { enumerable: true, get: () => vectors[f] });
        Object.defineProperty(b, f, { enumerable: true, get: () => (built[f] ??= prepareFacetBlocks(vectors[f])) });
      }
      blocks = b;
    }
    return blocks;
  };
}

/** The display fields of every node, packed; `display[p]` are node p's. */
function packPapers(externalIds: string[], display: readonly { title: string; year: number | null; venue: string | null; authors: string[] }[]): ServedPaper[] {
  const titles = new PackedTextsBuilder();
  const authors = new PackedTextsBuilder();
  const years = new Int32Array(display.length);
  const venues = new Int32Array(display.length);
  const authorStart = new Int32Array(display.length + 1);
  const venueNames: string[] = [];
  const venueIndex = new Map<string, number>();
  let authorCount = 0;
  display.forEach((d, p) => {
    titles.push(d.title);
    years[p] = d.year ?? NO_YEAR;
    if (d.venue === null) venues[p] = -1;
    else {
      let v = venueIndex.get(d.venue);
      if (v === undefined) venueIndex.set(d.venue, (v = venueNames.push(d.venue) - 1));
      venues[p] = v;
    }
    for (const a of d.authors) authors.push(a);
    authorStart[p + 1] = authorCount += d.authors.length;
  });
  const fields: PaperFields = { externalIds, titles: titles.finish(), years, venues, venueNames, authors: authors.finish(), authorStart };
  return externalIds.map((_, p) => new ServedPaper(fields, p));
}

export { itemsOf };

/** The vectors of node p in facet f, aligned with itemsOf (views of the facet's packed vectors once loaded). */
export function vectorsOf(g: LoadedGraph, f: Facet, p: number): Float32Array[] {
  return g.itemVectors(f, p);
}
