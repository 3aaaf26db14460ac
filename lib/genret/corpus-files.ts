/**
 * A GenretCorpus read from a corpus directory and a graph build, without the store: what the
 * benchmarks, the eval harness and the training experiments use. The graph's node order must
 * be the corpus file's line order (the store imports papers in file order and the graph
 * stage numbers them by id); this is checked against the build's papers.json.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readCorpus } from "@/lib/corpus/read";
import { FACETS, type Facet } from "@/lib/corpus";
import { dataRoot } from "@/lib/paths";
import { loadCorpusData, type CorpusData } from "@/lib/graph/corpus-data";
import { readPaperGraph, type PackedFacetItems } from "@/lib/graph";
import type { DistillationExamples } from "./distill";
import { writeTrainingPack, type PackHeader } from "./pack";
import { identifierFiles, type GenretCorpus, type Identifiers } from "./prepare";

/** The newest build directory with a graph.csr under <dataRoot>/<corpus>. */
export function newestGraphBuildDir(corpus: string, root: string = dataRoot()): string {
  const dir = path.join(root, corpus);
  const builds = existsSync(dir)
    ? readdirSync(dir)
        .filter((d) => /^build-\d+$/.test(d) && existsSync(path.join(dir, d, "graph.csr")) && existsSync(path.join(dir, d, "manifest.json")))
        .sort((a, b) => Number(b.slice(6)) - Number(a.slice(6)))
    : [];
  if (builds.length === 0) throw new Error(`no graph build under ${dir}: run \`graft build --stage graph\` first`);
  return path.join(dir, builds[0]);
}

export interface GenretCorpusFiles {
  corpus: GenretCorpus;
  data: CorpusData;
  buildDir: string;
}

export async function loadGenretCorpusFiles(corpusDir: string, buildDir: string, embedder = "use-lite"): Promise<GenretCorpusFiles> {
  const [input, data] = await Promise.all([readCorpus(corpusDir), loadCorpusData(corpusDir, { embedder })]);
  const graph = readPaperGraph(path.join(buildDir, "graph.csr"));
  const order = JSON.parse(readFileSync(path.join(buildDir, "papers.json"), "utf8")) as { externalIds: string[] };
  const ids = input.papers.map((p) => p.externalId);
  if (order.externalIds.length !== ids.length || order.externalIds.some((id, i) => id !== ids[i])) {
    throw new Error(`${buildDir}: its node order differs from ${corpusDir}/papers.jsonl; rebuild the graph from this corpus`);
  }
  return {
    corpus: { ids, splits: input.papers.map((p) => p.split), facets: input.papers.map((p) => p.facets ?? {}), graph },
    data,
    buildDir,
  };
}

/** Writes `out/pack/` (the training pack) and the identifier files into `out/`, for experiments and benchmarks. */
export function writeExperimentDir(out: string, files: GenretCorpusFiles, ids: Identifiers, examples: DistillationExamples, variant: string): PackHeader {
  const header = writeTrainingPack(path.join(out, "pack"), {
    index: ids.index,
    vocab: ids.vocab,
    items: Object.fromEntries(FACETS.map((f) => [f, files.data.items[f]])) as Record<Facet, PackedFacetItems>,
    examples,
    tries: ids.tries,
    embedder: files.data.embedderId,
    variant,
    // The items' words too (itemTokens.i32), so one pack trains either conditioning.
    texts: files.corpus.facets,
  });
  mkdirSync(out, { recursive: true });
  for (const f of identifierFiles(ids)) writeFileSync(path.join(out, f.name), f.data);
  return header;
}
