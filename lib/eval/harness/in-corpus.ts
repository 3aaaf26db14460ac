/**
 * The in-corpus tables of the "main" suite: the main table (baselines and the generative
 * ladder), fusion with leave-one-facet-out and in-corpus attribution, and coverage (graph
 * coverage by K and training-target coverage per distillation recipe).
 */
import { FACETS, type Facet } from "@/lib/corpus/types";
import { bestSingleFacet, leaveOneFacetOut, type FacetLists, type FusedResult } from "@/lib/fusion";
import { DISTILL_VARIANTS, distill, distillationStatistics, trainMask, type DistillOptions } from "@/lib/genret";
import { buildDocIdIndex } from "@/lib/genret";
import { coverage as coverageAtK } from "@/lib/graph";
import { rescaleCosine } from "@/lib/graph";
import { attributionOf, graphPairFacets } from "../attribution";
import { denseDocumentRetrieve, packVectors } from "../baselines";
import { bm25WholePaper } from "@/lib/retrieve";
import { denseGraphRetriever } from "@/lib/retrieve";
import { denseOnlyRetriever } from "@/lib/retrieve";
import { papersOf } from "../dense-graph";
import { FUSION_VARIANT, GENERATIVE_VARIANTS, hasModelScores } from "../generative";
import { PAPER_COVERAGE_K, PAPER_FUSION, PAPER_LEAVE_ONE_OUT, PAPER_MAIN, PAPER_TARGET_COVERAGE } from "../paper-figures";
import { notReproducedRow, notRunRow, recallRow, type AttributionRow, type CoverageSection, type CoverageVariantRow, type RecallRow } from "../report";
import { S2_REASON, SPECTER2_REASON, TOP_N } from "./constants";
import type { FusionRule } from "@/lib/retrieve";
import { fusedLists, fusedPapers, type EvalContext } from "./context";

/** The main table: dense-graph, document dense, dense-only, BM25, the unreproducible baselines and the generative ladder. */
export async function mainTable(ctx: EvalContext): Promise<RecallRow[]> {
  const { data, test, paperContext, rowFrom, goldOf, generativeRow } = ctx;
  const docs = packVectors(data.documents?.papers ?? []);
  const rows: RecallRow[] = [];
  const testRow = async (method: string, label: string, retrieve: (q: number) => ArrayLike<number> | Promise<ArrayLike<number>>, extra: Partial<RecallRow>) =>
    (await rowFrom(method, label, test, retrieve, (p) => goldOf(test[p]), extra)).row;
  // The served retrievers on the corpus index; the walk's lists fused with RRF, as the paper's teacher is.
  rows.push(await testRow("dense-graph", "Dense-graph", (q) => fusedPapers(denseGraphRetriever, paperContext(q), "rrf"), { paper: PAPER_MAIN["dense-graph"] }));
  rows.push(
    await testRow(
      "doc-dense",
      `Document dense (title + abstract, ${data.embedderId})`,
      (q) => denseDocumentRetrieve(docs, data.documents?.papers[q] as Float32Array, TOP_N, q),
      { paper: PAPER_MAIN["doc-dense"] },
    ),
  );
  rows.push(
    await testRow("dense-only", "Dense-only (facet max-sim, RRF)", (q) => fusedPapers(denseOnlyRetriever, paperContext(q), "rrf"), {
      paper: PAPER_MAIN["dense-only"],
    }),
  );
  rows.push(await testRow("bm25", "BM25 (title + facets)", (q) => papersOf(bm25WholePaper(paperContext(q)).slice(0, TOP_N)), { paper: PAPER_MAIN.bm25 }));
  rows.push(notReproducedRow("specter2", "SPECTER2 (title + abstract)", SPECTER2_REASON, PAPER_MAIN.specter2));
  rows.push(notReproducedRow("s2-recommendations", "S2 Recommendations API", S2_REASON, PAPER_MAIN["s2-recommendations"]));
  rows.push(await generativeRow("minder", "minder", GENERATIVE_VARIANTS.minder.label, { paper: PAPER_MAIN.minder }));
  rows.push(await generativeRow("uniform", "graft-uniform", GENERATIVE_VARIANTS.uniform.label, { paper: PAPER_MAIN["graft-uniform"] }));
  rows.push(await generativeRow("+oversample", "graft-oversample", GENERATIVE_VARIANTS["+oversample"].label, { paper: PAPER_MAIN["graft-oversample"] }));
  rows.push(await generativeRow("+floor", "graft-floor", GENERATIVE_VARIANTS["+floor"].label, { paper: PAPER_MAIN["graft-floor"] }));
  rows.push(await generativeRow("+fallback", "graft", GENERATIVE_VARIANTS["+fallback"].label, { paper: PAPER_MAIN.graft }));
  // The ladder above is trained at one reduced, equal budget; this is the model users get.
  rows.push(await generativeRow("shipped", "graft-shipped", `${GENERATIVE_VARIANTS.shipped.label} (graph-RRF)`));
  return rows;
}

