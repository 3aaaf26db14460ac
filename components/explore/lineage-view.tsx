"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { fetchJson } from "@/lib/http/client";
import type { LibraryMatch, PaperIdentity } from "@/lib/query";
import type { LineageResult, LineageWork } from "@/lib/query/lineage";
import { paperHref, shortVenue } from "../format";
import { Spinner } from "../ui";
import { LibraryBadge } from "./library-panel";

/** POST /api/corpora/:name/lineage for a set of corpus papers (the query left out). */
export function fetchLineage(corpus: string, papers: string[], exclude: string[], signal?: AbortSignal): Promise<LineageResult> {
  return fetchJson<LineageResult>(`/api/corpora/${encodeURIComponent(corpus)}/lineage`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ papers, exclude }),
    signal,
  });
}

/** Prior and derivative works of a set of papers, cached per set (the graph view asks for the same ids). */
export function useLineage(corpus: string, papers: string[], exclude: string[]) {
  return useQuery({
    queryKey: ["lineage", corpus, papers, exclude],
    enabled: papers.length > 0,
    queryFn: ({ signal }) => fetchLineage(corpus, papers, exclude, signal),
    staleTime: Infinity,
    retry: false,
  });
}

/**
 * The "Prior & derivative" view: corpus papers the results cite most (the work they build on)
 * and corpus papers citing most of the results (the work that builds on them), each with its
 * count, as citation-graph tools show them.
 */
export function LineageView({
  corpus,
  papers,
  exclude,
  markOf,
}: {
  corpus: string;
  papers: string[];
  exclude: string[];
  markOf: (p: PaperIdentity) => LibraryMatch | null;
}) {
  const lineage = useLineage(corpus, papers, exclude);
  if (lineage.isPending)
    return (
      <div className="flex items-center gap-2 rounded-lg border border-line bg-surface px-5 py-6 text-sm text-ink-muted">
        <Spinner className="size-4" /> Following the citations of these papers…
      </div>
    );
  if (lineage.error)
    return (
      <div role="alert" className="rounded-lg border border-danger/30 bg-danger-tint px-5 py-4 text-sm" data-testid="lineage-error">
        <p className="font-semibold text-danger">Prior and derivative works could not be found</p>
        <p className="mt-1 text-ink">{lineage.error.message}</p>
      </div>
    );
  const { prior, derivative } = lineage.data;
  return (
    <div className="grid gap-3 md:grid-cols-2" data-testid="lineage-view">
      <WorkList
        id="prior"
        title="Prior works"
        hint={`Corpus papers that at least two of these ${papers.length} papers cite: the work they build on.`}
        works={prior}
        countText={(n) => `cited by ${n}`}
        corpus={corpus}
        markOf={markOf}
      />
      <WorkList
        id="derivative"
        title="Derivative works"
        hint={`Corpus papers that cite at least two of these ${papers.length} papers: the work that builds on them.`}
        works={derivative}
        countText={(n) => `cites ${n}`}
        corpus={corpus}
        markOf={markOf}
      />
    </div>
  );
}

function WorkList(props: {
  id: string;
  title: string;
  hint: string;
  works: LineageWork[];
  countText: (n: number) => string;
  corpus: string;
  markOf: (p: PaperIdentity) => LibraryMatch | null;
}) {
  return (
    <section aria-labelledby={`lineage-${props.id}`} className="min-w-0 rounded-lg border border-line bg-surface shadow-xs" data-testid={`lineage-${props.id}`}>
      <div className="border-b border-line px-3.5 py-2.5">
        <h3 id={`lineage-${props.id}`} className="flex items-center text-sm font-semibold">
          {props.title}
          <span className="ml-auto text-xs font-normal tabular-nums text-ink-faint">{props.works.length}</span>
        </h3>
        <p className="mt-0.5 text-xs text-ink-faint">{props.hint}</p>
      </div>
      {props.works.length === 0 ? (
        <p className="px-3.5 py-4 text-sm text-ink-faint">None in this corpus: no paper is linked by citations to two or more of these results.</p>
      ) : (
        <ol className="divide-y divide-line/70">
          {props.works.map((w) => {
            const mark = props.markOf(w);
            return (
              <li key={w.externalId} className="flex gap-3 px-3.5 py-2" data-testid="lineage-work" data-id={w.externalId}>
                <span className="w-16 shrink-0 pt-0.5 text-right text-xs font-medium tabular-nums text-ink-muted" data-testid="lineage-count">
                  {props.countText(w.count)}
                </span>
                <div className="min-w-0 flex-1">
                  <Link href={paperHref(props.corpus, w.externalId)} className="text-[0.8125rem] font-medium leading-snug hover:underline">
                    {w.title}
                  </Link>
                  <p className="mt-0.5 flex flex-wrap items-center gap-x-2 text-[0.6875rem] text-ink-faint">
                    <span className="tabular-nums">{w.year ?? "n.d."}</span>
                    {w.venue && <span title={w.venue}>{shortVenue(w.venue)}</span>}
                    {mark && <LibraryBadge match={mark} />}
                  </p>
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
