/**
 * A corpus read straight from its files (papers.jsonl, citations.tsv, ooc-queries.jsonl,
 * ooc-gold.tsv) into what the graph stage and the evaluations need, without the store: facet
 * items packed per facet (node index = line order of papers.jsonl), citation reference lists,
 * splits, and the out-of-corpus queries with their embedded items and gold.
 *
 * Embeddings go through the same on-disk vector cache as `graft build` (keyed by exact text),
 * so a corpus the graph stage has embedded loads instantly; only texts missing from the cache
 * (e.g. the out-of-corpus queries' items, the first time) are embedded, and the embedder is
 * created only if there are any.
 */
import path from "node:path";
import { readCorpus, type CorpusInput } from "@/lib/corpus/read";
import { FACETS, type Facet, type FacetLists, type PaperRecord, type Split } from "@/lib/corpus";
import { dataRoot } from "@/lib/paths";
import { cacheDirFor, embedWithCache, readVectorCache, textKey, createEmbedder, type Embedder } from "@/lib/embed";
import { ParallelEmbedder } from "@/lib/embed/parallel";
import type { PackedFacetItems } from "@/lib/graph/maxsim";

/** What the lexical and document-level baselines (and a generative retriever) read of a paper. */
export interface PaperText {
  title: string;
  abstract: string;
  /** Facet items verbatim, every facet present (possibly empty). */
  facets: Record<Facet, string[]>;
}

export interface OocQueries {
  ids: string[];
  /** Per query: its title, abstract and facet items. */
  texts: PaperText[];
  /** Per facet, per query: its item vectors (possibly none). */
  items: Record<Facet, Float32Array[][]>;
  /** Per query: the corpus node indices it cites (ooc-gold.tsv). */
  gold: number[][];
}

export interface CorpusData {
  /** Corpus name (the directory's base name), used for the cache location. */
  name: string;
  embedderId: string;
  dim: number;
  /** External ids in node order. */
  ids: string[];
  index: ReadonlyMap<string, number>;
  splits: (Split | null)[];
  /** Per paper (node order): its year when the file gives one. */
  years: (number | null)[];
  /** Per paper (node order): title, abstract, facet items. */
  texts: PaperText[];
  /** The files read (for report manifests). */
  files: CorpusInput["files"];
  items: Record<Facet, PackedFacetItems>;
  /** refs[a] = the corpus papers a cites (node indices), as `citationRows` takes them. */
  refs: number[][];
  queries: OocQueries;
  /** With `documents`: title + abstract vectors of the papers (node order) and the queries. */
  documents?: { papers: Float32Array[]; queries: Float32Array[] };
  /** Texts embedded by this load (0 when everything came from the cache). */
  newlyEmbedded: number;
  embedSeconds: number;
}

export interface LoadCorpusOptions {
  /** Embedder spec for `createEmbedder`; default "use-lite". */
  embedder?: string;
  /** Data root holding vectors/<corpus>/<embedder>; default the project's data root. */
  cacheRoot?: string;
  /** Cache name of the corpus; default the directory's base name. */
  name?: string;
  /** Also embed each paper's and query's "title. abstract" (document-level dense baseline). */
  documents?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** Embedding worker processes for texts missing from the cache; default 1. */
  workers?: number;
}

/** Appends the texts of `facets` to `texts`, recording their positions per facet. */
function collect(facets: FacetLists | null, texts: string[], into: Record<Facet, number[][]>): void {
  for (const f of FACETS) {
    const rows: number[] = [];
    for (const t of facets?.[f] ?? []) {
      rows.push(texts.length);
      texts.push(t);
    }
    into[f].push(rows);
  }
}

/** Packs per-paper rows of text positions into the maxsim layout. */
export function packRows(rows: readonly (readonly number[])[], vectors: readonly Float32Array[], dim: number): PackedFacetItems {
  const offsets = new Int32Array(rows.length + 1);
  rows.forEach((r, i) => (offsets[i + 1] = offsets[i] + r.length));
  const data = new Float32Array(offsets[rows.length] * dim);
  let at = 0;
  for (const r of rows) for (const t of r) data.set(vectors[t], at++ * dim);
  return { dim, offsets, data };
}

export function paperText(p: PaperRecord): PaperText {
  return { title: p.title, abstract: p.abstract, facets: Object.fromEntries(FACETS.map((f) => [f, [...(p.facets?.[f] ?? [])]])) as Record<Facet, string[]> };
}

const emptyRows = (): Record<Facet, number[][]> => Object.fromEntries(FACETS.map((f) => [f, [] as number[][]])) as Record<Facet, number[][]>;

