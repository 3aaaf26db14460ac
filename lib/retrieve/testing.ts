import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { completeBuild, recordArtefact, startBuild, writeArtefact } from "@/lib/builds";
import { importCorpus } from "@/lib/corpus/import";
import { FACETS, type Facet, type PaperRecord } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { createTestDb, type TestDb } from "@/lib/db/testing";
import { cacheDirFor, embedWithCache } from "@/lib/embed";
import { FakeEmbedder } from "@/lib/embed/fixtures/fake-embedder";
import { writePaperGraph, type FacetCsr, type PaperGraph } from "@/lib/graph";
import { clearGraphCache } from "./graph-store";

// A hand-made graph build for tests whose expected scores are computed by hand: five papers
// H0-H4 (node i = Hi), one item per facet, and facet graphs whose weights w and facet scores s
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

/** Rows as [target, w, s] triples; c = 0. */
function csr(rows: [number, number, number][][]): FacetCsr {
  const offsets = new Int32Array(rows.length + 1);
  rows.forEach((r, p) => (offsets[p + 1] = offsets[p] + r.length));
  const flat = rows.flat();
  return {
    numPapers: rows.length,
    offsets,
    targets: Int32Array.from(flat, (e) => e[0]),
    weights: Float32Array.from(flat, (e) => e[1]),
    facetScores: Float32Array.from(flat, (e) => e[2]),
    citationScores: new Float32Array(flat.length),
  };
}

/**
 * problems: 0→1 (w .75), 0→3 (w .5); s: 1→2 .375, 2→1 .625, 1→3 .25.
 * methods:  0→3 (w .625); s: 1→2 .25, 2→3 .5.
 * results, contributions: no edges.
 */
export const handGraph: PaperGraph = {
  numPapers: 5,
  k: 2,
  facets: {
    problems: csr([
      [
        [1, 0.75, 0.75],
        [3, 0.5, 0.5],
      ],
      [
        [2, 0.375, 0.375],
        [3, 0.25, 0.25],
      ],
      [[1, 0.625, 0.625]],
      [],
      [],
    ]),
    methods: csr([[[3, 0.625, 0.625]], [[2, 0.25, 0.25]], [[3, 0.5, 0.5]], [], []]),
    results: csr([[], [], [], [], []]),
    contributions: csr([[], [], [], [], []]),
  },
};

export const handItem = (f: Facet, node: number): string => `${f} item of H${node}`;

/** A fresh store holding the hand corpus and its one complete graph build. */
export function useHandGraphStore(prefix: string): { readonly db: Db; readonly databaseUrl: string; readonly dataRoot: string } {
  let store: TestDb | undefined;
  let root = "";
  const saved = process.env.GRAFT_DATA_ROOT;
  before(async () => {
    store = await createTestDb();
    root = mkdtempSync(path.join(os.tmpdir(), prefix));
    process.env.GRAFT_DATA_ROOT = root;
    clearGraphCache();
    const db = store.db;
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
  });
  after(async () => {
    process.env.GRAFT_DATA_ROOT = saved;
    clearGraphCache();
    await store?.cleanup();
    rmSync(root, { recursive: true, force: true });
  });
  const held = (): TestDb => {
    if (!store) throw new Error("useHandGraphStore: the store exists only inside tests");
    return store;
  };
  return {
    get db() {
      return held().db;
    },
    /** For subprocesses (the CLI): the store's URL and the data root holding the build. */
    get databaseUrl() {
      return held().config.url;
    },
    get dataRoot() {
      return root;
    },
  };
}
