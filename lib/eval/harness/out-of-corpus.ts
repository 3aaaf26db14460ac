/**
 * The "ooc" suite: the out-of-corpus table (queries that are not in the corpus, gold = the corpus
 * papers they cite), the non-obvious retrievals analysis and out-of-corpus attribution.
 */
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { FacetLists, FusedResult } from "@/lib/fusion";
import { queryFacetTopK } from "@/lib/graph";
import { attributionOf, edgeListPairFacets } from "../attribution";
import { denseDocumentRetrieve, denseItemLists, packVectors } from "../baselines";
import { bm25WholePaper } from "@/lib/retrieve";
import { denseOnlyRetriever } from "@/lib/retrieve";
import { denseGraphRetriever } from "@/lib/retrieve";
import { papersOf } from "../dense-graph";
import { GENERATIVE_VARIANTS, GRAFT_VARIANT, type GenerativeVariant } from "../generative";
import {
  combineFacetScores,
  citationCounts,
  mostCitedNonObvious,
  nonObviousBaseRate,
  nonObviousRow,
  nonObviousStats,
  rankByCitations,
  type QueryObviousness,
} from "../nonobvious";
import { PAPER_NON_OBVIOUS, PAPER_OOC } from "../paper-figures";
import { notReproducedRow, notRunRow, type AttributionRow, type NonObviousMethodRow, type NonObviousSection, type RecallRow } from "../report";
import { EVAL_K, NEAREST, NON_OBVIOUS_K, PER_ITEM, SPECTER2_REASON, TOP_N } from "./constants";
import type { PrecomputedLists } from "@/lib/retrieve";
import type { FusionRule } from "@/lib/retrieve";
import type { QueryEdges } from "@/lib/retrieve";
import { fusedLists, fusedPapers, type EvalContext, type Retrieve } from "./context";

type FacetTopK = { targets: Int32Array; scores: Float32Array };
/** Per out-of-corpus query: the top-50 corpus papers by s_f in each facet it has items in. */
type Nearest = Partial<Record<Facet, FacetTopK>>[];

/**
 * Per query and facet: the top-50 corpus papers by s_f. Their top-20 prefix is the query's
 * ephemeral first-hop edges (the same ranking lib/retrieve/ephemeral.ts prunes to K), the
 * attribution reference out of corpus; the max over facets gives the obvious set.
 */
async function nearestByFacet(ctx: EvalContext): Promise<Nearest> {
  const { data, ooc, facetIndex, engine, oocSelf } = ctx;
  const nearest: Nearest = [];
  for (const i of ooc) {
    const per: Partial<Record<Facet, FacetTopK>> = {};
    for (const f of FACETS) {
      const items = data.queries.items[f][i];
      const blocks = facetIndex[f];
      if (blocks && items.length > 0) per[f] = await queryFacetTopK(engine, blocks, items, NEAREST, oocSelf(i));
    }
    nearest.push(per);
  }
  return nearest;
}

/**
 * Per query, its ephemeral first-hop edges w_f(q, d) (top-K by s_f, weighted α·s as
 * lib/retrieve/ephemeral.ts inserts it), which the shared step's graph-RRF reads for an unseen
 * query, as it does for the dense-graph lists of an unseen paper.
 */
function ephemeralEdges(nearest: Nearest, alpha: number): Partial<Record<Facet, QueryEdges>>[] {
  return nearest.map((per) =>
    Object.fromEntries(
      Object.entries(per).map(([f, l]) => [f, { targets: l.targets.subarray(0, EVAL_K), weights: Array.from(l.scores.subarray(0, EVAL_K), (s) => alpha * s) }]),
    ),
  );
}

interface OocRun {
  label: string;
  lists: ArrayLike<number>[];
}

interface OocTable {
  rows: RecallRow[];
  /** Retrieved lists of every row that ran, by method (the non-obvious analysis reads them). */
  runs: Map<string, OocRun>;
  /** Corroboration RRF over the dense item lists and over Graft's generative lists (null when it did not run). */
  denseCorroboration: FusedResult[][];
  graftCorroboration: FusedResult[][] | null;
}

