"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo } from "react";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { LibraryMatch, PaperIdentity, MultiSeedPaper, MultiSeedResult, SeedInfo } from "@/lib/query";
import { ExportMenu } from "../export-menu";
import { FacetLegend, FacetLetter } from "../facets";
import { formatAuthors, paperHref, shortVenue } from "../format";
import { RelatedGraph } from "../graph/related-graph";
import { buttonClass } from "../ui";
import type { View } from "./explore-state";
import { FacetColumn, FacetColumns, FacetEntry } from "./facet-columns";
import { LineageView } from "./lineage-view";
import { seedExportContext, toSeedRecord } from "./records";
import { fetchMultiSeed, fetchRelated, type QueryOptions } from "./related-client";
import type { SeedActions } from "./result-list";
import { SeedButton } from "./seed-tray";
import { ViewSwitch } from "./view-switch";

/**
 * The results of several seeds at once, in the same views as one query's: ranked (each result with
 * the seeds that surfaced it, "seed 1 #3", and its facets), by facet (the fused results each facet
 * credited, with the seeds that credited it), the typed graph (every seed a centre) and prior &
 * derivative works. Exports carry each result's seeds.
 */
export function SeedResults({
  corpus,
  seeds,
  options,
  actions,
  onSeedTitles,
  view,
  onView,
  markOf,
}: {
  corpus: string;
  seeds: string[];
  options: QueryOptions;
  actions: SeedActions;
  /** The seeds' titles, once the answer names them. */
  onSeedTitles: (titles: Record<string, string>) => void;
  view: View;
  onView: (view: View) => void;
  /** Marks papers of the reader's library (prior & derivative works). */
  markOf: (p: PaperIdentity) => LibraryMatch | null;
}) {
  const q = useQuery({
    queryKey: ["related-seeds", corpus, seeds, options],
    queryFn: ({ signal }) => fetchMultiSeed(corpus, seeds, options, signal),
    placeholderData: (prev) => prev,
    staleTime: Infinity,
    retry: false,
  });
  const data = q.data;
  const expand = useCallback(
    (paperId: string) => fetchRelated({ kind: "paper", corpus, paperId }, { ...options, k: 10 }, () => {}),
    // The options object is rebuilt each render; its JSON is the dependency that matters.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [corpus, JSON.stringify(options)],
  );
  const resultIds = useMemo(() => data?.results.map((r) => r.externalId) ?? [], [data]);
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
      <div className="flex flex-wrap items-center justify-between gap-3 pb-3">
        <p className="text-sm text-ink-muted" data-testid="results-summary">
          <span className="font-semibold text-ink">{data.results.length}</span> papers related to {data.seeds.length} seeds · each seed&apos;s list fused by RRF
          · <span className="tabular-nums">{Math.round(data.timings.totalMs)} ms</span>
        </p>
        <div className="flex flex-wrap items-center gap-2">
          <ViewSwitch value={view} onChange={onView} />
          <ExportMenu
            records={() => data.results.map((r, i) => toSeedRecord(data.corpus, r, i + 1))}
            name={`${data.seeds.length} seeds`}
            context={() => seedExportContext(data)}
            disabled={data.results.length === 0}
          />
        </div>
      </div>
      <SeedLegend seeds={data.seeds} />
      <div className="mt-3">
        {view === "facets" ? (
          <SeedPerFacetView corpus={corpus} result={data} facets={FACETS.filter((f) => options.facets.includes(f))} />
        ) : view === "graph" ? (
          <RelatedGraph key={`${seeds.join(",")}-${data.results.length}-${data.retriever}`} result={data} expand={expand} name={`${data.seeds.length} seeds`} />
        ) : view === "lineage" ? (
          <LineageView corpus={corpus} papers={resultIds} exclude={seeds} markOf={markOf} />
        ) : (
          <ol
            className="divide-y divide-line overflow-hidden rounded-lg border border-line bg-surface shadow-xs"
            data-testid="result-list"
            aria-label="Related papers"
          >
            {data.results.map((r, i) => (
              <SeedResultItem key={r.externalId} corpus={corpus} r={r} rank={i + 1} seeds={data.seeds} actions={actions} />
            ))}
          </ol>
        )}
      </div>
      {view !== "lineage" && (
        <div className="mt-6">
          <FacetLegend />
        </div>
      )}
    </div>
  );
}

/**
 * "seed 2 #7": a seed that surfaced a result, and the result's rank in that seed's list; compact
 * ("S2 #7", like a facet chip's "M #2") where columns are narrow.
 */
function SeedChip({
  seed,
  rank,
  seeds,
  compact = false,
}: {
  seed: { seed: number; seedId: string | null };
  rank: number;
  seeds: SeedInfo[];
  compact?: boolean;
}) {
  return (
    <span
      className="inline-flex items-center rounded border border-line-strong bg-canvas px-1.5 text-[0.6875rem] font-medium text-ink"
      title={`${seeds[seed.seed]?.title ?? `Seed ${seed.seed + 1}`}: rank ${rank} in its list`}
      aria-label={compact ? `seed ${seed.seed + 1}, rank ${rank}` : undefined}
      data-testid="seed-chip"
      data-seed={seed.seedId ?? ""}
    >
      {compact ? "S" : "seed "}
      {seed.seed + 1} #{rank}
    </span>
  );
}

/**
 * By facet, for several seeds: the fused results each facet credited (in fused order), each with
 * the seeds whose lists credited it through that facet, as the one-query view lists each facet's
 * own retrievals.
 */
function SeedPerFacetView({ corpus, result, facets }: { corpus: string; result: MultiSeedResult; facets: readonly Facet[] }) {
  const ranked = result.results.map((r, i) => ({ r, fused: i + 1 })).filter(({ r }) => !r.unreached);
  return (
    <FacetColumns facets={facets}>
      {facets.map((f) => {
        const list = ranked.filter(({ r }) => r.facets.includes(f));
        return (
          <FacetColumn key={f} facet={f} count={list.length} empty="No result was found through this facet.">
            {list.map(({ r, fused }) => (
              <FacetEntry key={r.externalId} paperId={r.externalId} href={paperHref(corpus, r.externalId)} title={r.title} rank={fused} dataId={r.externalId}>
                <p className="mt-1 flex flex-wrap items-center gap-1 text-[0.6875rem] text-ink-faint">
                  {r.seeds
                    .filter((sp) => sp.facets.includes(f))
                    .map((sp) => (
                      <SeedChip key={sp.seed} seed={sp} rank={sp.rank} seeds={result.seeds} compact />
                    ))}
                  {r.facets.length === 1 && <span className="font-medium text-(--facet-ink)">only this facet</span>}
                </p>
              </FacetEntry>
            ))}
          </FacetColumn>
        );
      })}
    </FacetColumns>
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
              <SeedChip key={s.seed} seed={s} rank={s.rank} seeds={seeds} />
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
