import type { Direction, DirectionFilter, QueryPaper } from "@/lib/query";

// Issue 27: each result says whether it is work the query builds on (earlier) or work building
// on it (later), measured from the query's year (its own, or inferred from the closest papers).

/** The year directions are measured from (RelatedResult.query.year). */
export type QueryYear = NonNullable<QueryPaper["year"]>;

export const DIRECTION_LABELS: Record<Direction, string> = { earlier: "earlier work", later: "later work", neither: "same year" };
export const DIRECTION_FILTER_LABELS: Record<DirectionFilter, string> = { earlier: "Earlier", later: "Later", both: "Both" };

/**
 * The same rule as relatedPapers' (lib/query/related.ts paperDirection), for papers the server
 * did not label: the per-facet lists carry years only.
 */
export function directionOf(year: number | null, queryYear: number | null): Direction {
  if (!year || !queryYear || year === queryYear) return "neither";
  return year < queryYear ? "earlier" : "later";
}

/** What the year is: "the query paper's year 2018" or "the year inferred from the closest papers, 2018". */
export function queryYearPhrase(y: QueryYear): string {
  return y.source === "paper" ? `the query paper's year ${y.value}` : `the year inferred from the closest papers, ${y.value}`;
}

/** What a direction means against the query's year: "published before the query paper's year 2018". */
export function directionDetail(direction: Direction, y: QueryYear): string {
  if (direction === "neither") return `published in ${queryYearPhrase(y)}`;
  return `published ${direction === "earlier" ? "before" : "after"} ${queryYearPhrase(y)}`;
}

/** The chip's tooltip: what it says and what it is measured from. */
export function directionTitle(direction: Direction, y: QueryYear): string {
  const label = DIRECTION_LABELS[direction];
  return `${label[0].toUpperCase()}${label.slice(1)}: ${directionDetail(direction, y)}`;
}

/**
 * Earlier or later work, as a small chip with its measure in the tooltip; "same year" is muted.
 * Nothing is shown for an undated paper, or when the query has no year at all.
 */
export function DirectionChip({
  direction,
  year,
  queryYear,
  size = "sm",
}: {
  direction: Direction;
  /** The paper's year: a "neither" without one is undated, not the same year. */
  year: number | null;
  queryYear: QueryYear | null | undefined;
  size?: "sm" | "lg";
}) {
  if (!queryYear || (direction === "neither" && year !== queryYear.value)) return null;
  const title = directionTitle(direction, queryYear);
  const tone =
    direction === "earlier"
      ? "border-line-strong bg-canvas text-ink-muted"
      : direction === "later"
        ? "border-ink/40 bg-surface text-ink"
        : "border-dashed border-line text-ink-faint";
  return (
    <span
      title={title}
      data-testid="direction-chip"
      data-direction={direction}
      className={`inline-flex items-center rounded-md border font-medium ${tone} ${size === "lg" ? "px-2 py-0.5 text-sm" : "px-1.5 text-[0.6875rem] leading-5"}`}
    >
      {direction !== "neither" && (
        <span aria-hidden="true" className="mr-0.5">
          {direction === "earlier" ? "←" : "→"}
        </span>
      )}
      {DIRECTION_LABELS[direction]}
      <span className="sr-only">, {directionDetail(direction, queryYear)}</span>
    </span>
  );
}