/**
 * Candidate lists the fusion table fuses: per test position, the lists of one source, and what
 * their scores are (LM-score sums exp(log-prob), or probabilities as they are).
 */
type ListSource = { key: string; label: string; perQuery: (pos: number) => FacetLists; scoreKind: "log-prob" | "prob" };
type MissingSource = { key: string; label: string; reason: string };

/** Cosines are not probabilities: rescaled to [0, 1] as the graph's s_f is, LM-score then sums them like probabilities. */
function cosinesAsProbabilities(lists: FacetLists): FacetLists {
  return Object.fromEntries(Object.entries(lists).map(([f, l]) => [f, l?.map((c) => ({ ...c, score: rescaleCosine(c.score ?? -1) }))]));
}

/** The fusion table's list sources: the dense item lists (always) and the fusion variant's generative lists (when they ran). */
async function fusionSources(ctx: EvalContext): Promise<(ListSource | MissingSource)[]> {
  const { test, decode, denseItemsOf } = ctx;
  const sources: (ListSource | MissingSource)[] = [
    { key: "dense-items", label: "dense item lists", perQuery: (pos) => cosinesAsProbabilities(denseItemsOf(test[pos])), scoreKind: "prob" },
  ];
  const gen = await decode(FUSION_VARIANT, "test");
  const genKey = `generative:${FUSION_VARIANT}`;
  if (Array.isArray(gen)) {
    if (gen.some((r) => !r.lists)) sources.push({ key: genKey, label: `generative ${FUSION_VARIANT}`, reason: "the provider returned views, not facet lists" });
    else sources.push({ key: genKey, label: `generative ${FUSION_VARIANT}`, perQuery: (pos) => gen[pos].lists as FacetLists, scoreKind: "log-prob" });
  } else sources.push({ key: genKey, label: `generative ${FUSION_VARIANT}`, reason: gen.reason });
  return sources;
}
export interface FusionTables {
  fusion: RecallRow[];
  leaveOneOut: RecallRow[];
  /** In-corpus attribution of every (fusion rule, list source) pair. */
  attribution: AttributionRow[];
}

/** The rows of a list source that did not run: every fusion, leave-one-out and attribution row carries its reason. */
function missingSourceRows(src: MissingSource, out: FusionTables): void {
  const tag = ` [${src.key}]`;
  for (const m of ["best-single-facet", "rrf", "lm-score", "graph-rrf"])
    out.fusion.push(notRunRow(m, `${m}${tag}`, src.reason, { lists: src.key, paper: PAPER_FUSION[m] }));
  out.leaveOneOut.push(notRunRow("graph-rrf", `Graph-RRF (all four facets)${tag}`, src.reason, { lists: src.key }));
  for (const f of ["graph-rrf", "rrf", "lm-score"]) {
    out.attribution.push({
      id: `${f}:${src.key}`,
      label: `${f} over ${src.label}`,
      setting: "in-corpus",
      lists: src.key,
      fusion: f,
      status: "not run",
      reason: src.reason,
    });
  }
}

