/**
 * A paper page's typed-graph neighbours (paperNeighbours, lib/graph/neighbours.ts), cold and warm,
 * read from the newest complete graph build's Edge rows or from its CSR as serving holds it
 * (loadGraph). Run each path in its own process, so "cold" is the first call of a process:
 * for the Edge rows it includes opening the store, for the CSR the whole serving load
 * (graph.csr, papers.json, display fields, facet items and their vectors), which a paper page
 * shares with the related-papers query it runs anyway. The operating system's file cache is
 * whatever earlier runs left in it (this script cannot drop it).
 *
 *   npx tsx scripts/bench/neighbours.ts --path edges|csr|both [--corpus acl-anthology] [--n 200] [--per-facet 20] [--json]
 *
 * Warm: n random corpus papers (fixed seed), one call each, after the cold call: p50 / p95 / mean
 * of the whole call, and of the lookup alone on n other papers (edgeRowNeighbours /
 * csrNeighbours, without the two small queries for the paper's corpus and the newest build that
 * both paths make). With --path both, the CSR path's lists are also checked against the Edge
 * rows' for every paper. Last, the time to read graph.csr itself (what a page view would pay
 * without serving's loaded copy).
 */
import path from "node:path";
import { isDeepStrictEqual, parseArgs } from "node:util";
import { latestBuildWith } from "@/lib/builds";
import { ascending, quantileAtIndex } from "@/lib/quantile";
import { disconnectDb, getDb } from "@/lib/db";
import { readPaperGraph } from "@/lib/graph";
import { csrNeighbours, edgeRowNeighbours, paperNeighbours, type PaperNeighboursOptions } from "@/lib/graph/neighbours";
import { dataRoot } from "@/lib/paths";
import { mulberry32 } from "@/lib/random";
import { loadGraph } from "@/lib/retrieve";

const { values } = parseArgs({
  options: {
    path: { type: "string", default: "both" },
    corpus: { type: "string", default: "acl-anthology" },
    n: { type: "string", default: "200" },
    "per-facet": { type: "string", default: "20" },
    json: { type: "boolean", default: false },
  },
});
const which = values.path as string;
if (!["edges", "csr", "both"].includes(which)) throw new Error(`--path must be edges, csr or both, not "${which}"`);
const n = Number(values.n);
const perFacet = Number(values["per-facet"]);
const corpus = values.corpus as string;
const db = getDb();

const percentile = (xs: number[], q: number) => quantileAtIndex(ascending(xs), q);
const summary = (xs: number[]) => ({
  p50: +percentile(xs, 0.5).toFixed(3),
  p95: +percentile(xs, 0.95).toFixed(3),
  mean: +(xs.reduce((s, x) => s + x, 0) / xs.length).toFixed(3),
});
const time = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const r = await fn();
  return [r, performance.now() - t0];
};

const ids = await (async () => {
  // One plain query for the sample; it also opens the store, which the cold call then does not pay for.
  const rows = await db.paper.findMany({ where: { corpus: { name: corpus }, role: "corpus" }, select: { id: true }, orderBy: { id: "asc" } });
  if (rows.length === 0) throw new Error(`corpus "${corpus}" has no papers in this store`);
  const rand = mulberry32(20261126);
  return Array.from({ length: 2 * n + 1 }, () => rows[Math.floor(rand() * rows.length)].id);
})();
// The lookups alone are timed on other papers than the calls, so neither reads rows the other just read.
const callIds = ids.slice(1, n + 1);
const lookupIds = ids.slice(n + 1);
const build = await latestBuildWith(db, corpus, "graph.csr");
if (!build) throw new Error(`corpus "${corpus}" has no complete graph build`);
const edgeRows = await db.edge.count({ where: { buildId: build.id } });

const out: Record<string, unknown> = { corpus, build: build.id, edgeRows, n, perFacet };
for (const p of which === "both" ? (["edges", "csr"] as const) : [which as "edges" | "csr"]) {
  const options: PaperNeighboursOptions = p === "csr" ? { perFacet, loadGraph } : { perFacet };
  const rssBefore = process.memoryUsage().rss;
  const [first, coldMs] = await time(() => paperNeighbours(db, ids[0], options));
  if (first?.build !== build.id) throw new Error(`${p}: served build ${first?.build}, newest is ${build.id}`);
  const calls: number[] = [];
  const lookups: number[] = [];
  let edges = 0;
  let mismatches = 0;
  const loaded = p === "csr" ? await loadGraph(db, corpus) : null;
  for (const id of callIds) {
    const [r, ms] = await time(() => paperNeighbours(db, id, options));
    calls.push(ms);
    edges += Object.values(r?.facets ?? {}).reduce((s, l) => s + l.length, 0);
    if (which === "both" && p === "csr" && !isDeepStrictEqual(r?.facets, await edgeRowNeighbours(db, build.id, id, perFacet))) mismatches++;
  }
  for (const id of lookupIds) {
    const [, ms] = loaded ? await time(async () => csrNeighbours(loaded, id, perFacet)) : await time(() => edgeRowNeighbours(db, build.id, id, perFacet));
    lookups.push(ms);
  }
  out[p] = {
    coldMs: +coldMs.toFixed(1),
    warmCallMs: summary(calls),
    warmLookupMs: summary(lookups),
    neighboursPerPaper: +(edges / n).toFixed(1),
    rssGrowthMb: Math.round((process.memoryUsage().rss - rssBefore) / 2 ** 20),
    ...(which === "both" && p === "csr" ? { papersDifferingFromEdgeRows: mismatches } : {}),
  };
}
// What a page would pay per view if it read graph.csr itself instead of serving's loaded copy.
const [, csrReadMs] = await time(async () => readPaperGraph(path.join(dataRoot(), build.dir, "graph.csr")));
out.csrFileReadMs = +csrReadMs.toFixed(1);
out.peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
await disconnectDb();

if (values.json) console.log(JSON.stringify(out, null, 2));
else {
  console.log(`${corpus}: build ${build.id} (${edgeRows.toLocaleString("en-US")} Edge rows), ${n} papers, ${perFacet} per facet`);
  for (const p of ["edges", "csr"] as const) {
    const r = out[p] as
      | {
          coldMs: number;
          warmCallMs: ReturnType<typeof summary>;
          warmLookupMs: ReturnType<typeof summary>;
          rssGrowthMb: number;
          papersDifferingFromEdgeRows?: number;
        }
      | undefined;
    if (!r) continue;
    console.log(
      `${p.padEnd(5)} cold ${r.coldMs} ms · warm call p50 ${r.warmCallMs.p50} / p95 ${r.warmCallMs.p95} ms · lookup alone p50 ${r.warmLookupMs.p50} / p95 ${r.warmLookupMs.p95} ms · RSS +${r.rssGrowthMb} MB` +
        (r.papersDifferingFromEdgeRows !== undefined ? ` · ${r.papersDifferingFromEdgeRows} papers differ from the Edge rows` : ""),
    );
  }
  console.log(`graph.csr read alone ${out.csrFileReadMs} ms · peak RSS ${out.peakRssMb} MB`);
}
