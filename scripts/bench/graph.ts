/**
 * Benchmark of the typed paper graph build and the dense-graph teacher on synthetic data.
 *
 *   npx tsx scripts/bench/graph.ts [--papers 3081] [--dim 512] [--k 20] [--chunk-items 4096]
 *                                  [--threads N] [--queries 200] [--seed 1]
 *                                  [--no-coverage] [--no-citations]
 *
 * Default size is the demo corpus: 3,081 papers with its mean items per facet (problems 1.05,
 * methods 1.99, results 1.43, contributions 1.04), 1-5 items each, random unit vectors. The
 * citation graph is synthetic too (skewed towards older papers, plus external works): it only
 * exercises the sparse citation code, its numbers say nothing about real corpora. The graph is
 * built at K = 50 so coverage can be read at 10/20/50, then pruned to --k for the file and walks
 * (--no-coverage builds at --k directly). --no-citations drops the citation term, leaving the
 * pure all-pairs facet-score product in the kernel timings.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { FACETS, type Facet } from "@/lib/corpus";
import { citationRows, coverage, type PackedFacetItems, MaxSimEngine, prepareFacetBlocks } from "@/lib/graph";
import { type FacetCsr, pruneCsr, readPaperGraph, writePaperGraph } from "@/lib/graph/csr";
import { buildFacetEdges, facetTopKOnBlocks, type KernelStats, queryFacetTopK } from "@/lib/graph/topk";
import { denseGraphRetrieve } from "@/lib/retrieve";
import { mulberry32 } from "@/lib/random";

const MEAN_ITEMS: Record<Facet, number> = { problems: 1.05, methods: 1.99, results: 1.43, contributions: 1.04 };
const MAX_ITEMS = 5;
const COVERAGE_K = [10, 20, 50];

const { values: args } = parseArgs({
  options: {
    papers: { type: "string", default: "3081" },
    dim: { type: "string", default: "512" },
    k: { type: "string", default: "20" },
    "chunk-items": { type: "string", default: "4096" },
    threads: { type: "string", default: String(availableParallelism()) },
    queries: { type: "string", default: "200" },
    seed: { type: "string", default: "1" },
    "no-coverage": { type: "boolean", default: false },
    "no-citations": { type: "boolean", default: false },
  },
});
const num = (name: "papers" | "dim" | "k" | "chunk-items" | "threads" | "queries" | "seed"): number => {
  const v = Number(args[name]);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  return v;
};
const N = num("papers");
const DIM = num("dim");
const K = num("k");
const CHUNK = num("chunk-items");
const THREADS = num("threads");
const QUERIES = num("queries");
const COVERAGE = !args["no-coverage"];
const CITATIONS = !args["no-citations"];
const BUILD_K = COVERAGE ? Math.max(K, ...COVERAGE_K) : K;

const rng = mulberry32;

/** Item count 1 + Binomial(4, (mean-1)/4): support 1..5 with the requested mean. */
function syntheticFacet(rand: () => number, mean: number): PackedFacetItems {
  const p = (mean - 1) / (MAX_ITEMS - 1);
  const offsets = new Int32Array(N + 1);
  for (let i = 0; i < N; i++) {
    let c = 1;
    for (let t = 1; t < MAX_ITEMS; t++) if (rand() < p) c++;
    offsets[i + 1] = offsets[i] + c;
  }
  const data = new Float32Array(offsets[N] * DIM);
  for (let r = 0; r < offsets[N]; r++) {
    const row = data.subarray(r * DIM, (r + 1) * DIM);
    let ss = 0;
    for (let j = 0; j < DIM; j++) {
      const v = rand() * 2 - 1;
      row[j] = v;
      ss += v * v;
    }
    const inv = 1 / Math.sqrt(ss);
    for (let j = 0; j < DIM; j++) row[j] *= inv;
  }
  return { dim: DIM, offsets, data };
}

/** Each paper cites 5-25 works: earlier corpus papers (skewed to the oldest) and external ids. */
function syntheticReferences(rand: () => number): number[][] {
  return Array.from({ length: N }, (_, i) => {
    const n = 5 + Math.floor(rand() * 21);
    const refs: number[] = [];
    for (let r = 0; r < n; r++) {
      if (i > 0 && rand() < 0.6) refs.push(Math.floor(i * rand() ** 1.5));
      else refs.push(N + Math.floor(N * rand() ** 2));
    }
    return refs;
  });
}