/** The out-of-corpus table: dense-graph with ephemeral insertion, the baselines, and each generative model fused two ways. */
async function oocTable(ctx: EvalContext, nearest: Nearest): Promise<OocTable> {
  const { data, ooc, itemIndex, oocGold, oocItems, oocSelf, rowFrom, decode, mainAlpha, oocContext } = ctx;
  const docs = packVectors(data.documents?.papers ?? []);
  const rows: RecallRow[] = [];
  const runs = new Map<string, OocRun>();
  const add = async (method: string, label: string, retrieve: Retrieve, paper?: Partial<Record<"R@5" | "R@10" | "R@20" | "R@50", number>>) => {
    const r = await rowFrom(method, label, ooc, retrieve, (pos) => oocGold[pos], { paper });
    rows.push(r.row);
    runs.set(method, { label, lists: r.lists });
  };
  // The served retriever's ephemeral insertion and walk, with the paper's protocol: best paths (not sums), RRF.
  await add(
    "dense-graph",
    "Dense-graph (ephemeral insertion)",
    (i) => fusedPapers(denseGraphRetriever, { ...oocContext(i), walk: { combine: "max" } }, "rrf"),
    PAPER_OOC["dense-graph"],
  );
  await add("bm25", "BM25 (title + facets)", (i) => papersOf(bm25WholePaper(oocContext(i)).slice(0, TOP_N)), PAPER_OOC.bm25);
  await add(
    "doc-dense",
    `Document dense (title + abstract, ${data.embedderId})`,
    (i) => denseDocumentRetrieve(docs, data.documents?.queries[i] as Float32Array, TOP_N, oocSelf(i)),
    PAPER_OOC["doc-dense"],
  );
  rows.push(notReproducedRow("specter2", "SPECTER2 (title + abstract)", SPECTER2_REASON, PAPER_OOC.specter2));
  await add("dense-only", "Dense-only (facet max-sim, RRF)", (i) => fusedPapers(denseOnlyRetriever, oocContext(i), "rrf"));
  const denseItemsOoc = ooc.map((i) => denseItemLists(itemIndex, oocItems(i), { perItem: PER_ITEM, exclude: oocSelf(i) }));
  // Precomputed lists through the shared step, over every facet they have; the paper's corroboration reads whole lists.
  const oocFused = (pos: number, lists: PrecomputedLists, fusion: FusionRule): Promise<FusedResult[]> =>
    fusedLists(lists, { ...oocContext(ooc[pos]), facets: FACETS }, fusion, { corroborationDepth: Number.POSITIVE_INFINITY });
  const denseCorroboration = await Promise.all(
    ooc.map((_, pos) => oocFused(pos, { name: "dense-items", scoreKind: "score", lists: denseItemsOoc[pos] }, "corroboration-rrf")),
  );
  await add("dense-items-corroboration", "Dense item lists + corroboration RRF (no model)", (_i, pos) => papersOf(denseCorroboration[pos]));

  const edges = ephemeralEdges(nearest, mainAlpha);
  /** Out-of-corpus rows of one generative model: corroboration RRF (the paper's) and ephemeral graph-RRF. */
  const oocGenerative = async (variant: GenerativeVariant, method: string, label: string, paper?: RecallRow["paper"]): Promise<FusedResult[][] | null> => {
    const gen = await decode(variant, "ooc");
    if (!Array.isArray(gen) || !gen.every((r) => r.lists)) {
      const reason = Array.isArray(gen) ? "the provider returned views, not facet lists" : gen.reason;
      rows.push(notRunRow(method, `${label} (corroboration RRF)`, reason, { paper }));
      rows.push(notRunRow(`${method}-ephemeral`, `${label} (graph-RRF over ephemeral edges)`, reason));
      return null;
    }
    const listsOf = (pos: number): PrecomputedLists => ({ name: `generative:${variant}`, scoreKind: "log-prob", lists: gen[pos].lists as FacetLists });
    const corr = await Promise.all(ooc.map((_, pos) => oocFused(pos, listsOf(pos), "corroboration-rrf")));
    await add(method, `${label} (corroboration RRF)`, (_i, pos) => papersOf(corr[pos]), paper);
    await add(`${method}-ephemeral`, `${label} (graph-RRF over ephemeral edges)`, async (_i, pos) =>
      papersOf(await oocFused(pos, { ...listsOf(pos), queryEdges: edges[pos] }, "graph-rrf")),
    );
    return corr;
  };
  const graftCorroboration = await oocGenerative(GRAFT_VARIANT, "graft", "Graft", PAPER_OOC.graft);
  await oocGenerative("shipped", "graft-shipped", GENERATIVE_VARIANTS.shipped.label);
  return { rows, runs, denseCorroboration, graftCorroboration };
}

