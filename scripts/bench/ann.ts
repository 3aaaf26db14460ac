/**
 * The ANN index of ephemeral insertion (lib/graph/ann.ts, issue 18) against exact max-sim, on real
 * item vectors: a corpus's newest graph build (the dev store's demo corpus by default). Each query
 * is a corpus paper's own items in one facet, inserted as if unseen (the paper itself excluded),
 * so every query is a real paper's USE-lite vectors. Per facet: the index's build time, recall of
 * the exact top-50 (and top-20) by s_f, and the latency of one facet's insertion: ANN (candidates +
 * exact rescoring), exact in plain JS, and the served exact path (onnxruntime blocks).
 *
 *   npm run bench:ann [-- --corpus acl-citegraph] [--queries 200] [--k 50] [--m 16] [--ef-construction 100]
 *                     [--ef 256] [--item-neighbours 256] [--replicate 1] [--json]
 *
 * --replicate r tiles the corpus r times (each copy's vectors perturbed a little and re-normalised)
 * to time the index build and the insertion at r× the corpus's size; the recall of such a corpus
 * of near-duplicates says nothing, so it is measured on the real corpus (r = 1) only.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { FACETS, type Facet } from "@/lib/corpus";
import { DEFAULT_ANN_PARAMS, exactFacetTopK, FacetAnnIndex } from "@/lib/graph/ann";
import { itemsOfPaper, l2Normalise, numPapersOf, type PackedFacetItems } from "@/lib/graph/maxsim";
import { MaxSimEngine, prepareFacetBlocks, queryFacetTopK } from "@/lib/graph/topk";
import { disconnectDb, getDb } from "@/lib/db";
import { mulberry32 } from "@/lib/random";
import { loadGraph } from "@/lib/retrieve";

const { values } = parseArgs({
  options: {
    corpus: { type: "string", default: "acl-citegraph" },
    queries: { type: "string", default: "200" },
    k: { type: "string", default: "50" },
    m: { type: "string", default: String(DEFAULT_ANN_PARAMS.m) },
    "ef-construction": { type: "string", default: String(DEFAULT_ANN_PARAMS.efConstruction) },
    ef: { type: "string", default: String(DEFAULT_ANN_PARAMS.efSearch) },
    "item-neighbours": { type: "string", default: String(DEFAULT_ANN_PARAMS.itemNeighbours) },
    replicate: { type: "string", default: "1" },
    json: { type: "boolean", default: false },
  },
});
const nQueries = Number(values.queries);
const k = Number(values.k);
const replicate = Number(values.replicate);
const params = {
  m: Number(values.m),
  efConstruction: Number(values["ef-construction"]),
  efSearch: Number(values.ef),
  itemNeighbours: Number(values["item-neighbours"]),
};

/** r copies of the corpus: copy c > 0 of each vector gets N(0, 0.02²) noise per dimension, re-normalised. */
function tile(items: PackedFacetItems, r: number): PackedFacetItems {
  if (r <= 1) return items;
  const n = numPapersOf(items);
  const rows = items.offsets[n];
  const offsets = new Int32Array(n * r + 1);
  for (let c = 0; c < r; c++) for (let p = 0; p < n; p++) offsets[c * n + p + 1] = offsets[c * n + p] + items.offsets[p + 1] - items.offsets[p];
  const data = new Float32Array(rows * r * items.dim);
  const rand = mulberry32(7);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  for (let c = 0; c < r; c++) {
    const part = data.subarray(c * rows * items.dim, (c + 1) * rows * items.dim);
    part.set(items.data);
    if (c === 0) continue;
    for (let i = 0; i < part.length; i++) part[i] += 0.02 * gauss();
    for (let row = 0; row < rows; row++) l2Normalise(part.subarray(row * items.dim, (row + 1) * items.dim));
  }
  return { dim: items.dim, offsets, data };
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

const db = getDb();
try {
  const g = await loadGraph(db, values.corpus as string);
  const engine = await MaxSimEngine.create({ threads: 1 });
  const rows: Record<string, unknown>[] = [];
  if (!values.json)
    console.log(
      `corpus ${values.corpus} (build ${g.build}, ${g.embedder}, ${g.dim}-d) ×${replicate}; ${nQueries} queries per facet; top ${k}; M ${params.m}, efConstruction ${params.efConstruction}, ef ${params.efSearch}, ${params.itemNeighbours} items per query item; node ${process.version}, ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
  for (const f of FACETS as readonly Facet[]) {
    if (!g.graph.facets[f]) continue;
    const items = tile(g.vectors[f], replicate);
    const n = numPapersOf(items);
    const blocks = prepareFacetBlocks(items);
    const index = FacetAnnIndex.fromBlocks(blocks, params);
    const rand = mulberry32(20261126);
    const withItems = Array.from({ length: numPapersOf(g.vectors[f]) }, (_, p) => p).filter((p) => g.vectors[f].offsets[p + 1] > g.vectors[f].offsets[p]);
    const picked = withItems
      .map((p) => [rand(), p] as const)
      .sort((a, b) => a[0] - b[0])
      .slice(0, nQueries)
      .map(([, p]) => p);
    const recall50: number[] = [];
    const recall20: number[] = [];
    const annMs: number[] = [];
    const exactJsMs: number[] = [];
    const exactServedMs: number[] = [];
    const candidates: number[] = [];
    for (const p of picked) {
      const q = itemsOfPaper(items, p);
      let t = performance.now();
      const ann = index.search(q, k, p);
      annMs.push(performance.now() - t);
      candidates.push(index.candidates(q, p).length);
      t = performance.now();
      const exact = exactFacetTopK(items, q, k, p);
      exactJsMs.push(performance.now() - t);
      t = performance.now();
      await queryFacetTopK(engine, blocks, q, k, p);
      exactServedMs.push(performance.now() - t);
      const got = new Set(ann.targets);
      const want = Array.from(exact.targets);
      recall50.push(want.filter((x) => got.has(x)).length / want.length);
      const got20 = new Set(ann.targets.slice(0, 20));
      const want20 = want.slice(0, 20);
      recall20.push(want20.filter((x) => got20.has(x)).length / want20.length);
    }
    const row = {
      facet: f,
      papers: n,
      items: index.stats.items,
      buildSeconds: Number(index.stats.seconds.toFixed(2)),
      recallAtK: Number(mean(recall50).toFixed(4)),
      recallAtKMin: Number(Math.min(...recall50).toFixed(3)),
      recallAt20: Number(mean(recall20).toFixed(4)),
      meanCandidates: Math.round(mean(candidates)),
      annMs: { p50: Number(pct(annMs, 0.5).toFixed(2)), p95: Number(pct(annMs, 0.95).toFixed(2)) },
      exactJsMs: { p50: Number(pct(exactJsMs, 0.5).toFixed(2)), p95: Number(pct(exactJsMs, 0.95).toFixed(2)) },
      exactServedMs: { p50: Number(pct(exactServedMs, 0.5).toFixed(2)), p95: Number(pct(exactServedMs, 0.95).toFixed(2)) },
    };
    rows.push(row);
    if (!values.json)
      console.log(
        `${f.padEnd(13)} ${String(n).padStart(7)} papers ${String(row.items).padStart(7)} items  build ${row.buildSeconds.toFixed(1)} s  recall@${k} ${row.recallAtK.toFixed(4)} (min ${row.recallAtKMin})  recall@20 ${row.recallAt20.toFixed(4)}  ${row.meanCandidates} candidates  ANN p50/p95 ${row.annMs.p50}/${row.annMs.p95} ms  exact JS ${row.exactJsMs.p50}/${row.exactJsMs.p95} ms  exact served ${row.exactServedMs.p50}/${row.exactServedMs.p95} ms`,
      );
  }
  const load = os.loadavg().map((l) => Number(l.toFixed(2)));
  if (values.json) console.log(JSON.stringify({ corpus: values.corpus, replicate, k, params, queriesPerFacet: nQueries, load, facets: rows }, null, 2));
  else console.log(`load after: ${load.join(" ")}`);
} finally {
  await disconnectDb();
}
