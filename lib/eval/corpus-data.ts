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
import { readCorpus } from "@/lib/corpus/read";
import { FACETS, type Facet, type FacetLists, type Split } from "@/lib/corpus/types";
import { dataRoot } from "@/lib/db/config";
import { cacheDirFor, embedWithCache } from "@/lib/embed/cache";
import { createEmbedder } from "@/lib/embed/registry";
import type { Embedder } from "@/lib/embed/types";
import type { PackedFacetItems } from "@/lib/graph/maxsim";

export interface OocQueries {
  ids: string[];
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
  items: Record<Facet, PackedFacetItems>;
  /** refs[a] = the corpus papers a cites (node indices), as `citationRows` takes them. */
  refs: number[][];
  queries: OocQueries;
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

  // The embedder is loaded only if the cache lacks some text; its id names the cache either way.
  const spec = options.embedder ?? "use-lite";
  const probe = await createEmbedder(spec);
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
  let vectors: Float32Array[];
  try {
    vectors = await embedWithCache(counting, texts, { dir: cacheDirFor(name, embedderId, options.cacheRoot ?? dataRoot()) });
  } finally {
    await probe.close?.();
  }
  const embedSeconds = (performance.now() - t0) / 1000;

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
    items,
    refs,
    queries: { ids: input.queries.map((q) => q.externalId), items: queryItems, gold },
    newlyEmbedded,
    embedSeconds,
  };
}
