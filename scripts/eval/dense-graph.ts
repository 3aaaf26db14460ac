/**
 * Dense-graph teacher and dense-only baseline on a corpus read from its files (no store):
 * in-corpus on the test split against graph-neighbour gold, out-of-corpus with ephemeral
 * insertion against citation gold, the α sweep on the dev split, and the walk-depth ablation.
 * Protocol decisions are documented in lib/eval/dense-graph.ts.
 *
 *   npx tsx scripts/eval/dense-graph.ts [--corpus DIR] [--resamples N] [--seed N] [--out DIR]
 *
 * Defaults: the demo corpus (GRAFT_DEMO_CORPUS or ../shared/data/acl-citegraph), 1000
 * bootstrap resamples, seed 0, reports/ in the repository. The vector cache is read from
 * GRAFT_DATA_ROOT (default .graft), where `graft build` keeps it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { defaultCorpusPath } from "@/lib/paths";
import { FACETS, type Facet } from "@/lib/corpus";
import { dataRoot, repoRoot } from "@/lib/paths";
import { loadCorpusData } from "@/lib/graph/corpus-data";
import { citationRows, type PaperGraph, DEFAULT_EDGE_WEIGHT, MaxSimEngine, buildPaperGraph } from "@/lib/graph";
import {
  citationGold,
  denseGraphInCorpus,
  denseOnlyRetrieve,
  evaluateRetriever,
  neighbourGold,
  paperItems,
  papersOf,
  prepareFacetIndex,
  type RecallReport,
} from "@/lib/eval/dense-graph";
import { RECALL_KS } from "@/lib/eval/metrics";
import { denseGraphEphemeral } from "@/lib/retrieve";

const args = process.argv.slice(2);
function flag(name: string): string | undefined {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
}
const corpusDir = path.resolve(flag("--corpus") ?? defaultCorpusPath());
const resamples = Number(flag("--resamples") ?? 1000);
const seed = Number(flag("--seed") ?? 0);
const outDir = path.resolve(flag("--out") ?? path.join(repoRoot, "reports"));
const K = 20;
const ALPHAS = [0, 0.25, 0.5, 0.75, 1];
const HOPS = [1, 2, 3];
const boot = { resamples, seed };

const seconds = (t0: number): number => (performance.now() - t0) / 1000;
const log = (msg: string): void => console.error(`[dense-graph] ${msg}`);

async function buildGraph(
  data: Awaited<ReturnType<typeof loadCorpusData>>,
  citations: ReturnType<typeof citationRows>,
  alpha: number,
): Promise<{ graph: PaperGraph; seconds: number }> {
  const t0 = performance.now();
  const { graph } = await buildPaperGraph(data.items, citations, { k: K, alpha, beta: 1 - alpha });
  return { graph, seconds: seconds(t0) };
}

interface Row {
  label: string;
  report: RecallReport;
  seconds: number;
}

const f3 = (x: number): string => x.toFixed(3);
const withCi = (r: RecallReport, k: number): string => `${f3(r.recall[k].estimate)} [${f3(r.recall[k].lower)}, ${f3(r.recall[k].upper)}]`;

function mdTable(header: string[], rows: string[][]): string {
  return [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

function recallTableMd(rows: Row[], first = "Method", ks: readonly number[] = RECALL_KS): string {
  return mdTable(
    [first, ...ks.map((k) => `R@${k} [95% CI]`), "queries", "mean gold", "s"],
    rows.map((r) => [r.label, ...ks.map((k) => withCi(r.report, k)), String(r.report.queries), r.report.meanGold.toFixed(1), r.seconds.toFixed(1)]),
  );
}

const plain = (r: Row): object => ({
  label: r.label,
  queries: r.report.queries,
  meanGold: r.report.meanGold,
  seconds: r.seconds,
  recall: Object.fromEntries(Object.entries(r.report.recall).map(([k, ci]) => [k, { estimate: ci.estimate, lower: ci.lower, upper: ci.upper }])),
});

type Retrieve = (q: number) => ArrayLike<number> | Promise<ArrayLike<number>>;

/** One table row: the recall of `retrieve` over `queries` against `goldOf`, logged as it lands. */
async function run(label: string, queries: number[], retrieve: Retrieve, goldOf: (q: number) => Set<number>): Promise<Row> {
  // Row seconds include retrieval the first time a memoised list is scored, scoring only after.
  const t0 = performance.now();
  const report = await evaluateRetriever(queries, retrieve, goldOf, boot);
  const row = { label, report, seconds: seconds(t0) };
  log(`${label}: R@20 ${f3(report.recall[20].estimate)} R@50 ${f3(report.recall[50].estimate)} (${row.seconds.toFixed(1)} s)`);
  return row;
}

/** Lists are computed once and scored against several gold sets: `memo(key, retrieve)` keeps each query's list under `key`. */
function listMemo(): (key: string, retrieve: Retrieve) => (q: number) => Promise<ArrayLike<number>> {
  const cache = new Map<string, Map<number, ArrayLike<number>>>();
  return (key, retrieve) => async (q) => {
    let m = cache.get(key);
    if (!m) cache.set(key, (m = new Map()));
    if (!m.has(q)) m.set(q, await retrieve(q));
    return m.get(q) as ArrayLike<number>;
  };
}

