"use client";

import Link from "next/link";
import { useState } from "react";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { RelatedResult } from "@/lib/query";
import { DirectionChip, directionOf } from "../direction";
import { FACET_STYLES, FacetLetter, facetVars } from "../facets";
import { paperHref } from "../format";
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
    <div className={`grid gap-3 md:grid-cols-2 ${facets.length >= 4 ? "xl:grid-cols-4" : ""}`} data-testid="per-facet-view">
      {facets.map((f) => {
        const s = FACET_STYLES[f];
        const all = library?.hide ? result.perFacet[f].filter((e) => !library.marks.has(e.externalId)) : result.perFacet[f];
        const list = limit ? all.slice(0, limit) : all;
        const asked = result.query.facets[f].length > 0;
        return (
          <section
            key={f}
            style={facetVars(f)}
            aria-labelledby={`per-facet-${f}`}
            data-testid={`per-facet-${f}`}
            className="flex min-w-0 wrap-anywhere flex-col rounded-lg border border-line border-t-4 border-t-(--facet) bg-surface shadow-xs"
          >
            <h3
              id={`per-facet-${f}`}
              className={`flex items-center gap-2 border-b border-line px-3.5 py-2.5 font-semibold text-(--facet-ink) ${large ? "text-xl" : "text-sm"}`}
            >
              <FacetLetter facet={f} size="md" />
              {s.label}
              <span className="ml-auto text-xs font-normal tabular-nums text-ink-faint">{list.length}</span>
            </h3>
            {list.length === 0 ? (
              <p className="px-3.5 py-4 text-sm text-ink-faint">
                {asked ? "Nothing retrieved through this facet with these filters." : `The query has no ${s.label.toLowerCase()} items.`}
              </p>
            ) : (
              <ol className="divide-y divide-line/70">
                {list.map((e) => {
                  const fused = fusedRank.get(e.externalId);
                  const only = foundBy.get(e.externalId) === 1;
                  const lit = hover === e.externalId;
                  return (
                    <li
                      key={e.externalId}
                      onPointerEnter={() => setHover(e.externalId)}
                      onPointerLeave={() => setHover(null)}
                      className={`flex gap-2 px-3.5 transition-colors ${large ? "py-3" : "py-2"} ${lit ? "bg-(--facet-tint)" : ""}`}
                      data-testid="per-facet-entry"
                    >
                      <span className={`w-5 shrink-0 text-right tabular-nums text-ink-faint ${large ? "text-base" : "text-xs leading-5"}`}>{e.rank}</span>
                      <div className="min-w-0 flex-1">
                        <Link
                          href={paperHref(result.corpus, e.externalId)}
                          onFocus={() => setHover(e.externalId)}
                          onBlur={() => setHover(null)}
                          className={`line-clamp-2 font-medium leading-snug hover:underline ${large ? "text-lg" : "text-[0.8125rem]"}`}
                          title={e.title}
                        >
                          {e.title}
                        </Link>
                        <p className={`mt-0.5 flex flex-wrap gap-x-2 text-ink-faint ${large ? "text-sm" : "text-[0.6875rem]"}`}>
                          {fused !== undefined ? (
                            <span className="font-medium text-ink-muted">overall #{fused}</span>
                          ) : (
                            <span>not in the overall top {result.results.length}</span>
                          )}
                          {only && <span className="font-medium text-(--facet-ink)">only this facet</span>}
                          <DirectionChip direction={directionOf(e.year, queryYear?.value ?? null)} year={e.year} queryYear={queryYear} />
                          {library?.marks.has(e.externalId) && <LibraryBadge match={library.marks.get(e.externalId)!} />}
                        </p>
                      </div>
                    </li>
                  );
                })}
              </ol>
            )}
          </section>
        );
      })}
    </div>
  );
}
