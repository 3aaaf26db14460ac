"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import type { MultiSeedPaper, SeedInfo } from "@/lib/query/multi-seed";
import { FacetLetter } from "../facets";
import { formatAuthors, paperHref, shortVenue } from "../format";
import { buttonClass } from "../ui";
import { fetchMultiSeed, type QueryOptions } from "./related-client";
import type { SeedActions } from "./result-list";
import { SeedButton } from "./seed-tray";

/** The results of several seeds at once: each with the seeds that surfaced it ("seed 1 #3") and its facets. */
export function SeedResults({
  corpus,
  seeds,
  options,
  actions,
  onSeedTitles,
}: {
  corpus: string;
  seeds: string[];
  options: QueryOptions;
  actions: SeedActions;
  /** The seeds' titles, once the answer names them. */
  onSeedTitles: (titles: Record<string, string>) => void;
}) {
  const q = useQuery({
    queryKey: ["related-seeds", corpus, seeds, options],
    queryFn: ({ signal }) => fetchMultiSeed(corpus, seeds, options, signal),
    placeholderData: (prev) => prev,
    staleTime: Infinity,
    retry: false,
  });
  const data = q.data;
  useEffect(() => {
    if (data) onSeedTitles(Object.fromEntries(data.seeds.filter((s) => s.externalId).map((s) => [s.externalId!, s.title])));
  }, [data, onSeedTitles]);

  if (q.error && !q.isFetching)
    return (
      <div role="alert" className="rounded-lg border border-danger/30 bg-danger-tint px-5 py-4" data-testid="query-error">
        <p className="font-semibold text-danger">The query failed</p>
        <p className="mt-1 text-sm text-ink">{q.error.message}</p>
        <button type="button" className={`${buttonClass} mt-3`} onClick={() => q.refetch()}>
          Try again
        </button>
      </div>
    );
  if (!data)
    return (
      <p className="text-sm text-ink-muted" role="status">
        Querying {seeds.length} seeds…
      </p>
    );
  return (
    <div className={`transition-opacity ${q.isFetching ? "opacity-60" : ""}`} data-testid="seed-results">
      <p className="pb-3 text-sm text-ink-muted" data-testid="results-summary">
        <span className="font-semibold text-ink">{data.results.length}</span> papers related to {data.seeds.length} seeds · each seed&apos;s list fused by RRF ·{" "}
        <span className="tabular-nums">{Math.round(data.timings.totalMs)} ms</span>
      </p>
      <SeedLegend seeds={data.seeds} />
      <ol
        className="mt-3 divide-y divide-line overflow-hidden rounded-lg border border-line bg-surface shadow-xs"
        data-testid="result-list"
        aria-label="Related papers"
      >
        {data.results.map((r, i) => (
          <SeedResultItem key={r.externalId} corpus={corpus} r={r} rank={i + 1} seeds={data.seeds} actions={actions} />
        ))}
      </ol>
    </div>
  );
}

function SeedLegend({ seeds }: { seeds: SeedInfo[] }) {
  return (
    <ol className="grid gap-1 text-xs text-ink-muted sm:grid-cols-2" data-testid="seed-legend" aria-label="Seeds">
      {seeds.map((s) => (
        <li key={s.index} className="flex min-w-0 gap-1.5">
          <span className="shrink-0 font-semibold text-ink">seed {s.index + 1}</span>
          <span className="truncate" title={s.title}>
            {s.title}
          </span>
        </li>
      ))}
    </ol>
  );
}

function SeedResultItem({ corpus, r, rank, seeds, actions }: { corpus: string; r: MultiSeedPaper; rank: number; seeds: SeedInfo[]; actions: SeedActions }) {
  return (
    <li className="px-4 py-3.5 sm:px-5" data-testid="result" data-id={r.externalId}>
      <div className="flex items-start gap-3">
        <span className="w-6 shrink-0 pt-0.5 text-right text-sm tabular-nums text-ink-faint" aria-label={`Rank ${rank}`}>
          {rank}
        </span>
        <div className="min-w-0 flex-1">
          <Link
            href={paperHref(corpus, r.externalId)}
            className="text-[0.9375rem] font-medium leading-snug text-ink underline-offset-[3px] hover:underline"
            data-testid="result-title"
          >
            {r.title}
          </Link>
          <p className="mt-0.5 truncate text-[0.8125rem] text-ink-faint">
            <span className="tabular-nums text-ink-muted">{r.year ?? "n.d."}</span> · {formatAuthors(r.authors)}
            {r.venue && <> · {shortVenue(r.venue)}</>}
          </p>
          <div className="mt-2 flex flex-wrap items-center gap-1.5">
            {r.seeds.map((s) => (
              <span
                key={s.seed}
                className="inline-flex items-center rounded border border-line-strong bg-canvas px-1.5 text-[0.6875rem] font-medium text-ink"
                title={`${seeds[s.seed]?.title ?? `Seed ${s.seed + 1}`}: rank ${s.rank} in its list`}
                data-testid="seed-chip"
                data-seed={s.seedId ?? ""}
              >
                seed {s.seed + 1} #{s.rank}
              </span>
            ))}
            {r.facets.map((f) => (
              <FacetLetter key={f} facet={f} />
            ))}
            <SeedButton seeded={actions.seeded(r.externalId)} onSeed={() => actions.add(r.externalId, r.title)} />
          </div>
        </div>
      </div>
    </li>
  );
}
