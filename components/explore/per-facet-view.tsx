"use client";

import { useState } from "react";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { RelatedResult } from "@/lib/query";
import { DirectionChip, directionOf } from "../direction";
import { FACET_STYLES } from "../facets";
import { paperHref } from "../format";
import { FacetColumn, FacetColumns, FacetEntry } from "./facet-columns";
import { LibraryBadge, type LibraryMarks } from "./library-panel";

/**
 * What each facet retrieved on its own, side by side (before fusion). Papers only one facet found
 * are marked, and hovering or focusing a paper highlights it in the other columns, so agreement
 * and disagreement between facets are visible at a glance.
 */
export function PerFacetView({
  result,
  limit,
  large = false,
  facets = FACETS,
  library,
}: {
  result: RelatedResult;
  limit?: number;
  large?: boolean;
  facets?: readonly Facet[];
  /** Papers in the reader's library (marked) and whether to leave them out. */
  library?: { marks: LibraryMarks; hide: boolean };
}) {
  const [hover, setHover] = useState<string | null>(null);
  const queryYear = result.query.year;
  const fusedRank = new Map(result.results.map((r, i) => [r.externalId, i + 1]));
  const foundBy = new Map<string, number>();
  for (const f of FACETS) for (const e of result.perFacet[f]) foundBy.set(e.externalId, (foundBy.get(e.externalId) ?? 0) + 1);
  return (
    <FacetColumns facets={facets}>
      {facets.map((f) => {
        const all = library?.hide ? result.perFacet[f].filter((e) => !library.marks.has(e.externalId)) : result.perFacet[f];
        const list = limit ? all.slice(0, limit) : all;
        const asked = result.query.facets[f].length > 0;
        const empty = asked ? "Nothing retrieved through this facet with these filters." : `The query has no ${FACET_STYLES[f].label.toLowerCase()} items.`;
        return (
          <FacetColumn key={f} facet={f} count={list.length} empty={empty} large={large}>
            {list.map((e) => {
              const fused = fusedRank.get(e.externalId);
              return (
                <FacetEntry
                  key={e.externalId}
                  paperId={e.externalId}
                  href={paperHref(result.corpus, e.externalId)}
                  title={e.title}
                  rank={e.rank}
                  large={large}
                  lit={hover === e.externalId}
                  onHover={setHover}
                >
                  <p className={`mt-0.5 flex flex-wrap gap-x-2 text-ink-faint ${large ? "text-sm" : "text-[0.6875rem]"}`}>
                    {fused !== undefined ? (
                      <span className="font-medium text-ink-muted">overall #{fused}</span>
                    ) : (
                      <span>not in the overall top {result.results.length}</span>
                    )}
                    {foundBy.get(e.externalId) === 1 && <span className="font-medium text-(--facet-ink)">only this facet</span>}
                    <DirectionChip direction={directionOf(e.year, queryYear?.value ?? null)} year={e.year} queryYear={queryYear} />
                    {library?.marks.has(e.externalId) && <LibraryBadge match={library.marks.get(e.externalId)!} />}
                  </p>
                </FacetEntry>
              );
            })}
          </FacetColumn>
        );
      })}
    </FacetColumns>
  );
}
