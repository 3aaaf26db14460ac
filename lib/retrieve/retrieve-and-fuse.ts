/**
 * The one retrieve-and-fuse step (paper §"Facet Fusion with Graph-RRF"): a retriever's facet
 * lists, cut to the requested facets (and a re-ranking request's candidates), fused by a rule,
 * the whole-paper list fused beside them, then the retriever's second stage. relatedPapers runs
 * it on the served build, the evaluation harness on its files-based corpus (any RetrievalIndex),
 * so a table's row and an answer of the API rank through the same code.
 *
 * Fusion of an unseen paper (no node, so no stored edges w_f(q, d)): graph-RRF reads w_f from the
 * ephemeral edges the retriever recorded in ctx.queryEdges, else runs as corroboration RRF.
 */
import { FACETS, type Facet } from "@/lib/corpus/types";
import { createFusion, csrFacetRow, csrWeightOf, fuseWholePaper, type Candidate, type FacetLists, type Fusion, type FusedResult } from "@/lib/fusion";
import type { FacetCandidate, IndexRetrieveContext, Retriever } from "./retriever";

/** The fusion rules (relatedPapers' AppliedFusion: the rule that actually ran). */
export type FusionRule = "graph-rrf" | "corroboration-rrf" | "rrf" | "lm-score";

/** Every candidate is kept: filters apply after fusion, and the union is at most 4 × the pool. */
const ALL = Number.MAX_SAFE_INTEGER;

/**
 * Corroboration RRF's retrieved set C: each facet list's top 50 (the generative retriever's
 * beam width). Over the walk's full 500-candidate lists, corr_f rewards hubs of the retrieved
 * neighbourhood whatever their rank: on the 212 out-of-corpus queries with BM25 lists,
 * R@20/R@50 = 0.226/0.358 with C = top 500 against 0.264/0.396 with C = top 50.
 */
export const CORROBORATION_DEPTH = 50;

const UNSEEN_NOTE = "The query is not a node of the paper graph, so it has no stored edges w_f(q, d)";

export interface FusedRetrieval {
  /** The requested facets' lists as the retriever returned them (only the candidates, when given). */
  lists: Partial<Record<Facet, FacetCandidate[]>>;
  /** The same lists as fusion reads them. */
  fusionLists: FacetLists;
  /** The whole-paper list the retriever added, if any (only the candidates, when given). */
  wholePaper?: { list: FacetCandidate[]; weight: number };
  /** Fused, then re-ordered by the retriever's second stage; best first. */
  fused: FusedResult[];
  applied: FusionRule;
  /** Why the applied rule differs from the requested one, or null. */
  note: string | null;
  retrieveMs: number;
  fuseMs: number;
}

/** Settings of the rules that the evaluation's tables vary; relatedPapers leaves them at their defaults. */
export interface FusionSettings {
  /** Corroboration RRF's retrieved set C: each list's top this many papers (default CORROBORATION_DEPTH; Infinity: whole lists, the paper's out-of-corpus table). */
  corroborationDepth?: number;
}

/**
 * Retrieves with `retriever` and fuses with `fusion` ("auto": the retriever's preferred rule,
 * default graph-RRF). `onFuse` is told the rule before fusion runs (progress messages).
 */
export async function retrieveAndFuse<C extends IndexRetrieveContext>(
  retriever: Retriever<C>,
  ctx: C,
  fusion: FusionRule | "auto",
  onFuse?: (applied: FusionRule) => void,
  settings: FusionSettings = {},
): Promise<FusedRetrieval> {
  const t0 = performance.now();
  const raw = await retriever.retrieve(ctx);
  const lists = restrictCandidates(raw, ctx.facets, ctx.candidates);
  const only = ctx.candidates;
  const wholePaper = ctx.wholePaper && only ? { ...ctx.wholePaper, list: ctx.wholePaper.list.filter((c) => only.has(c.paper)) } : ctx.wholePaper;
  const retrieveMs = performance.now() - t0;

  const requested = fusion === "auto" ? (retriever.preferredFusion ?? "graph-rrf") : fusion;
  const { fuse, applied, note } = chooseFusion(ctx, requested, retriever, settings);
  onFuse?.(applied);
  const t1 = performance.now();
  const skip = ctx.query.index ?? ctx.query.exclude ?? undefined;
  const fusionLists = toFusionLists(lists);
  const facetFused = fuse(fusionLists, skip);
  const pooled = wholePaper
    ? fuseWholePaper(facetFused, { papers: wholePaper.list.map((c) => c.paper), weight: wholePaper.weight }, { exclude: skip })
    : facetFused;
  const fused = retriever.rerank ? await retriever.rerank(ctx, pooled) : pooled;
  return { lists, fusionLists, ...(wholePaper ? { wholePaper } : {}), fused, applied, note, retrieveMs, fuseMs: performance.now() - t1 };
}

