/**
 * Item encoders compared on the demo corpus (issue 18: is the fast LSA encoder good enough to
 * build the 64k graph with?). For each embedder spec: dense-only (facet max-sim, RRF) and
 * dense-graph (2-hop) on the test split against citation gold, and both out of corpus with
 * ephemeral insertion against the queries' citation gold. Measurement only: nothing here is
 * tuned on these gold sets.
 *
 *   npx tsx scripts/bench/lsa-quality.ts --embedders use-lite,lsa:/path/to/model [--corpus DIR] [--cache-root DIR]
 *
 * Vectors go through `graft build`'s cache under --cache-root (default the data root), so
 * USE-lite's cached vectors are reused.
 */
import path from "node:path";
import { defaultCorpusPath } from "@/lib/paths";
import { FACETS, type Facet } from "@/lib/corpus";
import { citationGold, denseGraphInCorpus, denseOnlyRetrieve, evaluateRetriever, paperItems, papersOf, prepareFacetIndex } from "@/lib/eval/dense-graph";
import { citationRows, DEFAULT_EDGE_WEIGHT, MaxSimEngine, buildPaperGraph } from "@/lib/graph";
import { loadCorpusData } from "@/lib/graph/corpus-data";
import { dataRoot } from "@/lib/paths";
import { denseGraphEphemeral } from "@/lib/retrieve";

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};
const corpusDir = path.resolve(flag("--corpus") ?? defaultCorpusPath());
const specs = (flag("--embedders") ?? "use-lite").split(",").map((s) => s.trim());
const cacheRoot = path.resolve(flag("--cache-root") ?? dataRoot());
const boot = { resamples: 1000, seed: 0 };
const f3 = (x: number) => x.toFixed(3);

const rows: string[] = [];
for (const spec of specs) {
  const t0 = performance.now();
  const data = await loadCorpusData(corpusDir, { embedder: spec, cacheRoot, workers: 1 });
  const embedSeconds = data.embedSeconds;
  const { alpha } = DEFAULT_EDGE_WEIGHT;
  const tGraph = performance.now();
  const { graph } = await buildPaperGraph(data.items, citationRows(data.refs), { k: 20, alpha, beta: 1 - alpha });
  const graphSeconds = (performance.now() - tGraph) / 1000;
  const cite = citationGold(data.refs);
  const test = data.splits.flatMap((s, i) => (s === "test" ? [i] : []));
  const engine = await MaxSimEngine.create();
  const index = prepareFacetIndex(data.items);
  const ooc = data.queries.ids.map((_, i) => i);
  const oocItems = (i: number): Partial<Record<Facet, Float32Array[]>> => Object.fromEntries(FACETS.map((f) => [f, data.queries.items[f][i]]));
  const selfOf = (i: number) => data.index.get(data.queries.ids[i]) ?? -1;
  const oocGold = (i: number) => new Set(data.queries.gold[i]);
  const runs: [string, Awaited<ReturnType<typeof evaluateRetriever>>][] = [
    [
      "in-corpus dense-only",
      await evaluateRetriever(
        test,
        async (q) => papersOf(await denseOnlyRetrieve(engine, index, paperItems(data.items, q), { exclude: q })),
        (q) => cite[q],
        boot,
      ),
    ],
    [
      "in-corpus dense-graph",
      await evaluateRetriever(
        test,
        (q) => denseGraphInCorpus(graph, q),
        (q) => cite[q],
        boot,
      ),
    ],
    [
      "out-of-corpus dense-only",
      await evaluateRetriever(ooc, async (i) => papersOf(await denseOnlyRetrieve(engine, index, oocItems(i), { exclude: selfOf(i) })), oocGold, boot),
    ],
    [
      "out-of-corpus dense-graph",
      await evaluateRetriever(
        ooc,
        async (i) => papersOf((await denseGraphEphemeral(engine, index, graph, oocItems(i), { exclude: selfOf(i) })).results),
        oocGold,
        boot,
      ),
    ],
  ];
  const total = (performance.now() - t0) / 1000;
  for (const [label, r] of runs) {
    const ci = (k: number) => `${f3(r.recall[k].estimate)} [${f3(r.recall[k].lower)}, ${f3(r.recall[k].upper)}]`;
    rows.push(`| ${data.embedderId} (${data.dim}-d) | ${label} | ${ci(20)} | ${ci(50)} | ${r.queries} |`);
  }
  console.error(
    `[lsa-quality] ${data.embedderId}: ${data.newlyEmbedded} texts embedded in ${embedSeconds.toFixed(1)} s, graph ${graphSeconds.toFixed(1)} s, total ${total.toFixed(1)} s`,
  );
}
console.log(["| embedder | retrieval (citation gold) | R@20 [95% CI] | R@50 [95% CI] | queries |", "|---|---|---|---|---|", ...rows].join("\n"));
