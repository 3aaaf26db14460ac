/**
 * The "ablations" suite: walk depth and the α sweep (the served dense-graph retriever at 1-3 hops,
 * and on each α's graph; its walks fused with RRF), and the
 * K_min, identifier-scheme and supervision tables (one generative model per row).
 */
import { denseGraphRetriever } from "@/lib/retrieve";
import { corpusIndex } from "../corpus-index";
import { GENERATIVE_VARIANTS } from "../generative";
import { PAPER_ALPHA, PAPER_HOPS, PAPER_IDENTIFIERS, PAPER_KMIN, PAPER_SUPERVISION } from "../paper-figures";
import type { RecallRow } from "../report";
import { ALPHAS, HOPS } from "./constants";
import { fusedPapers, type EvalContext } from "./context";

/** Dense-graph recall on the test queries at 1, 2 and 3 hops. */
export async function walkDepthTable(ctx: EvalContext): Promise<RecallRow[]> {
  const { test, paperContext, rowFrom, goldOf } = ctx;
  const walk: RecallRow[] = [];
  for (const h of HOPS)
    walk.push(
      (
        await rowFrom(
          `${h}-hop`,
          `${h}-hop`,
          test,
          (q) => fusedPapers(denseGraphRetriever, { ...paperContext(q), walk: { hops: h } }, "rrf"),
          (p) => goldOf(test[p]),
          { param: h, paper: PAPER_HOPS[String(h)] },
        )
      ).row,
    );
  return walk;
}

/** Dense-graph recall on the dev queries over graphs built at each α (β = 1 − α); gold stays the α = 0.75 graph's. */
export async function alphaTable(ctx: EvalContext): Promise<RecallRow[]> {
  const { data, dev, index, facetIndex, mainAlpha, buildGraph, paperContext, rowFrom, goldOf } = ctx;
  const sweep: RecallRow[] = [];
  for (const a of ALPHAS) {
    // The served dense-graph retriever on the corpus with this α's graph, its walks fused with RRF.
    const on = a === mainAlpha ? index : corpusIndex(data, await buildGraph(a), facetIndex, a);
    sweep.push(
      (
        await rowFrom(
          `alpha-${a}`,
          `α = ${a.toFixed(2)}, β = ${(1 - a).toFixed(2)}`,
          dev,
          (q) => fusedPapers(denseGraphRetriever, paperContext(q, on), "rrf"),
          (p) => goldOf(dev[p]),
          { param: a, paper: PAPER_ALPHA[String(a)] },
        )
      ).row,
    );
  }
  return sweep;
}

/** The coverage floor K_min = 1..4 (K_min = 3 is the +floor model). */
export async function kMinTable(ctx: EvalContext): Promise<RecallRow[]> {
  const { generativeRow } = ctx;
  return [
    await generativeRow("kmin-1", "kmin-1", "K_min = 1", { param: 1, paper: PAPER_KMIN["1"] }),
    await generativeRow("kmin-2", "kmin-2", "K_min = 2", { param: 2, paper: PAPER_KMIN["2"] }),
    await generativeRow("+floor", "kmin-3", "K_min = 3 (+floor)", { param: 3, paper: PAPER_KMIN["3"] }),
    await generativeRow("kmin-4", "kmin-4", "K_min = 4", { param: 4, paper: PAPER_KMIN["4"] }),
  ];
}

/** Identifier schemes: numeric and C2T DocIDs against the facet-item bullets. */
export async function identifiersTable(ctx: EvalContext): Promise<RecallRow[]> {
  const { generativeRow } = ctx;
  return [
    await generativeRow("docid-numeric", "docid-numeric", GENERATIVE_VARIANTS["docid-numeric"].label, { paper: PAPER_IDENTIFIERS["docid-numeric"] }),
    await generativeRow("docid-c2t", "docid-c2t", GENERATIVE_VARIANTS["docid-c2t"].label, { paper: PAPER_IDENTIFIERS["docid-c2t"] }),
    await generativeRow("uniform", "docid-bullet", "Facet-item bullet (uniform)", { paper: PAPER_IDENTIFIERS["docid-bullet"] }),
  ];
}

/** Supervision alternatives: uniform and graph-weighted sampling, CE reweighting, exhaustive pairing, hard negatives. */
export async function supervisionTable(ctx: EvalContext): Promise<RecallRow[]> {
  const { generativeRow } = ctx;
  const supervision: RecallRow[] = [];
  for (const v of ["uniform", "ce-reweight", "+oversample", "exhaustive", "hard-neg-50", "hard-neg-100"] as const) {
    supervision.push(
      await generativeRow(
        v,
        v,
        v === "+oversample" ? "Graph-weighted sampling (ours)" : v === "uniform" ? "Uniform sampling (base)" : GENERATIVE_VARIANTS[v].label,
        { paper: PAPER_SUPERVISION[v] },
      ),
    );
  }
  return supervision;
}