/** Non-obvious retrievals: of each method's top 20, the gold papers outside the query's 50 nearest by facet similarity. */
function nonObviousSection(ctx: EvalContext, table: OocTable, obvious: ReturnType<typeof combineFacetScores>[]): NonObviousSection {
  const { data, n, ooc, oocGold } = ctx;
  const { rows, runs } = table;
  const citedBy = citationCounts(data.refs);
  const byCount = rankByCitations(citedBy);
  const base = (lists: readonly ArrayLike<number>[]): QueryObviousness[] =>
    lists.map((retrieved, pos) => ({ retrieved, obvious: obvious[pos], gold: oocGold[pos] }));
  const baseRate = nonObviousBaseRate(base(ooc.map(() => [])), n);
  const control = nonObviousStats(base(obvious.map((o) => mostCitedNonObvious(citedBy, o, NON_OBVIOUS_K, byCount))), NON_OBVIOUS_K);
  const noRows: NonObviousMethodRow[] = [];
  for (const method of ["graft", "dense-graph", "dense-only", "bm25", "doc-dense", "dense-items-corroboration"]) {
    const run = runs.get(method);
    const paper = (PAPER_NON_OBVIOUS as unknown as Record<string, NonObviousMethodRow["paper"]>)[method];
    if (!run) {
      noRows.push({
        method,
        label: "Graft (corroboration RRF)",
        status: "not run",
        reason: rows.find((r) => r.method === method)?.reason ?? "not run",
        paper,
      });
      continue;
    }
    noRows.push({ method, label: run.label, status: "ok", ...nonObviousRow(nonObviousStats(base(run.lists), NON_OBVIOUS_K), baseRate, control), paper });
  }
  return {
    k: NON_OBVIOUS_K,
    nearest: NEAREST,
    queries: ooc.length,
    baseRate,
    control,
    rows: noRows,
    paper: { baseRate: PAPER_NON_OBVIOUS.baseRate },
  };
}

/** Out-of-corpus attribution: corroboration RRF against the query's ephemeral edges. */
function oocAttributionRows(table: OocTable, nearest: Nearest): AttributionRow[] {
  const ephemeralReference = nearest.map((per) =>
    edgeListPairFacets(Object.fromEntries(Object.entries(per).map(([f, l]) => [f, { targets: l.targets.subarray(0, EVAL_K) }]))),
  );
  const oocAttribution = (id: string, label: string, lists: string, res: FusedResult[][] | null, reason?: string): AttributionRow => {
    if (!res) return { id, label, setting: "out-of-corpus", lists, fusion: "corroboration", status: "not run", reason };
    const a = attributionOf(res.map((results, pos) => ({ results, reference: ephemeralReference[pos] })));
    return {
      id,
      label,
      setting: "out-of-corpus",
      lists,
      fusion: "corroboration",
      status: "ok",
      precision: a.precision,
      subsetShare: a.subsetShare,
      pairs: a.pairs,
      perFacet: Object.fromEntries(FACETS.map((f) => [f, a.perFacet[f].precision])),
    };
  };
  return [
    oocAttribution("corroboration:dense-items", "corroboration RRF over dense item lists", "dense-items", table.denseCorroboration),
    oocAttribution(
      `corroboration:generative:${GRAFT_VARIANT}`,
      `corroboration RRF over generative ${GRAFT_VARIANT}`,
      `generative:${GRAFT_VARIANT}`,
      table.graftCorroboration,
      table.rows.find((r) => r.method === "graft")?.reason,
    ),
  ];
}

export interface OutOfCorpusSections {
  ooc: RecallRow[];
  nonObvious: NonObviousSection;
  attribution: AttributionRow[];
}

/** The "ooc" suite's three sections, which share the queries' nearest papers by facet. */
export async function outOfCorpusSections(ctx: EvalContext): Promise<OutOfCorpusSections> {
  const nearest = await nearestByFacet(ctx);
  const obvious = nearest.map((per) => combineFacetScores(Object.values(per), NEAREST));
  const table = await oocTable(ctx, nearest);
  return { ooc: table.rows, nonObvious: nonObviousSection(ctx, table, obvious), attribution: oocAttributionRows(table, nearest) };
}