/** Fusion, leave-one-facet-out and in-corpus attribution rows of one list source. */
async function sourceFusionRows(ctx: EvalContext, src: ListSource, pairFacets: ReturnType<typeof graphPairFacets>, out: FusionTables): Promise<void> {
  const { test, paperContext, score, goldOf, log } = ctx;
  const tag = ` [${src.key}]`;
  const lmUsable = src.scoreKind === "log-prob" ? test.every((_, pos) => hasModelScores(src.perQuery(pos))) : true;
  // Each query's lists through the shared step; a subset of the facets is the step's facet cut.
  const fused = (rule: FusionRule, facets: readonly Facet[] = FACETS): Promise<FusedResult[][]> =>
    Promise.all(test.map((q, pos) => fusedLists({ name: src.key, scoreKind: src.scoreKind, lists: src.perQuery(pos) }, { ...paperContext(q), facets }, rule)));
  // The ablations' evaluators are synchronous: graph-RRF over every subset they ask for (all, each facet, each facet left out) first.
  const subsets = [FACETS, ...FACETS.map((f) => [f]), ...FACETS.map((r) => FACETS.filter((f) => f !== r))];
  const bySubset = new Map<string, FusedResult[][]>();
  for (const fs of subsets) bySubset.set(fs.join(","), await fused("graph-rrf", fs));
  const graphRrfOver = (fs: readonly Facet[]): FusedResult[][] => {
    const r = bySubset.get(fs.join(","));
    if (!r) throw new Error(`fusion table: no graph-RRF run over ${fs.join(", ")}`);
    return r;
  };
  const recallOf = (results: FusedResult[][]) => score(test, results.map(papersOf), (pos) => goldOf(test[pos]));
  const r20 = (results: FusedResult[][]): number => recallOf(results).recall[20].estimate;

  const best = bestSingleFacet((fs) => r20(graphRrfOver(fs)));
  out.fusion.push(
    recallRow("best-single-facet", `Best single facet (${best.facet}), graph-RRF${tag}`, recallOf(graphRrfOver([best.facet])), {
      lists: src.key,
      paper: PAPER_FUSION["best-single-facet"],
    }),
  );
  const results = { rrf: await fused("rrf"), "lm-score": lmUsable ? await fused("lm-score") : null, "graph-rrf": graphRrfOver(FACETS) };
  out.fusion.push(recallRow("rrf", `Uniform RRF (no graph)${tag}`, recallOf(results.rrf), { lists: src.key, paper: PAPER_FUSION.rrf }));
  out.fusion.push(
    results["lm-score"]
      ? recallRow("lm-score", `MINDER combination (LM-score sum)${tag}`, recallOf(results["lm-score"]), {
          lists: src.key,
          paper: PAPER_FUSION["lm-score"],
        })
      : notRunRow("lm-score", `MINDER combination (LM-score sum)${tag}`, "the provider's candidates carry no model scores", { lists: src.key }),
  );
  out.fusion.push(
    recallRow("graph-rrf", `Graph-RRF (all four facets)${tag}`, recallOf(results["graph-rrf"]), { lists: src.key, paper: PAPER_FUSION["graph-rrf"] }),
  );
  log(`fusion over ${src.key}: done`);

  const loo = leaveOneFacetOut((fs) => r20(graphRrfOver(fs)));
  out.leaveOneOut.push({
    ...recallRow("graph-rrf", `Graph-RRF (all four facets)${tag}`, recallOf(results["graph-rrf"]), { lists: src.key }),
    "R@20": loo.full,
    paper: { "R@20": PAPER_LEAVE_ONE_OUT.all },
  });
  for (const r of loo.rows) {
    out.leaveOneOut.push({
      ...recallRow(`without-${r.removed}`, `− ${r.removed}${tag}`, recallOf(graphRrfOver(FACETS.filter((f) => f !== r.removed))), { lists: src.key }),
      delta: r.delta,
      paper: { "R@20": PAPER_LEAVE_ONE_OUT[r.removed] },
    });
  }

  for (const [fusion, res] of Object.entries(results) as [string, FusedResult[][] | null][]) {
    const id = `${fusion}:${src.key}`;
    const label = `${fusion} over ${src.label}`;
    if (!res) {
      out.attribution.push({ id, label, setting: "in-corpus", lists: src.key, fusion, status: "not run", reason: "no model scores" });
      continue;
    }
    const a = attributionOf(test.map((q, pos) => ({ results: res[pos], reference: pairFacets(q) })));
    out.attribution.push({
      id,
      label,
      setting: "in-corpus",
      lists: src.key,
      fusion,
      status: "ok",
      precision: a.precision,
      subsetShare: a.subsetShare,
      pairs: a.pairs,
      perFacet: Object.fromEntries(FACETS.map((f) => [f, a.perFacet[f].precision])),
    });
  }
}

