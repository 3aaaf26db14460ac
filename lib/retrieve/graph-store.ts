import { readFileSync } from "node:fs";
import path from "node:path";
import { latestBuildWith } from "@/lib/builds/build-dir";
import { parseAuthors } from "@/lib/corpus/browse";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { Db } from "@/lib/db/client";
import { dataRoot } from "@/lib/paths";
import { cacheDirFor, readCachedRows, readVectorCacheKeys, textKey } from "@/lib/embed/cache";
import { readPaperGraph, type PaperGraph } from "@/lib/graph/csr";
import { lexicalFacetIndex, parseLexicalModel, type LexicalFacetIndex } from "@/lib/graph/lexical";
import type { PackedFacetItems } from "@/lib/graph/maxsim";
import { similarityOfParams, type ItemSimilarity } from "@/lib/graph/similarity";
import { prepareFacetBlocks, type FacetBlocks } from "@/lib/graph/maxsim-engine";
import type { FacetBlockIndex } from "./ephemeral";
import { RetrievalError } from "./retriever";

// The serving side of a graph build, loaded once per process and shared by every request
// (CLI, HTTP API, web app). It follows the newest complete build: a new build is picked up
// atomically on the next request after it completes, and never half-written.
//
// Besides the CSR it holds a snapshot, taken when the build is loaded, of what every query
// needs per corpus paper: its display fields and its facet items with their vectors (from the
// build's vector cache). Queries then touch no database rows at all, and a re-import shows up
// with the next graph build, which is also when the graph itself would change.

export interface GraphPaper {
  externalId: string;
  title: string;
  year: number | null;
  venue: string | null;
  authors: string[];
}

/** One facet's items of every node: texts[offsets[p] .. offsets[p+1]) belong to node p. */
export interface FacetItemTexts {
  offsets: Int32Array;
  texts: string[];
}