type SweepRow = { alpha: number; graph: Row; cite: Row; buildSeconds: number };

/** What the report is written from: the run's setting and each table's rows. */
interface DenseGraphResults {
  data: Awaited<ReturnType<typeof loadCorpusData>>;
  mainAlpha: number;
  mainSeconds: number;
  test: number[];
  dev: number[];
  totalSeconds: number;
  inCorpus: Row[];
  inCorpusOut: Row[];
  inCorpusCite: Row[];
  ooc: Row[];
  sweep: SweepRow[];
  hops: Row[];
}

/** The report: Markdown (reports/dense-graph.md) and its JSON twin. */
function denseGraphReport(r: DenseGraphResults): { md: string; json: object } {
  const { data, mainAlpha, mainSeconds, test, dev, totalSeconds, inCorpus, inCorpusOut, inCorpusCite, ooc, sweep, hops } = r;
  const date = new Date().toISOString();
  const command = `npx tsx scripts/eval/dense-graph.ts${args.length ? ` ${args.join(" ")}` : ""}`;
  const oocPairs = data.queries.gold.reduce((s, g) => s + g.length, 0);
  const md = `# Dense-graph teacher and dense-only baseline

- Command: \`${command}\` (GRAFT_DATA_ROOT=${dataRoot()})
- Date: ${date}; total run time ${totalSeconds.toFixed(0)} s
- Corpus: \`${corpusDir}\` (${data.ids.length} papers; test ${test.length}, dev ${dev.length}; ${data.queries.ids.length} out-of-corpus queries, ${oocPairs} gold pairs)
- Embedder: \`${data.embedderId}\` (${data.dim}-d); ${data.newlyEmbedded} texts embedded in this run, the rest from the vector cache
- Graph: top-${K} per paper per facet, w = α s + β c with α = ${mainAlpha}, β = ${1 - mainAlpha} (built in ${mainSeconds.toFixed(1)} s)
- Dense-graph: walk from the query node (in-corpus) or from ephemeral top-${K} edges (out of corpus), max-product path score, ${HOPS[1]} hops, 500 per facet, RRF k = 60, top 50
- Dense-only: per facet the top 500 corpus papers by facet max-sim s_f, RRF k = 60, top 50
- Recall: micro-averaged; 95% percentile-bootstrap CIs over queries (${resamples} resamples, seed ${seed})

## In-corpus, test split (gold: the query's undirected neighbour set in the full graph, all facets)

${recallTableMd(inCorpus)}

Reference (shared STACK notes, prototype, 300 random test queries): dense-graph R@20/R@50 0.224 / 0.436, dense-only 0.189 / 0.377. Paper (11,359 papers): 0.357 / 0.560 and 0.274 / 0.440.

Same lists against other gold sets:

Gold = the query's own rows only (out-neighbours, all facets):

${recallTableMd(inCorpusOut)}

Gold = in-corpus citations (cited or citing), independent of the graph:

${recallTableMd(inCorpusCite)}

## Out-of-corpus queries (gold: the corpus papers each query cites)

${recallTableMd(ooc)}

## α sweep, dev split (β = 1 − α; graph rebuilt per α; gold fixed to the α = ${mainAlpha} graph)

${mdTable(
  ["α", "β", "R@20", "R@50", "R@20 (citation gold)", "R@50 (citation gold)", "build s"],
  sweep.map((s) => [
    s.alpha.toFixed(2),
    (1 - s.alpha).toFixed(2),
    withCi(s.graph.report, 20),
    withCi(s.graph.report, 50),
    withCi(s.cite.report, 20),
    withCi(s.cite.report, 50),
    s.buildSeconds.toFixed(1),
  ]),
)}

## Walk depth, test split (graph-neighbour gold)

${recallTableMd(hops, "Walk depth", [20, 50])}
`;
  const json = {
    command,
    date,
    corpus: corpusDir,
    embedder: data.embedderId,
    papers: data.ids.length,
    splits: { test: test.length, dev: dev.length },
    graph: { k: K, alpha: mainAlpha, beta: 1 - mainAlpha, buildSeconds: mainSeconds },
    bootstrap: boot,
    totalSeconds,
    inCorpus: { gold: "neighbours-both", rows: inCorpus.map(plain) },
    inCorpusOutGold: { gold: "neighbours-out", rows: inCorpusOut.map(plain) },
    inCorpusCitationGold: { gold: "citations", rows: inCorpusCite.map(plain) },
    outOfCorpus: { queries: data.queries.ids.length, goldPairs: oocPairs, rows: ooc.map(plain) },
    alphaSweep: sweep.map((s) => ({
      alpha: s.alpha,
      beta: 1 - s.alpha,
      buildSeconds: s.buildSeconds,
      graphGold: plain(s.graph),
      citationGold: plain(s.cite),
    })),
    hops: hops.map(plain),
  };
  return { md, json };
}