/** The fusion table, leave-one-facet-out and in-corpus attribution, over every list source. */
export async function fusionTables(ctx: EvalContext): Promise<FusionTables> {
  const sources = await fusionSources(ctx);
  const out: FusionTables = { fusion: [], leaveOneOut: [], attribution: [] };
  const pairFacets = graphPairFacets(ctx.graph);
  for (const src of sources) {
    if ("perQuery" in src) await sourceFusionRows(ctx, src, pairFacets, out);
    else missingSourceRows(src, out);
  }
  return out;
}

/** Distillation recipes whose training-target coverage the coverage section reports: the ladder, the ablations and the K_min sweep. */
function coverageRecipes(): [string, string, DistillOptions][] {
  return [
    ...(Object.keys(DISTILL_VARIANTS) as (keyof typeof DISTILL_VARIANTS)[]).map((v): [string, string, DistillOptions] => [
      v,
      GENERATIVE_VARIANTS[v].label,
      DISTILL_VARIANTS[v],
    ]),
    ["kmin-1", GENERATIVE_VARIANTS["kmin-1"].label, { oversample: true, floor: true, kMin: 1 }],
    ["kmin-2", GENERATIVE_VARIANTS["kmin-2"].label, { oversample: true, floor: true, kMin: 2 }],
    ["kmin-4", GENERATIVE_VARIANTS["kmin-4"].label, { oversample: true, floor: true, kMin: 4 }],
  ];
}

/** Coverage: the share of papers with an incoming edge at K = 10/20/50, and each distillation recipe's training-target coverage. */
export async function coverageSection(ctx: EvalContext, distillCoverage: boolean): Promise<CoverageSection> {
  const { data, graph, n, seed, mainAlpha, buildGraph, log } = ctx;
  const graph50 = await buildGraph(mainAlpha, 50);
  const byK = coverageAtK(graph50.facets, [10, 20, 50], 50).map((c) => ({
    k: c.k,
    covered: c.covered,
    share: c.share,
    perFacet: Object.fromEntries(FACETS.map((f) => [f, c.perFacet[f]?.share ?? 0])),
    paper: PAPER_COVERAGE_K[String(c.k)],
  }));
  const docIds = buildDocIdIndex(data.ids.map((externalId, i) => ({ externalId, facets: data.texts[i].facets })));
  const input = { graph, items: docIds.facets, sourceMask: trainMask(data.splits) };
  const distilled = ([variant, label, recipe]: [string, string, DistillOptions]): CoverageVariantRow => {
    const t0 = performance.now();
    const s = distillationStatistics(distill(input, { seed, ...recipe }), n);
    const row: CoverageVariantRow = {
      variant,
      label,
      status: "ok",
      examples: s.examples,
      targetCoverage: s.targetCoverage,
      targetPapers: s.targetPapers,
      identifiersUnderKMin: s.identifiersUnderKMin,
      byOrigin: s.byOrigin,
      seconds: (performance.now() - t0) / 1000,
      paper: PAPER_TARGET_COVERAGE[variant],
    };
    log(`coverage ${variant}: ${s.examples} examples, target coverage ${(100 * s.targetCoverage).toFixed(1)}% (${row.seconds?.toFixed(1)} s)`);
    return row;
  };
  const variants: CoverageVariantRow[] = distillCoverage ? coverageRecipes().map(distilled) : [];
  return { papers: n, byK, variants };
}
