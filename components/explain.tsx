import type { ReactNode } from "react";
import type { Facet } from "@/lib/corpus";
import type { AppliedFusion, FusionName } from "@/lib/query";
import { FACET_STYLES } from "./facets";
import { listJoin } from "./format";

export { chipMeaning } from "./facets";
export { listJoin, ordinal } from "./format";

// Plain-language explanations of how Graft ranks papers, for readers who are scientists but not
// retrieval specialists. Each sentence comes first; the formula behind it (graph-RRF, w_f, α·s)
// stays one click away in a <details>, so nothing technical is lost.

/**
 * "Found through its problems (rank 19) and methods (rank 2)." — what a result's chips say; a
 * paper the whole-paper list also found (the hybrid retriever) says so at the end.
 */
export function foundThrough(facets: readonly { facet: Facet; rank: number }[], wholePaperRank?: number): string {
  const whole = wholePaperRank !== undefined ? `the whole paper's text (rank ${wholePaperRank})` : null;
  if (facets.length === 0) return whole ? `Found through ${whole} only, not through one facet.` : "Not credited to any facet.";
  const parts = facets.map((f) => `${FACET_STYLES[f.facet].label.toLowerCase()} (rank ${f.rank})`);
  return `Found through its ${listJoin(whole ? [...parts, `by ${whole}`] : parts)}.`;
}

/** How the fused ranking was made, in a sentence. */
export const FUSION_PLAIN: Record<AppliedFusion, string> = {
  "graph-rrf":
    "Each facet finds papers on its own. Papers found through more facets, nearer the top of a facet's list and more strongly linked to this paper in the facet graph come first.",
  rrf: "Each facet finds papers on its own. Papers found through more facets and nearer the top of a facet's list come first; every facet counts the same.",
  "corroboration-rrf":
    "Each facet finds papers on its own. Papers found through more facets, nearer the top of a facet's list and similar to the other papers found come first (this paper is new to the corpus, so it has no links in the facet graph yet).",
  "lm-score": "Each facet finds papers on its own. Papers that the model generated most confidently, through more facets, come first.",
};

/** One short line per fusion, for the option itself. */
export const FUSION_SHORT: Record<FusionName, string> = {
  auto: "The best rule for the chosen retriever (recommended).",
  "graph-rrf": "Favours papers strongly linked to this one in the facet graph.",
  rrf: "Every facet counts the same.",
  "corroboration-rrf": "Favours papers that the other results resemble.",
  "lm-score": "Follows the model's confidence.",
};

/** The formula behind each rule (the paper's notation). */
export const FUSION_TECHNICAL: Record<AppliedFusion, string> = {
  "graph-rrf":
    "Graph-RRF: score(d) = Σ_f w_f(q, d) / (60 + rank_f(d)) over the facets f whose list holds d, where rank_f(d) is d's rank in facet f's list and w_f(q, d) = α·s + β·c is the weight of the typed-graph edge between the query q and d in facet f (s: facet similarity, c: citation score); a facet without an edge adds 0.",
  rrf: "Reciprocal-rank fusion (RRF): score(d) = Σ_f 1 / (60 + rank_f(d)) over the facets f whose list holds d.",
  "corroboration-rrf":
    "Corroboration RRF: score(d) = Σ_f corr_f(d) / (60 + rank_f(d)), where corr_f(d) sums d's facet-f similarity with the other retrieved candidates; it stands in for w_f(q, d) when the query has no edges in the graph.",
  "lm-score": "LM score: score(d) = Σ_f P_f(d), the probability of d's identifier (DocID) as decoded for facet f.",
};

/** A sentence, then the technical detail one click away. */
export function Explained({
  plain,
  summary = "How this is computed",
  children,
  size = "xs",
  className = "",
  testId,
}: {
  plain?: ReactNode;
  summary?: string;
  children: ReactNode;
  size?: "xs" | "sm";
  className?: string;
  testId?: string;
}) {
  return (
    <div className={`${size === "sm" ? "text-sm" : "text-xs"} leading-relaxed text-ink-muted ${className}`} data-testid={testId}>
      {plain && <p data-testid="plain">{plain}</p>}
      <details className={plain ? "mt-1" : ""}>
        <summary className="w-fit cursor-pointer text-ink-faint hover:text-ink">{summary}</summary>
        <div className="mt-1 space-y-1 rounded-md bg-canvas px-3 py-2 text-ink-muted">{children}</div>
      </details>
    </div>
  );
}

/** The explorer's and paper page's note on how the list was ranked. */
export function FusionExplainer({ fusion, note, className = "" }: { fusion: AppliedFusion; note?: string | null; className?: string }) {
  return (
    <Explained plain={FUSION_PLAIN[fusion]} summary="How the ranking is computed" className={className} testId="fusion-explainer">
      <p>{FUSION_TECHNICAL[fusion]}</p>
      {note && <p>{note}</p>}
    </Explained>
  );
}
