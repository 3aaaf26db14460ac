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