const secondsSince = (t0: number): number => (performance.now() - t0) / 1000;
const fmt = (x: number, d = 2): string => x.toFixed(d);

/** Ephemeral insertion: the mean ms of an out-of-corpus query scored against every corpus item, per facet. */
async function ephemeralQueryMs(engine: MaxSimEngine, facets: Record<Facet, PackedFacetItems>, qrand: () => number): Promise<number> {
  const ephemeralQueries = 5;
  const blocksByFacet = FACETS.map((f) => prepareFacetBlocks(facets[f], CHUNK));
  const t0 = performance.now();
  for (let q = 0; q < ephemeralQueries; q++) {
    for (let i = 0; i < FACETS.length; i++) {
      const items = Array.from({ length: 1 + (q % 3) }, () => {
        const v = Float32Array.from({ length: DIM }, () => qrand() * 2 - 1);
        const n = Math.hypot(...v);
        return v.map((x) => x / n);
      });
      await queryFacetTopK(engine, blocksByFacet[i], items, K);
    }
  }
  return (secondsSince(t0) * 1000) / ephemeralQueries;
}

type KernelRow = { facet: Facet; items: number; kernel: KernelStats; prepSeconds: number; edgeSeconds: number };

/** The kernel's table, a row per facet and the total; returns the summed seconds the summary reports. */
function printKernelTable(rows: KernelRow[]): { kernelSeconds: number; prepSeconds: number; edgeSeconds: number } {
  const pad = (s: string | number, w: number): string => String(s).padStart(w);
  console.log("facet          items  blocks  linked pairs  kernel s  (onnx s)  exec GFLOP  exec GFLOP/s  (in onnx)  all-pairs-equiv GFLOP/s");
  let flops = 0;
  let dense = 0;
  let kernelSeconds = 0;
  let onnxSeconds = 0;
  let prepSeconds = 0;
  let edgeSeconds = 0;
  for (const r of rows) {
    flops += r.kernel.flops;
    dense += r.kernel.denseFlops;
    kernelSeconds += r.kernel.seconds;
    onnxSeconds += r.kernel.onnxSeconds;
    prepSeconds += r.prepSeconds;
    edgeSeconds += r.edgeSeconds;
    console.log(
      `${r.facet.padEnd(13)}${pad(r.items, 7)}${pad(r.kernel.blocks, 8)}${pad(r.kernel.linkedPairs.toLocaleString("en"), 14)}${pad(fmt(r.kernel.seconds), 10)}` +
        `${pad(fmt(r.kernel.onnxSeconds), 10)}${pad(fmt(r.kernel.flops / 1e9, 1), 12)}${pad(fmt(r.kernel.flops / 1e9 / r.kernel.seconds, 1), 14)}` +
        `${pad(fmt(r.kernel.flops / 1e9 / r.kernel.onnxSeconds, 1), 11)}${pad(fmt(r.kernel.denseFlops / 1e9 / r.kernel.seconds, 1), 25)}`,
    );
  }
  console.log(
    `${"all".padEnd(13)}${pad(
      rows.reduce((s, r) => s + r.items, 0),
      7,
    )}${pad(
      rows.reduce((s, r) => s + r.kernel.blocks, 0),
      8,
    )}` +
      `${pad(rows.reduce((s, r) => s + r.kernel.linkedPairs, 0).toLocaleString("en"), 14)}${pad(fmt(kernelSeconds), 10)}${pad(fmt(onnxSeconds), 10)}` +
      `${pad(fmt(flops / 1e9, 1), 12)}${pad(fmt(flops / 1e9 / kernelSeconds, 1), 14)}${pad(fmt(flops / 1e9 / onnxSeconds, 1), 11)}${pad(fmt(dense / 1e9 / kernelSeconds, 1), 25)}`,
  );
  return { kernelSeconds, prepSeconds, edgeSeconds };
}

