import { latestBuildWith } from "@/lib/builds/build-dir";
import type { Db } from "@/lib/db/client";
import { FACETS, type Facet } from "@/lib/corpus/types";

// A paper's typed-graph neighbours for browsing, read from the edges the newest complete
// graph build stored (serving reads the build's CSR file instead).

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

/** Null when the corpus has no complete graph build yet. */
export async function paperNeighbours(db: Db, paperId: number, perFacet = 20): Promise<PaperNeighbours | null> {
  const paper = await db.paper.findUnique({ where: { id: paperId }, select: { corpusId: true } });
  if (!paper) return null;
  const build = await latestBuildWith(db, paper.corpusId, "graph.csr");
  if (!build) return null;
  const params = JSON.parse(build.params) as { alpha?: number; beta?: number };
  const rows = await db.edge.findMany({
    where: { buildId: build.id, sourceId: paperId, rank: { lte: perFacet } },
    orderBy: [{ facet: "asc" }, { rank: "asc" }],
    select: { facet: true, rank: true, weight: true, facetScore: true, citationScore: true, target: { select: { externalId: true, title: true, year: true } } },
  });
  const facets = Object.fromEntries(FACETS.map((f) => [f, [] as NeighbourView[]])) as Record<Facet, NeighbourView[]>;
  for (const r of rows)
    if (r.facet in facets)
      facets[r.facet as Facet].push({ ...r.target, rank: r.rank, weight: r.weight, facetScore: r.facetScore, citationScore: r.citationScore });
  return { build: build.id, alpha: params.alpha ?? 0.75, beta: params.beta ?? 0.25, facets };
}
