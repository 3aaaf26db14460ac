import Link from "next/link";
import type { ReactNode } from "react";
import { Card, formButtonClass as buttonClass, formPrimaryButtonClass as primaryButtonClass, ProgressLine } from "../ui";

// The study lists of the admin home and of an annotator's sheets: one card per study, with the
// same parts in both (name, a line of facts, one action, progress), or a card saying there are none.

/** The studies as a labelled list of cards, or `empty` in a card when there are none. */
export function StudyList<T extends { id: number }>({
  studies,
  label,
  empty,
  children,
}: {
  studies: readonly T[];
  label: string;
  empty: string;
  children: (study: T) => ReactNode;
}) {
  if (studies.length === 0)
    return (
      <Card>
        <p className="text-sm text-ink-muted">{empty}</p>
      </Card>
    );
  return (
    <ul className="space-y-3" aria-label={label}>
      {studies.map((s) => (
        <li key={s.id}>{children(s)}</li>
      ))}
    </ul>
  );
}

/**
 * One study: its name (a link when `href` is given), a line of facts, one action button and a
 * progress line. `align` centres the action on a one-line card instead of keeping it at the top.
 */
export function StudyCard({
  name,
  href,
  facts,
  action,
  progress,
  align = "start",
}: {
  name: string;
  href?: string;
  facts: ReactNode;
  action: { href: string; label: string; primary?: boolean };
  progress: { value: number; total: number; label: string; text: ReactNode };
  align?: "start" | "center";
}) {
  return (
    <Card>
      <div className={`flex flex-wrap ${align === "center" ? "items-center" : "items-start"} justify-between gap-3`}>
        <div className="min-w-0">
          {href ? (
            <Link href={href} className="text-base font-semibold tracking-tight hover:underline">
              {name}
            </Link>
          ) : (
            <p className="text-base font-semibold tracking-tight">{name}</p>
          )}
          <p className="mt-1 text-sm text-ink-muted">{facts}</p>
        </div>
        <Link href={action.href} className={action.primary ? primaryButtonClass : buttonClass}>
          {action.label}
        </Link>
      </div>
      <ProgressLine value={progress.value} total={progress.total} label={progress.label}>
        {progress.text}
      </ProgressLine>
    </Card>
  );
}
