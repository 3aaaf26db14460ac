import type { AttributionRow, AttributionSection } from "../report";
import { PAPER_ATTRIBUTION } from "../paper-figures";

const REFERENCE =
  "in-corpus: the facets in which query and paper share an edge of the top-20 graph, either direction (graph-RRF credits a facet only where the query's own row holds the paper, so its in-corpus precision is 1 by construction); out-of-corpus: the facets of the query's ephemeral top-20 edges. Pairs: every returned (query, paper) pair of the fused top 50.";

/** The attribution section: every row, with the headline taken from the most representative row that ran. */
export function attributionSection(rows: AttributionRow[]): AttributionSection | undefined {
  if (rows.length === 0) return undefined;
  // Headline: graph-RRF in-corpus over the generative lists when they ran, else the dense item lists.
  const headline =
    rows.find((r) => r.status === "ok" && r.fusion === "graph-rrf" && r.lists.startsWith("generative")) ??
    rows.find((r) => r.status === "ok" && r.fusion === "graph-rrf") ??
    rows.find((r) => r.status === "ok");
  return {
    precision: headline?.precision ?? 0,
    subsetShare: headline?.subsetShare ?? 0,
    pairs: headline?.pairs ?? 0,
    perFacet: headline?.perFacet ?? {},
    lists: headline?.lists ?? "none",
    fusion: headline?.fusion ?? "none",
    reference: REFERENCE,
    rows,
    paper: PAPER_ATTRIBUTION,
  };
}