async function main(): Promise<void> {
  const wall0 = performance.now();
  console.log(`graph benchmark: ${N} papers, dim ${DIM}, K ${K} (built at ${BUILD_K}), chunk ${CHUNK} items, ${THREADS} threads, onnxruntime-node CPU`);

  let t0 = performance.now();
  const rand = rng(num("seed"));
  const facets = {} as Record<Facet, PackedFacetItems>;
  for (const f of FACETS) facets[f] = syntheticFacet(rand, MEAN_ITEMS[f]);
  const refs = syntheticReferences(rand);
  const genSeconds = secondsSince(t0);

  t0 = performance.now();
  const cites = CITATIONS ? citationRows(refs) : null;
  const citeSeconds = secondsSince(t0);

  t0 = performance.now();
  const engine = await MaxSimEngine.create({ threads: THREADS });
  await engine.warmUp();
  const sessionSeconds = secondsSince(t0);

  const rows: KernelRow[] = [];
  const built = {} as Record<Facet, FacetCsr>;
  for (const f of FACETS) {
    t0 = performance.now();
    const blocks = prepareFacetBlocks(facets[f], CHUNK);
    const prepSeconds = secondsSince(t0);
    const lists = await facetTopKOnBlocks(blocks, engine, { k: BUILD_K, citations: cites, alpha: CITATIONS ? undefined : 1, beta: CITATIONS ? undefined : 0 });
    t0 = performance.now();
    built[f] = buildFacetEdges(lists, { k: BUILD_K, alpha: CITATIONS ? undefined : 1 });
    rows.push({ facet: f, items: facets[f].offsets[N], kernel: lists.stats, prepSeconds, edgeSeconds: secondsSince(t0) });
  }

  const cov = coverage(built, COVERAGE ? COVERAGE_K : [K], BUILD_K);

  const dir = mkdtempSync(join(tmpdir(), "graft-bench-"));
  const file = join(dir, "graph.bin");
  t0 = performance.now();
  const graph = { numPapers: N, k: K, facets: Object.fromEntries(FACETS.map((f) => [f, pruneCsr(built[f], K)])) };
  writePaperGraph(file, graph);
  const writeSeconds = secondsSince(t0);
  const fileBytes = statSync(file).size;
  t0 = performance.now();
  const loaded = readPaperGraph(file);
  const readSeconds = secondsSince(t0);
  rmSync(dir, { recursive: true, force: true });

  const qrand = rng(num("seed") + 1);
  const queries = Array.from({ length: QUERIES }, () => Math.floor(qrand() * N));
  t0 = performance.now();
  let fused = 0;
  for (const q of queries) fused += denseGraphRetrieve(loaded, q).results.length;
  const walkMs = (secondsSince(t0) * 1000) / QUERIES;

  const ephemeralMs = await ephemeralQueryMs(engine, facets, qrand);
  await engine.release();

  // ---- report
  console.log("");
  const { kernelSeconds, prepSeconds, edgeSeconds } = printKernelTable(rows);
  console.log("(exec = item products actually run: each unordered chunk pair once; all-pairs-equiv = every ordered item pair / same time)");
  console.log("");
  const summary: [string, string][] = [
    ["synthetic data", `${fmt(genSeconds)} s`],
    [
      "citations",
      cites
        ? `${fmt(citeSeconds)} s: ${cites.linkedPairs.toLocaleString("en")} linked pairs (directed), max bc ${cites.maxima.maxBc}, max cc ${cites.maxima.maxCc}, rows ${cites.stored ? "stored" : "streamed"}`
        : "off (--no-citations: w = s)",
    ],
    ["onnx sessions", `${fmt(sessionSeconds)} s (5 model variants)`],
    ["edges (w top-K)", `${fmt(edgeSeconds)} s ranking the two lists, + ${fmt(prepSeconds)} s chunk layout`],
    ["graph build", `${fmt(citeSeconds + sessionSeconds + prepSeconds + kernelSeconds + edgeSeconds)} s (citations + sessions + layout + kernel + edges)`],
    ["coverage", cov.map((c) => `K=${c.k} ${fmt(100 * c.share, 1)}%`).join(", ")],
    ["edges per facet", FACETS.map((f) => `${f} ${cov.find((c) => c.k === K)?.perFacet[f]?.edges}`).join(", ") + ` (K=${K})`],
    ["csr file", `${(fileBytes / 2 ** 20).toFixed(1)} MiB, write ${fmt(writeSeconds * 1000, 0)} ms, read ${fmt(readSeconds * 1000, 0)} ms`],
    ["walk + rrf", `${fmt(walkMs, 3)} ms/query (2 hops, 4 facets, ${QUERIES} queries, mean ${fmt(fused / QUERIES, 1)} results)`],
    ["ephemeral query", `${fmt(ephemeralMs, 1)} ms/query (max-sim against every corpus item, 4 facets)`],
    ["wall", `${fmt(secondsSince(wall0))} s`],
    ["peak RSS", `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`],
  ];
  for (const [k, v] of summary) console.log(`${k.padEnd(16)} ${v}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
