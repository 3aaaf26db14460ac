/**
 * One entry point for the four fusion rules compared in the paper's fusion table: plain RRF,
 * graph-RRF (Graft's), corroboration RRF (graph-RRF for out-of-corpus queries) and MINDER's
 * LM-score combination.
 */
import { corroborationRrf, type CorroborationOptions } from "./corroboration";
import { graphRrf, type GraphRrfOptions } from "./graph-rrf";
import { lmScore, type LmScoreOptions } from "./lm-score";
import { rrf, type RrfOptions } from "./rrf";
import type { FacetLists, FusedResult } from "./types";

export type FusionName = "rrf" | "graph-rrf" | "corroboration" | "lm-score";

/** Per-query context: graph-RRF needs the query's corpus index; others ignore it (bar exclusion). */
export interface FuseContext {
  query?: number;
}

export interface Fusion {
  readonly name: FusionName;
  fuse(lists: FacetLists, context?: FuseContext): FusedResult[];
}

/** Options fixed at creation; the query arrives per call. */
export interface FusionConfigs {
  rrf: RrfOptions;
  "graph-rrf": Omit<GraphRrfOptions, "query">;
  corroboration: CorroborationOptions;
  "lm-score": LmScoreOptions;
}

export function createFusion<N extends FusionName>(
  name: N,
  ...args: N extends "graph-rrf" | "corroboration" ? [FusionConfigs[N]] : [FusionConfigs[N]?]
): Fusion {
  const options = (args[0] ?? {}) as FusionConfigs[FusionName];
  // An in-corpus query is excluded from its own results unless the caller set `exclude`.
  const exclude = (o: { exclude?: number }, ctx?: FuseContext): number | undefined => o.exclude ?? ctx?.query;
  switch (name as FusionName) {
    case "rrf": {
      const o = options as RrfOptions;
      return { name, fuse: (lists, ctx) => rrf(lists, { ...o, exclude: exclude(o, ctx) }) };
    }
    case "graph-rrf": {
      const o = options as FusionConfigs["graph-rrf"];
      if (typeof o.weightOf !== "function") throw new Error("createFusion(graph-rrf): weightOf is required");
      return {
        name,
        fuse: (lists, ctx) => {
          if (ctx?.query === undefined) throw new Error("graph-rrf: the query's corpus index is required");
          return graphRrf(lists, { ...o, query: ctx.query });
        },
      };
    }
    case "corroboration": {
      const o = options as CorroborationOptions;
      return { name, fuse: (lists, ctx) => corroborationRrf(lists, { ...o, exclude: exclude(o, ctx) }) };
    }
    case "lm-score": {
      const o = options as LmScoreOptions;
      return { name, fuse: (lists, ctx) => lmScore(lists, { ...o, exclude: exclude(o, ctx) }) };
    }
    default:
      throw new Error(`createFusion: unknown fusion "${String(name)}"`);
  }
}

export { rrf, fuseWholePaper, type RrfOptions, type WholePaperList } from "./rrf";
export { graphRrf, csrWeightOf, type GraphRrfOptions, type WeightOf } from "./graph-rrf";
export { corroborationRrf, corroboration, csrFacetRow, type CorroborationOptions, type FacetScore, type FacetRow } from "./corroboration";
export { lmScore, type LmScoreOptions } from "./lm-score";
export { bestSingleFacet, leaveOneFacetOut, type SubsetEvaluator } from "./ablation";
export * from "./types";
