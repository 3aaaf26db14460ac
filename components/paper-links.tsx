import Link from "next/link";
import type { PaperSummary } from "@/lib/corpus";
import { formatAuthors, paperHref, shortVenue } from "./format";

// How many linked papers show before the rest fold away: highly cited papers have hundreds of
// citers, and a disclosure keeps the page scannable without client-side JavaScript.
const VISIBLE = 12;

/** A titled list of linked papers (references or citers) with an empty state. */
export function PaperLinks({
  title,
  hint,
  corpus,
  papers,
  empty,
  testId,
}: {
  title: string;
  hint: string;
  corpus: string;
  papers: PaperSummary[];
  empty: string;
  testId: string;
}) {
  const headingId = `${testId}-heading`;
  const shown = papers.slice(0, VISIBLE);
  const rest = papers.slice(VISIBLE);
  return (
    <section aria-labelledby={headingId} data-testid={testId} className="flex min-w-0 flex-col rounded-lg border border-line bg-surface shadow-xs">
      <header className="border-b border-line px-4 py-3 sm:px-5">
        <h2 id={headingId} className="flex items-baseline gap-2 text-base font-semibold">
          {title}
          <span className="rounded-full bg-canvas px-2 py-0.5 text-xs font-medium tabular-nums text-ink-muted">{papers.length}</span>
        </h2>
        <p className="mt-0.5 text-xs text-ink-faint">{hint}</p>
      </header>
      {papers.length === 0 ? (
        <p className="px-4 py-6 text-sm text-ink-faint sm:px-5">{empty}</p>
      ) : (
        <>
          <LinkList corpus={corpus} papers={shown} />
          {rest.length > 0 && (
            <details className="group border-t border-line">
              <summary className="cursor-pointer list-none px-4 py-2.5 text-sm font-medium text-ink-muted hover:text-ink sm:px-5 [&::-webkit-details-marker]:hidden">
                <span className="group-open:hidden">Show {rest.length} more</span>
                <span className="hidden group-open:inline">Show fewer</span>
              </summary>
              <LinkList corpus={corpus} papers={rest} />
            </details>
          )}
        </>
      )}
    </section>
  );
}

function LinkList({ corpus, papers }: { corpus: string; papers: PaperSummary[] }) {
  return (
    <ul className="divide-y divide-line">
      {papers.map((p) => (
        <li key={p.id} className="px-4 py-2.5 sm:px-5">
          <Link
            href={paperHref(corpus, p.externalId)}
            className="text-sm font-medium leading-snug text-ink decoration-ink-faint underline-offset-[3px] hover:underline"
          >
            {p.title}
          </Link>
          <p className="mt-0.5 truncate text-xs text-ink-faint" title={p.venue ?? undefined}>
            {p.year ?? "n.d."} · {formatAuthors(p.authors, 2)}
            {p.venue ? ` · ${shortVenue(p.venue)}` : ""}
          </p>
        </li>
      ))}
    </ul>
  );
}
