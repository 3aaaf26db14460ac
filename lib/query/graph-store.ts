import { readFileSync } from "node:fs";
import path from "node:path";
import { latestBuildWith } from "@/lib/builds/build-dir";
import type { Db } from "@/lib/db/client";
import { dataRoot } from "@/lib/db/config";
import { cacheDirFor, readVectorCache, textKey } from "@/lib/embed/cache";
import { readPaperGraph, type PaperGraph } from "@/lib/graph/csr";
import { HttpError } from "@/lib/http/respond";

// The serving side of a graph build, loaded once per process and shared by every request
// (CLI, HTTP API, web app). It follows the newest complete build: a new build is picked up
// atomically on the next request after it completes, and never half-written.

export interface LoadedGraph {
  build: number;
  corpus: string;
  graph: PaperGraph;
  /** Node index → external id / store id. */
  externalIds: string[];
  dbIds: number[];
  indexOfDbId: Map<number, number>;
  alpha: number;
  beta: number;
  embedder: string;
  /** Item vectors by exact text (the build's cache), for "why related" evidence. */
  vectorOf(text: string): Float32Array | undefined;
}

const cache = new Map<string, LoadedGraph>();
// Look for a newer build at most this often per corpus (one cheap query).
const RECHECK_MS = 5_000;
const checked = new Map<string, number>();

/** The corpus has no graph to serve yet: a set-up step is missing, not a server fault. */
export class NoGraphBuildError extends HttpError {
  constructor(message: string) {
    super(409, "not_ready", message);
    this.name = "NoGraphBuildError";
  }
}

export async function loadGraph(db: Db, corpus: string): Promise<LoadedGraph> {
  const now = Date.now();
  const held = cache.get(corpus);
  if (held && now - (checked.get(corpus) ?? 0) < RECHECK_MS) return held;
  checked.set(corpus, now);
  const build = await latestBuildWith(db, corpus, "graph.csr");
  if (!build) throw new NoGraphBuildError(`corpus "${corpus}" has no graph build yet: run \`npm run graft -- build --stage graph --corpus ${corpus}\``);
  if (held && held.build === build.id) return held;

  const dir = path.resolve(dataRoot(), build.dir);
  const graph = readPaperGraph(path.join(dir, "graph.csr"));
  const papers = JSON.parse(readFileSync(path.join(dir, "papers.json"), "utf8")) as { externalIds: string[]; dbIds: number[] };
  const params = JSON.parse(build.params) as { alpha?: number; beta?: number };
  const manifest = JSON.parse(build.manifest) as { embedder?: { id?: string } };
  const embedder = manifest.embedder?.id ?? "";

  const vectors = embedder ? readVectorCache(cacheDirFor(corpus, embedder)) : null;
  const rowOf = new Map<string, number>();
  if (vectors) {
    const n = vectors.manifest.count;
    for (let i = 0; i < n; i++) rowOf.set(Buffer.from(vectors.keys.subarray(i * 32, i * 32 + 32)).toString("hex"), i);
  }
  const dim = vectors?.manifest.dim ?? 0;
  const loaded: LoadedGraph = {
    build: build.id,
    corpus,
    graph,
    externalIds: papers.externalIds,
    dbIds: papers.dbIds,
    indexOfDbId: new Map(papers.dbIds.map((id, i) => [id, i])),
    alpha: params.alpha ?? 0.75,
    beta: params.beta ?? 0.25,
    embedder,
    vectorOf: (text) => {
      const row = rowOf.get(textKey(text).toString("hex"));
      return row === undefined || !vectors ? undefined : vectors.vectors.subarray(row * dim, (row + 1) * dim);
    },
  };
  cache.set(corpus, loaded);
  return loaded;
}