export async function loadCorpusData(dir: string, options: LoadCorpusOptions = {}): Promise<CorpusData> {
  const input = await readCorpus(dir);
  const name = options.name ?? path.basename(path.resolve(dir));
  const ids = input.papers.map((p) => p.externalId);
  const index = new Map(ids.map((id, i) => [id, i]));

  const texts: string[] = [];
  const paperRows = emptyRows();
  for (const p of input.papers) collect(p.facets, texts, paperRows);
  const queryRows = emptyRows();
  for (const q of input.queries) collect(q.facets, texts, queryRows);

  // Documents (title + abstract) for the document-level dense baseline go through the same cache.
  const docStart = texts.length;
  if (options.documents) for (const p of [...input.papers, ...input.queries]) texts.push(documentText(p));
  const embedded = await embedTexts(texts, {
    embedder: options.embedder,
    cacheRoot: options.cacheRoot,
    name,
    onProgress: options.onProgress,
    workers: options.workers,
  });
  const { vectors, embedderId, dim, newlyEmbedded, seconds: embedSeconds } = embedded;
  const documents = options.documents
    ? { papers: vectors.slice(docStart, docStart + input.papers.length), queries: vectors.slice(docStart + input.papers.length) }
    : undefined;

  const items = Object.fromEntries(FACETS.map((f) => [f, packRows(paperRows[f], vectors, dim)])) as Record<Facet, PackedFacetItems>;
  const refs: number[][] = ids.map(() => []);
  for (const c of input.citations) {
    const a = index.get(c.citing);
    const b = index.get(c.cited);
    if (a !== undefined && b !== undefined) refs[a].push(b);
  }

  const qIndex = new Map(input.queries.map((q, i) => [q.externalId, i]));
  const gold: number[][] = input.queries.map(() => []);
  for (const g of input.queryGold) {
    const q = qIndex.get(g.citing);
    const b = index.get(g.cited);
    if (q !== undefined && b !== undefined && !gold[q].includes(b)) gold[q].push(b);
  }
  const queryItems = Object.fromEntries(FACETS.map((f) => [f, queryRows[f].map((r) => r.map((t) => vectors[t]))])) as Record<Facet, Float32Array[][]>;

  return {
    name,
    embedderId,
    dim,
    ids,
    index,
    splits: input.papers.map((p) => p.split),
    years: input.papers.map((p) => p.year),
    texts: input.papers.map(paperText),
    files: input.files,
    items,
    refs,
    queries: { ids: input.queries.map((q) => q.externalId), texts: input.queries.map(paperText), items: queryItems, gold },
    documents,
    newlyEmbedded,
    embedSeconds,
  };
}

/**
 * Words of "title. abstract" a document encoder sees. The paper's all-MiniLM-L12-v2 reads at
 * most 128 word pieces (about 100 words) and drops the rest; cutting the text there gives every
 * embedder the same view and bounds USE-lite's cost, which grows with text length.
 */
export const DOCUMENT_MAX_WORDS = 100;

/** The text a document-level encoder sees: "title. abstract" (the paper's "title and abstract"), cut to DOCUMENT_MAX_WORDS words. */
export function documentText(p: { title: string; abstract: string }, maxWords = DOCUMENT_MAX_WORDS): string {
  const title = p.title.trim();
  const abstract = p.abstract.trim();
  const text = !abstract ? title : /[.!?]$/.test(title) ? `${title} ${abstract}` : `${title}. ${abstract}`;
  const words = text.split(/\s+/);
  return words.length <= maxWords ? text : words.slice(0, maxWords).join(" ");
}

export interface EmbedTextsOptions {
  /** Embedder spec for `createEmbedder`; default "use-lite". */
  embedder?: string;
  /** Data root holding vectors/<name>/<embedder>; default the project's data root. */
  cacheRoot?: string;
  /** Cache name (the corpus). */
  name: string;
  /** (done, total) over the texts that need embedding. */
  onProgress?: (done: number, total: number) => void;
  /** Embedding worker processes when texts are missing (USE-lite is single-threaded); default 1. */
  workers?: number;
}

/**
 * Unit vectors of `texts` through the on-disk cache of `graft build`; only texts missing from
 * it are embedded, and `newlyEmbedded` counts them.
 */
export async function embedTexts(
  texts: string[],
  options: EmbedTextsOptions,
): Promise<{ vectors: Float32Array[]; embedderId: string; dim: number; newlyEmbedded: number; seconds: number }> {
  // The embedder's id names the cache, so it is created even when every text is cached.
  const spec = options.embedder ?? "use-lite";
  let probe: Embedder = await createEmbedder(spec);
  if ((options.workers ?? 1) > 1) {
    const cached = readVectorCache(cacheDirFor(options.name, probe.id, options.cacheRoot ?? dataRoot()));
    const have = new Set<string>();
    if (cached) for (let i = 0; i < cached.manifest.count; i++) have.add(Buffer.from(cached.keys.subarray(32 * i, 32 * (i + 1))).toString("hex"));
    const missing = texts.some((t) => !have.has(textKey(t).toString("hex")));
    if (missing) {
      await probe.close?.();
      probe = await ParallelEmbedder.create(spec, { workers: options.workers });
    }
  }
  const { id: embedderId, dim } = probe;
  let newlyEmbedded = 0;
  const counting: Embedder = {
    id: embedderId,
    dim,
    embed: async (batch) => {
      newlyEmbedded += batch.length;
      return probe.embed(batch);
    },
  };
  const t0 = performance.now();
  try {
    // Small chunks: an interrupted run keeps what it embedded, and progress can be shown.
    const vectors = await embedWithCache(counting, texts, {
      dir: cacheDirFor(options.name, embedderId, options.cacheRoot ?? dataRoot()),
      chunkSize: 256,
      onProgress: options.onProgress,
    });
    return { vectors, embedderId, dim, newlyEmbedded, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await probe.close?.();
  }
}
