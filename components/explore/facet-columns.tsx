import Link from "next/link";
import type { ReactNode } from "react";
import type { Facet } from "@/lib/corpus/types";
import { FACET_STYLES, FacetLetter, facetVars } from "../facets";

// The frame of the "By facet" view, shared by one query's lists and several seeds' fused lists:
// the grid of facet columns, each column's heading and empty state, and a paper's row in it.

/** One column per facet; four abreast on wide screens when all four are shown. */
export function FacetColumns({ facets, children }: { facets: readonly Facet[]; children: ReactNode }) {
  return (
    <div className={`grid gap-3 md:grid-cols-2 ${facets.length >= 4 ? "xl:grid-cols-4" : ""}`} data-testid="per-facet-view">
      {children}
    </div>
  );
}

/** A facet's column: its heading with the number of papers, then the papers, or `empty` when there are none. */
export function FacetColumn({
  facet,
  count,
  empty,
  large = false,
  children,
}: {
  facet: Facet;
  count: number;
  empty: string;
  large?: boolean;
  children: ReactNode;
}) {
  return (
    <section
      style={facetVars(facet)}
      aria-labelledby={`per-facet-${facet}`}
      data-testid={`per-facet-${facet}`}
      className="flex min-w-0 wrap-anywhere flex-col rounded-lg border border-line border-t-4 border-t-(--facet) bg-surface shadow-xs"
    >
      <h3
        id={`per-facet-${facet}`}
        className={`flex items-center gap-2 border-b border-line px-3.5 py-2.5 font-semibold text-(--facet-ink) ${large ? "text-xl" : "text-sm"}`}
      >
        <FacetLetter facet={facet} size="md" />
        {FACET_STYLES[facet].label}
        <span className="ml-auto text-xs font-normal tabular-nums text-ink-faint">{count}</span>
      </h3>
      {count === 0 ? <p className="px-3.5 py-4 text-sm text-ink-faint">{empty}</p> : <ol className="divide-y divide-line/70">{children}</ol>}
    </section>
  );
}

/**
 * A paper in a facet's column: its rank, its title linking to the paper, and `children` (a line of
 * notes) below. With `onHover`, pointing at or focusing it reports its id, and `lit` tints it.
 */
export function FacetEntry({
  paperId,
  href,
  title,
  rank,
  large = false,
  lit = false,
  onHover,
  dataId,
  children,
}: {
  paperId: string;
  href: string;
  title: string;
  rank: number;
  large?: boolean;
  lit?: boolean;
  onHover?: (id: string | null) => void;
  /** Written to `data-id` where a test or caller finds the entry by paper. */
  dataId?: string;
  children: ReactNode;
}) {
  return (
    <li
      onPointerEnter={onHover && (() => onHover(paperId))}
      onPointerLeave={onHover && (() => onHover(null))}
      className={`flex gap-2 px-3.5 ${onHover ? "transition-colors" : ""} ${large ? "py-3" : "py-2"} ${lit ? "bg-(--facet-tint)" : ""}`}
      data-testid="per-facet-entry"
      data-id={dataId}
    >
      <span className={`w-5 shrink-0 text-right tabular-nums text-ink-faint ${large ? "text-base" : "text-xs leading-5"}`}>{rank}</span>
      <div className="min-w-0 flex-1">
        <Link
          href={href}
          onFocus={onHover && (() => onHover(paperId))}
          onBlur={onHover && (() => onHover(null))}
          className={`line-clamp-2 font-medium leading-snug hover:underline ${large ? "text-lg" : "text-[0.8125rem]"}`}
          title={title}
        >
          {title}
        </Link>
        {children}
      </div>
    </li>
  );
}