/** The requested facets' lists, and with candidates only the candidates (ranks then count among them). */
function restrictCandidates(
  lists: Partial<Record<Facet, FacetCandidate[]>>,
  facets: readonly Facet[],
  only?: ReadonlySet<number>,
): Partial<Record<Facet, FacetCandidate[]>> {
  const out: Partial<Record<Facet, FacetCandidate[]>> = {};
  for (const f of facets) {
    const l = lists[f];
    if (l) out[f] = only ? l.filter((c) => only.has(c.paper)) : l;
  }
  return out;
}

function toFusionLists(lists: Partial<Record<Facet, FacetCandidate[]>>): FacetLists {
  const out: Partial<Record<Facet, Candidate[]>> = {};
  for (const f of FACETS) {
    const l = lists[f];
    if (l) out[f] = l.map((c) => ({ paper: c.paper, score: c.score, ...(c.queryItem !== undefined ? { queryItem: c.queryItem } : {}) }));
  }
  return out;
}

interface ChosenFusion {
  applied: FusionRule;
  note: string | null;
  fuse(lists: FacetLists, exclude: number | undefined): FusedResult[];
}

function truncate(lists: FacetLists, depth: number): FacetLists {
  const out: Partial<Record<Facet, readonly Candidate[]>> = {};
  for (const f of FACETS) {
    const l = lists[f];
    if (!l) continue;
    // Depth counts unique papers, as ranks do.
    const seen = new Set<number>();
    let end = 0;
    while (end < l.length && (seen.size < depth || seen.has(l[end].paper))) seen.add(l[end++].paper);
    out[f] = l.slice(0, end);
  }
  return out;
}

function chooseFusion(
  ctx: IndexRetrieveContext,
  requested: FusionRule,
  retriever: Pick<Retriever, "name" | "scoreKind">,
  settings: FusionSettings,
): ChosenFusion {
  const g = ctx.graph;
  const depth = settings.corroborationDepth ?? CORROBORATION_DEPTH;
  const corroboration = (note: string | null): ChosenFusion => {
    const fusion: Fusion = createFusion("corroboration", { facetRow: csrFacetRow(g.graph), topN: ALL });
    return { applied: "corroboration-rrf", note, fuse: (lists, exclude) => fusion.fuse(truncate(lists, depth), { query: exclude }) };
  };
  const plain = (fusion: Fusion, applied: FusionRule): ChosenFusion => ({
    applied,
    note: null,
    fuse: (lists, exclude) => fusion.fuse(lists, { query: exclude }),
  });
  switch (requested) {
    case "graph-rrf": {
      if (ctx.query.index !== null) return plain(createFusion("graph-rrf", { weightOf: csrWeightOf(g.graph), topN: ALL }), "graph-rrf");
      const edges = new Map<Facet, Map<number, number>>();
      for (const f of FACETS) {
        const e = ctx.queryEdges[f];
        if (e) edges.set(f, new Map(Array.from(e.targets, (t, i) => [t, e.weights[i]])));
      }
      if (edges.size > 0) {
        const fusion = createFusion("graph-rrf", { weightOf: (f, _q, d) => edges.get(f)?.get(d) ?? 0, topN: ALL });
        return {
          applied: "graph-rrf",
          note: `${UNSEEN_NOTE}; graph-RRF read them from the ${retriever.name} retriever's walk of the typed graph, which starts from the query's ephemeral edges (its top-${g.graph.k} corpus papers per facet by facet similarity, weighted α·s)${retriever.name === "graft" ? " and the papers the model generated" : ""}.`,
          fuse: (lists, exclude) => fusion.fuse(lists, { query: exclude ?? -1 }),
        };
      }
      return corroboration(
        `${UNSEEN_NOTE}, so graph-RRF ran as corroboration RRF: each candidate is weighted by its facet similarity to the other top-${CORROBORATION_DEPTH} candidates.`,
      );
    }
    case "corroboration-rrf":
      return corroboration(null);
    case "rrf":
      return plain(createFusion("rrf", { topN: ALL }), "rrf");
    case "lm-score":
      return plain(createFusion("lm-score", { topN: ALL, logProb: retriever.scoreKind === "log-prob" }), "lm-score");
  }
}
