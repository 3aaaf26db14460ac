import type { ReactNode } from "react";

/** The frame of the evaluation report's tables: a scrolling card, a caption for screen readers, one header row, then the body. */
export function ReportTable({
  caption,
  minWidth,
  header,
  className = "",
  children,
}: {
  caption: string;
  /** A Tailwind min-width class: the table scrolls inside its card below it. */
  minWidth: string;
  header: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={`overflow-x-auto rounded-lg border border-line bg-surface ${className}`}>
      <table className={`w-full ${minWidth} border-collapse text-sm`}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr className="border-b border-line text-left text-xs uppercase tracking-wide text-ink-faint">{header}</tr>
        </thead>
        {children}
      </table>
    </div>
  );
}

/** A column heading of a report table; `numeric` columns are right-aligned like their figures. */
export function ColumnHead({ numeric = false, title, children }: { numeric?: boolean; title?: string; children: ReactNode }) {
  return (
    <th scope="col" className={`px-3 py-2 ${numeric ? "text-right " : ""}font-medium`} title={title}>
      {children}
    </th>
  );
}

/** A figure to three decimals; "–" where there is none. */
export const fixed3 = (x: number | undefined): string => (x === undefined ? "–" : x.toFixed(3));

/** A 95% interval, small, under its figure; nothing without one. */
export function Interval({ ci, format = fixed3 }: { ci?: readonly [number, number]; format?: (x: number) => string }) {
  return ci ? (
    <span className="block whitespace-nowrap text-xs text-ink-faint">
      [{format(ci[0])}, {format(ci[1])}]
    </span>
  ) : null;
}

/** Why a row has no figures ("not run: …"), under its label. */
export function RowStatusNote({ status, reason }: { status: string; reason?: string }) {
  return (
    <span className="mt-0.5 block text-xs text-ink-faint">
      <span className="rounded bg-canvas px-1.5 py-0.5 font-medium text-ink-muted">{status}</span> {reason}
    </span>
  );
}