async function main(): Promise<void> {
  const tStart = performance.now();
  const data = await loadCorpusData(corpusDir, { cacheRoot: dataRoot() });
  log(
    `${data.ids.length} papers, ${data.queries.ids.length} out-of-corpus queries, ${data.embedderId}, ${data.newlyEmbedded} texts embedded (${data.embedSeconds.toFixed(1)} s)`,
  );
  const citations = citationRows(data.refs);
  const { alpha: mainAlpha } = DEFAULT_EDGE_WEIGHT;
  const main = await buildGraph(data, citations, mainAlpha);
  log(`graph α=${mainAlpha}: ${main.seconds.toFixed(1)} s`);

  const gold = neighbourGold(main.graph, "both");
  const goldOut = neighbourGold(main.graph, "out");
  const citeGold = citationGold(data.refs);
  const split = (s: string): number[] => data.splits.flatMap((x, i) => (x === s ? [i] : []));
  const test = split("test");
  const dev = split("dev");

  const engine = await MaxSimEngine.create();
  const index = prepareFacetIndex(data.items);
  try {
    // ── 1. in-corpus, test split ──
    const inCorpus: Row[] = [];
    const memo = listMemo();
    const dgTest = memo("dg", (q) => denseGraphInCorpus(main.graph, q));
    const doTest = memo("do", async (q) => papersOf(await denseOnlyRetrieve(engine, index, paperItems(data.items, q), { exclude: q })));
    inCorpus.push(await run("Dense-graph (2-hop, RRF)", test, dgTest, (q) => gold[q]));
    inCorpus.push(await run("Dense-only (facet max-sim, RRF)", test, doTest, (q) => gold[q]));
    const inCorpusOut: Row[] = [await run("Dense-graph", test, dgTest, (q) => goldOut[q]), await run("Dense-only", test, doTest, (q) => goldOut[q])];
    const inCorpusCite: Row[] = [await run("Dense-graph", test, dgTest, (q) => citeGold[q]), await run("Dense-only", test, doTest, (q) => citeGold[q])];

    // ── 2. out of corpus ──
    const oocIdx = data.queries.ids.map((_, i) => i);
    const oocItems = (i: number): Partial<Record<Facet, Float32Array[]>> => Object.fromEntries(FACETS.map((f) => [f, data.queries.items[f][i]]));
    const oocGold = (i: number): Set<number> => new Set(data.queries.gold[i]);
    // A query id that is also a corpus id would be the query itself: never return it.
    const selfOf = (i: number): number => data.index.get(data.queries.ids[i]) ?? -1;
    const ooc: Row[] = [
      await run(
        "Dense-graph (ephemeral insertion, 2-hop)",
        oocIdx,
        async (i) => papersOf((await denseGraphEphemeral(engine, index, main.graph, oocItems(i), { exclude: selfOf(i) })).results),
        oocGold,
      ),
      await run(
        "Dense-only (facet max-sim, RRF)",
        oocIdx,
        async (i) => papersOf(await denseOnlyRetrieve(engine, index, oocItems(i), { exclude: selfOf(i) })),
        oocGold,
      ),
    ];

    // ── 3. α sweep, dev split, gold fixed to the main graph ──
    const sweep: SweepRow[] = [];
    for (const alpha of ALPHAS) {
      const g = alpha === mainAlpha ? main : await buildGraph(data, citations, alpha);
      const retrieve = memo(`sweep${alpha}`, (q) => denseGraphInCorpus(g.graph, q));
      sweep.push({
        alpha,
        graph: await run(`α=${alpha}`, dev, retrieve, (q) => gold[q]),
        cite: await run(`α=${alpha} (citation gold)`, dev, retrieve, (q) => citeGold[q]),
        buildSeconds: g.seconds,
      });
    }

    // ── 4. walk depth, test split ──
    const hops: Row[] = [];
    for (const h of HOPS)
      hops.push(
        await run(
          `${h}-hop`,
          test,
          memo(`hops${h}`, (q) => denseGraphInCorpus(main.graph, q, { hops: h })),
          (q) => gold[q],
        ),
      );

    // ── report ──
    const totalSeconds = seconds(tStart);
    const { md, json } = denseGraphReport({
      data,
      mainAlpha,
      mainSeconds: main.seconds,
      test,
      dev,
      totalSeconds,
      inCorpus,
      inCorpusOut,
      inCorpusCite,
      ooc,
      sweep,
      hops,
    });
    mkdirSync(outDir, { recursive: true });
    writeFileSync(path.join(outDir, "dense-graph.md"), md);
    writeFileSync(path.join(outDir, "dense-graph.json"), `${JSON.stringify(json, null, 2)}\n`);
    console.log(md);
    log(`wrote ${path.join(outDir, "dense-graph.md")} and dense-graph.json (${totalSeconds.toFixed(0)} s)`);
  } finally {
    await engine.release();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
