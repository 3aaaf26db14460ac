import path from "node:path";
import { completeBuild, recordArtefact, startBuild, writeArtefact } from "@/lib/builds";
import { importCorpus } from "@/lib/corpus/import";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { PaperRecord } from "@/lib/corpus/types";
import type { Db } from "@/lib/db/client";
import { type TestStore, useTestStore } from "@/lib/db/testing";
import { cacheDirFor, embedWithCache } from "@/lib/embed";
import { FakeEmbedder } from "@/lib/embed/fixtures/fake-embedder";
import { writePaperGraph, type PaperGraph } from "@/lib/graph";
import { csrOf } from "@/lib/graph/csr-testing";
import { clearGraphCache, itemsOf, vectorsOf, type LoadedGraph } from "./graph-store";
import type { RetrieveContext } from "./retriever";

// A hand-made graph build for tests whose expected scores are computed by hand: five papers
// H0-H4 (node i = Hi), one item per facet, and facet graphs whose weights w (= facet scores s)
// are chosen below (dyadic, so exact in float32). Item vectors come from the deterministic
// fake embedder, written to the build's vector cache, so evidence is computed as in serving.

export const HAND_CORPUS = "hand";
export const HAND_EMBEDDER = "fake:8";

export const handPapers: PaperRecord[] = [0, 1, 2, 3, 4].map((i) => ({
  externalId: `H${i}`,
  title: `Hand paper ${i}`,
  abstract: `Abstract of hand paper ${i}.`,
  fullText: null,
  year: [2018, 2019, 2020, 2017, 2019][i],
  venue: i === 3 ? "EMNLP" : "ACL",
  authors: [`Author ${i}`],
  split: "train",
  facets: Object.fromEntries(FACETS.map((f) => [f, [`${f} item of H${i}`]])),
}));

/**
 * problems: 0→1 (w .75), 0→3 (w .5); s: 1→2 .375, 2→1 .625, 1→3 .25.
 * methods:  0→3 (w .625); s: 1→2 .25, 2→3 .5.
 * results, contributions: no edges.
 */
export const handGraph: PaperGraph = {
  numPapers: 5,
  k: 2,
  facets: {
    problems: csrOf([
      [
        [1, 0.75],
        [3, 0.5],
      ],
      [
        [2, 0.375],
        [3, 0.25],
      ],
      [[1, 0.625]],
      [],
      [],
    ]),
    methods: csrOf([[[3, 0.625]], [[2, 0.25]], [[3, 0.5]], [], []]),
    results: csrOf([[], [], [], [], []]),
    contributions: csrOf([[], [], [], [], []]),
  },
};

export const handItem = (f: Facet, node: number): string => `${f} item of H${node}`;

/** A fresh store holding the hand corpus and its one complete graph build (see useTestStore). */
export function useHandGraphStore(prefix: string): TestStore {
  return useTestStore(prefix, { setup: writeHandGraphBuild, teardown: clearGraphCache });
}

/** The hand corpus, its item vectors in the build's cache and its graph build, in a fresh store. */
async function writeHandGraphBuild(db: Db): Promise<void> {
  clearGraphCache();
  await importCorpus(
    db,
    {
      files: { papers: "hand/papers.jsonl", citations: "hand/citations.tsv", queries: null, queryGold: null },
      papers: handPapers,
      citations: [],
      queries: [],
      queryGold: [],
      skipped: [],
    },
    { corpus: HAND_CORPUS },
  );
  const texts = handPapers.flatMap((p) => FACETS.flatMap((f) => p.facets?.[f] ?? []));
  await embedWithCache(new FakeEmbedder(8), texts, { dir: cacheDirFor(HAND_CORPUS, HAND_EMBEDDER) });
  const rows = await db.paper.findMany({ where: { corpus: { name: HAND_CORPUS } }, select: { id: true, externalId: true }, orderBy: { externalId: "asc" } });
  const build = await startBuild(db, HAND_CORPUS, { stage: "graph", alpha: 0.75, beta: 0.25, k: 2 });
  writePaperGraph(path.join(build.dir, "graph.csr"), handGraph);
  recordArtefact(build, "graph", "graph.csr", "graph.csr");
  writeArtefact(build, "graph", "papers.json", "papers.json", JSON.stringify({ externalIds: rows.map((r) => r.externalId), dbIds: rows.map((r) => r.id) }));
  await completeBuild(db, build, { stage: "graph", embedder: { id: HAND_EMBEDDER, dim: 8 } });
}

/** An unseen copy of corpus node `node` of `g` as a query context: its items and vectors, itself excluded. */
export function unseenCopy(g: LoadedGraph, node: number, facets: readonly Facet[] = FACETS): RetrieveContext {
  const items = Object.fromEntries(FACETS.map((f) => [f, itemsOf(g, f, node)])) as Record<Facet, string[]>;
  const vectors = Object.fromEntries(FACETS.map((f) => [f, vectorsOf(g, f, node)])) as Record<Facet, Float32Array[]>;
  return {
    db: undefined as never,
    graph: g,
    query: { index: null, exclude: node, title: "", abstract: "", items, vectors },
    facets,
    pool: 50,
    queryEdges: {},
  };
}