export interface LoadedGraph {
  build: number;
  corpus: string;
  graph: PaperGraph;
  /** Node index → external id / store id. */
  externalIds: string[];
  dbIds: number[];
  indexOfDbId: Map<number, number>;
  indexOfExternalId: Map<string, number>;
  /** Node index → display fields. */
  papers: GraphPaper[];
  /** Per facet, the items of every node that have a vector, aligned with `vectors`. */
  items: Record<Facet, FacetItemTexts>;
  /** Per facet, the same items' unit vectors (maxsim layout). */
  vectors: Record<Facet, PackedFacetItems>;
  alpha: number;
  beta: number;
  /** The build's item similarity behind s_f (cosine, or a mix with the lexical score). */
  similarity: ItemSimilarity;
  /** A mix build's TF-IDF model and per-facet inverted files (ephemeral insertion), built on first use; null for a cosine build. */
  lexical(): LexicalFacetIndex | null;
  /** The embedder id of the build; query items must be embedded with it. */
  embedder: string;
  dim: number;
  /** Item vectors by exact text (the build's cache), for corpus and stored query papers. */
  vectorOf(text: string): Float32Array | undefined;
  /**
   * onnxruntime block layout of every facet's items (ephemeral insertion), each built when first
   * read; above the ANN threshold, dropped once the facet's index (kept in the build directory) is ready.
   */
  blocks(): FacetBlockIndex;
  /**
   * Per-build memo for retrievers' own indexes (BM25, tries, models): built once per build and
   * process, dropped with the build. `key` should name the retriever.
   */
  memo<T>(key: string, make: () => T): T;
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
    const build = await latestBuildWith(db, corpus, "graph.csr");
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

async function readBuild(db: Db, corpus: string, build: { id: number; dir: string; params: string; manifest: string }): Promise<LoadedGraph> {
  const dir = path.resolve(dataRoot(), build.dir);
  const graph = readPaperGraph(path.join(dir, "graph.csr"));
  const ids = JSON.parse(readFileSync(path.join(dir, "papers.json"), "utf8")) as { externalIds: string[]; dbIds: number[] };
  const params = JSON.parse(build.params) as { alpha?: number; beta?: number; similarity?: unknown };
  const similarity = similarityOfParams(params);
  const manifest = JSON.parse(build.manifest) as { embedder?: { id?: string; dim?: number } };
  const embedder = manifest.embedder?.id ?? "";

  // The cache's vectors stay on disk: the build's items are packed per facet below (read row by
  // row), and any other cached text is read when asked for. Holding the whole cache beside the
  // packed copy cost its size again (0.33 GB at 64k papers).
  const cacheDir = embedder ? cacheDirFor(corpus, embedder) : "";
  const cached = embedder ? readVectorCacheKeys(cacheDir) : null;
  // Keys as 32-character latin1 strings (half the hex strings' size), row by key.
  const rowOf = new Map<string, number>();
  if (cached) {
    const n = cached.manifest.count;
    for (let i = 0; i < n; i++) rowOf.set(Buffer.from(cached.keys.buffer, cached.keys.byteOffset + i * 32, 32).toString("latin1"), i);
  }
  const dim = cached?.manifest.dim ?? manifest.embedder?.dim ?? 0;
  const vectorOf = (text: string): Float32Array | undefined => {
    const row = rowOf.get(textKey(text).toString("latin1"));
    if (row === undefined || !cached) return undefined;
    const v = new Float32Array(dim);
    readCachedRows(cacheDir, cached.manifest, [row], v);
    return v;
  };

  const indexOfDbId = new Map(ids.dbIds.map((id, i) => [id, i]));
  const papers: GraphPaper[] = ids.externalIds.map((externalId) => ({ externalId, title: externalId, year: null, venue: null, authors: [] }));
  const STEP = 500; // bound the number of bound parameters per query (SQLite and PostgreSQL)
  for (let i = 0; i < ids.dbIds.length; i += STEP) {
    const rows = await db.paper.findMany({
      where: { id: { in: ids.dbIds.slice(i, i + STEP) } },
      select: { id: true, title: true, year: true, venue: true, authors: true },
    });
    for (const r of rows) {
      const p = papers[indexOfDbId.get(r.id) as number];
      Object.assign(p, { title: r.title, year: r.year, venue: r.venue, authors: parseAuthors(r.authors) });
    }
  }

  // Items in node order, kept only when the build's cache has their vector (every item the
  // build embedded does): texts and vectors stay aligned.
  const perNode = Object.fromEntries(FACETS.map((f) => [f, ids.dbIds.map(() => [] as string[])])) as Record<Facet, string[][]>;
  for (let i = 0; i < ids.dbIds.length; i += STEP) {
    const rows = await db.facetItem.findMany({
      where: { paperId: { in: ids.dbIds.slice(i, i + STEP) } },
      select: { paperId: true, facet: true, text: true },
      orderBy: [{ paperId: "asc" }, { position: "asc" }],
    });
    for (const r of rows) {
      if (!(FACETS as readonly string[]).includes(r.facet)) continue;
      perNode[r.facet as Facet][indexOfDbId.get(r.paperId) as number].push(r.text);
    }
  }
  const items = {} as Record<Facet, FacetItemTexts>;
  const vectors = {} as Record<Facet, PackedFacetItems>;
  for (const f of FACETS) {
    const offsets = new Int32Array(ids.dbIds.length + 1);
    const texts: string[] = [];
    const rows: number[] = [];
    perNode[f].forEach((list, p) => {
      for (const t of list) {
        const row = rowOf.get(textKey(t).toString("latin1"));
        if (row === undefined) continue;
        texts.push(t);
        rows.push(row);
      }
      offsets[p + 1] = texts.length;
    });
    const data = new Float32Array(rows.length * dim);
    if (cached) readCachedRows(cacheDir, cached.manifest, rows, data);
    items[f] = { offsets, texts };
    vectors[f] = { dim, offsets, data };
  }

  let blocks: FacetBlockIndex | null = null;
  let lexical: LexicalFacetIndex | null = null;
  const memos = new Map<string, unknown>();
  return {
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
    alpha: params.alpha ?? 0.75,
    beta: params.beta ?? 0.25,
    similarity,
    lexical: () => {
      if (similarity.kind !== "mix") return null;
      if (!lexical) {
        const model = parseLexicalModel(readFileSync(path.join(dir, "lexical.json"), "utf8"));
        const texts: Partial<Record<Facet, string[][]>> = {};
        for (const f of FACETS) {
          if (!graph.facets[f]) continue;
          const { offsets, texts: all } = items[f];
          texts[f] = ids.dbIds.map((_, p) => all.slice(offsets[p], offsets[p + 1]));
        }
        lexical = lexicalFacetIndex(model, texts);
      }
      return lexical;
    },
    embedder,
    dim,
    vectorOf,
    blocks: () => {
      if (!blocks) {
        // Each facet's blocks (a second copy of its vectors) are made when the exact path first
        // reads them, and dropped once the facet's ANN index is ready (above the threshold).
        const built: Partial<Record<Facet, FacetBlocks>> = {};
        const servedItems: Partial<Record<Facet, PackedFacetItems>> = {};
        const b = { served: { items: servedItems, dir, release: (f: Facet) => delete built[f] } } as FacetBlockIndex;
        for (const f of FACETS) {
          if (!graph.facets[f]) continue;
          servedItems[f] = vectors[f];
          Object.defineProperty(b, f, { enumerable: true, get: () => (built[f] ??= prepareFacetBlocks(vectors[f])) });
        }
        blocks = b;
      }
      return blocks;
    },
    memo: <T>(key: string, make: () => T): T => {
      if (!memos.has(key)) memos.set(key, make());
      return memos.get(key) as T;
    },
  };
}

/** The items of node p in facet f (texts). */
export function itemsOf(g: LoadedGraph, f: Facet, p: number): string[] {
  const { offsets, texts } = g.items[f];
  return texts.slice(offsets[p], offsets[p + 1]);
}

/** The vectors of node p in facet f (views, no copy), aligned with itemsOf. */
export function vectorsOf(g: LoadedGraph, f: Facet, p: number): Float32Array[] {
  const { offsets, data, dim } = g.vectors[f];
  const out: Float32Array[] = [];
  for (let r = offsets[p]; r < offsets[p + 1]; r++) out.push(data.subarray(r * dim, (r + 1) * dim));
  return out;
}
