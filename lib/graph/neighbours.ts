import { readFileSync } from "node:fs";
import path from "node:path";
import { DamagedBuildError, newestIntactBuildWith } from "@/lib/builds";
import type { Db } from "@/lib/db";
import { FACETS, type Facet } from "@/lib/corpus";
import { dataRoot } from "@/lib/paths";
import { readPaperGraph, type PaperGraph } from "./csr";
import { buildHasEdgeRows } from "./edge-rows";

// A paper's typed-graph neighbours for browsing. They come from the newest complete graph
// build's CSR as the caller's loaded build holds it (the web app passes serving's loadGraph, so a
// page view reads no file and no edge row); the build's Edge rows are the fallback while that
// loaded build is not the newest one yet (it re-checks every few seconds) or no loader is given.
// A build above GRAFT_EDGE_ROWS_MAX_PAPERS has no Edge rows: then its graph.csr is read from disk
// for that one call instead (serving's loadGraph has no forced re-check).
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

/**
 * The same lists from a build's files, for a build that stored no Edge rows and is not loaded:
 * graph.csr and papers.json are read whole (≈ 80 MB at 64k papers), the display fields of the
 * listed papers only.
 */
export async function buildFileNeighbours(
  db: Db,
  build: { id: number; dir: string },
  paperId: number,
  perFacet: number,
): Promise<Record<Facet, NeighbourView[]>> {
  const dir = path.resolve(dataRoot(), build.dir);
  const { dbIds } = JSON.parse(readFileSync(path.join(dir, "papers.json"), "utf8")) as { dbIds: number[] };
  const node = dbIds.indexOf(paperId);
  if (node < 0) return emptyFacets();
  const graph = readPaperGraph(path.join(dir, "graph.csr"));
  const listed = new Set<number>();
  for (const f of FACETS) {
    const csr = graph.facets[f];
    if (!csr) continue;
    for (let e = csr.offsets[node], to = Math.min(csr.offsets[node + 1], e + perFacet); e < to; e++) listed.add(csr.targets[e]);
  }
  const rows = await db.paper.findMany({
    where: { id: { in: [...listed].map((t) => dbIds[t]) } },
    select: { id: true, externalId: true, title: true, year: true },
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  // Sparse: csrNeighbours reads the display fields of the listed nodes only.
  const papers: LoadedBuildGraph["papers"][number][] = new Array(dbIds.length);
  for (const t of listed) {
    const r = byId.get(dbIds[t]);
    papers[t] = r ? { externalId: r.externalId, title: r.title, year: r.year } : { externalId: String(dbIds[t]), title: "", year: null };
  }
  return csrNeighbours({ build: build.id, graph, indexOfDbId: new Map([[paperId, node]]), papers }, paperId, perFacet);
}

/** Null when the paper does not exist or its corpus has no complete graph build yet. */
export async function paperNeighbours(db: Db, paperId: number, options: PaperNeighboursOptions = {}): Promise<PaperNeighbours | null> {
  const perFacet = options.perFacet ?? 20;
  const paper = await db.paper.findUnique({ where: { id: paperId }, select: { corpusId: true, corpus: { select: { name: true } } } });
  if (!paper) return null;
  // Every graph build damaged: the paper is still shown, without neighbours (the log names the rebuild).
  const build = await newestIntactBuildWith(db, paper.corpusId, "graph.csr", "graph").catch((err: unknown) => {
    if (!(err instanceof DamagedBuildError)) throw err;
    console.warn(`[graft] ${err.message}`);
    return null;
  });
  if (!build) return null;
  const params = JSON.parse(build.params) as { alpha?: number; beta?: number };
  const head = { build: build.id, alpha: params.alpha ?? 0.75, beta: params.beta ?? 0.25 };
  if (options.loadGraph) {
    const loaded = await options.loadGraph(db, paper.corpus.name);
    if (loaded.build === build.id) return { ...head, facets: csrNeighbours(loaded, paperId, perFacet) };
  }
  if (buildHasEdgeRows(build.manifest)) return { ...head, facets: await edgeRowNeighbours(db, build.id, paperId, perFacet) };
  return { ...head, facets: await buildFileNeighbours(db, build, paperId, perFacet) };
}
