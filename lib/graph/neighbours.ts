import { latestBuildWith } from "@/lib/builds/build-dir";
import type { Db } from "@/lib/db/client";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { PaperGraph } from "./csr";

// A paper's typed-graph neighbours for browsing. They come from the newest complete graph
// build's CSR as the caller's loaded build holds it (the web app passes serving's loadGraph, so a
// page view reads no file and no edge row); the build's Edge rows are the fallback while that
// loaded build is not the newest one yet (it re-checks every few seconds) or no loader is given.
// graph.csr holds every column an Edge row has (w, s_f, c per kept edge, ranked best first), and
// the Edge rows are written from the same pruned CSR, so both give the same lists.

export interface NeighbourView {
  externalId: string;
  title: string;
  year: number | null;
  rank: number;
  weight: number;
  facetScore: number;
  citationScore: number;
}

export interface PaperNeighbours {
  build: number;
  /** α, β of the build, to show how the weight splits. */
  alpha: number;
  beta: number;
  facets: Record<Facet, NeighbourView[]>;
}

/** What the neighbours need of a loaded graph build (serving's LoadedGraph has all of it). */
export interface LoadedBuildGraph {
  build: number;
  graph: PaperGraph;
  /** Store id → node index. */
  indexOfDbId: ReadonlyMap<number, number>;
  /** Node index → display fields. */
  papers: readonly { externalId: string; title: string; year: number | null }[];
}

/** Loads (or returns the cached) newest graph build of a corpus, as serving's loadGraph does. */
export type BuildGraphLoader = (db: Db, corpus: string) => Promise<LoadedBuildGraph>;

export interface PaperNeighboursOptions {
  /** At most this many neighbours per facet (default 20). */
  perFacet?: number;
  /** Where the loaded build comes from; without one, the build's Edge rows are read. */
  loadGraph?: BuildGraphLoader;
}

const emptyFacets = (): Record<Facet, NeighbourView[]> => Object.fromEntries(FACETS.map((f) => [f, [] as NeighbourView[]])) as Record<Facet, NeighbourView[]>;

/** The first `perFacet` entries of the node's CSR row in every facet, ranked 1.. as the Edge rows are. */
export function csrNeighbours(loaded: LoadedBuildGraph, paperId: number, perFacet: number): Record<Facet, NeighbourView[]> {
  const facets = emptyFacets();
  const node = loaded.indexOfDbId.get(paperId);
  // A paper imported after the build is no node of it: no neighbours, as it has no Edge rows.
  if (node === undefined) return facets;
  for (const f of FACETS) {
    const csr = loaded.graph.facets[f];
    if (!csr) continue;
    const from = csr.offsets[node];
    const to = Math.min(csr.offsets[node + 1], from + perFacet);
    for (let e = from; e < to; e++) {
      const { externalId, title, year } = loaded.papers[csr.targets[e]];
      facets[f].push({
        externalId,
        title,
        year,
        rank: e - from + 1,
        weight: csr.weights[e],
        facetScore: csr.facetScores[e],
        citationScore: csr.citationScores[e],
      });
    }
  }
  return facets;
}

/** The same lists from the Edge rows the build stored. */
export async function edgeRowNeighbours(db: Db, buildId: number, paperId: number, perFacet: number): Promise<Record<Facet, NeighbourView[]>> {
  const rows = await db.edge.findMany({
    where: { buildId, sourceId: paperId, rank: { lte: perFacet } },
    orderBy: [{ facet: "asc" }, { rank: "asc" }],
    select: { facet: true, rank: true, weight: true, facetScore: true, citationScore: true, target: { select: { externalId: true, title: true, year: true } } },
  });
  const facets = emptyFacets();
  for (const r of rows)
    if (r.facet in facets)
      facets[r.facet as Facet].push({ ...r.target, rank: r.rank, weight: r.weight, facetScore: r.facetScore, citationScore: r.citationScore });
  return facets;
}

/** Null when the paper does not exist or its corpus has no complete graph build yet. */
export async function paperNeighbours(db: Db, paperId: number, options: PaperNeighboursOptions = {}): Promise<PaperNeighbours | null> {
  const perFacet = options.perFacet ?? 20;
  const paper = await db.paper.findUnique({ where: { id: paperId }, select: { corpusId: true, corpus: { select: { name: true } } } });
  if (!paper) return null;
  const build = await latestBuildWith(db, paper.corpusId, "graph.csr");
  if (!build) return null;
  const params = JSON.parse(build.params) as { alpha?: number; beta?: number };
  const head = { build: build.id, alpha: params.alpha ?? 0.75, beta: params.beta ?? 0.25 };
  if (options.loadGraph) {
    const loaded = await options.loadGraph(db, paper.corpus.name);
    if (loaded.build === build.id) return { ...head, facets: csrNeighbours(loaded, paperId, perFacet) };
  }
  return { ...head, facets: await edgeRowNeighbours(db, build.id, paperId, perFacet) };
}
