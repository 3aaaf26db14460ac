"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useEffectEvent, useId, useRef, useState, type ReactNode } from "react";
import { DEFAULT_CORPUS, type CorpusOverview, type PaperList, type PaperSummary } from "@/lib/corpus/browse";
import { ApiError, fetchJson } from "@/lib/http/client";
import { FacetCounts, FacetLegend } from "./facets";
import { formatAuthors, formatCount, paperHref, shortVenue } from "./format";
import { VenueOptions } from "./venues";
import { buttonClass } from "./ui";

/** The explorer's state. It lives in the URL (the single source of truth) so views can be shared. */
interface Filters {
  corpus: string;
  q: string;
  yearFrom: string;
  yearTo: string;
  venue: string;
  page: number;
}

const PAGE_SIZE = 20;
const SEARCH_DEBOUNCE_MS = 300;

function readFilters(sp: URLSearchParams): Filters {
  const page = Number(sp.get("page"));
  return {
    corpus: sp.get("corpus") || DEFAULT_CORPUS,
    q: sp.get("q") ?? "",
    // Years go to the API unchanged: it validates them and its message is shown if they are bad.
    yearFrom: sp.get("yearFrom") ?? "",
    yearTo: sp.get("yearTo") ?? "",
    venue: sp.get("venue") ?? "",
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** Only non-default values, so URLs stay short and the bare home page is the unfiltered view. */
function toSearch(f: Filters): URLSearchParams {
  const sp = new URLSearchParams();
  if (f.corpus !== DEFAULT_CORPUS) sp.set("corpus", f.corpus);
  if (f.q) sp.set("q", f.q);
  if (f.yearFrom) sp.set("yearFrom", f.yearFrom);
  if (f.yearTo) sp.set("yearTo", f.yearTo);
  if (f.venue) sp.set("venue", f.venue);
  if (f.page > 1) sp.set("page", String(f.page));
  return sp;
}

const hasFilters = (f: Filters) => Boolean(f.q || f.yearFrom || f.yearTo || f.venue);

export function PaperBrowser() {
  const searchParams = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filters = readFilters(searchParams);
  const resultsTop = useRef<HTMLDivElement>(null);

  function navigate(next: Filters, mode: "push" | "replace" = "push") {
    const qs = toSearch(next).toString();
    router[mode](qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  }
  // Any filter change starts again from page 1.
  const setFilter = (patch: Partial<Omit<Filters, "page">>, mode: "push" | "replace" = "push") => navigate({ ...filters, ...patch, page: 1 }, mode);

  function goToPage(page: number) {
    navigate({ ...filters, page });
    const top = resultsTop.current;
    if (top && top.getBoundingClientRect().top < 0) top.scrollIntoView({ block: "start" });
  }

  const overview = useQuery({
    queryKey: ["corpus", filters.corpus],
    queryFn: ({ signal }) => fetchJson<CorpusOverview>(`/api/corpora/${encodeURIComponent(filters.corpus)}`, { signal }),
  });
  const corpora = useQuery({
    queryKey: ["corpora"],
    queryFn: ({ signal }) => fetchJson<{ corpora: CorpusOverview[] }>("/api/corpora", { signal }),
  });
  const apiQuery = toSearch(filters);
  apiQuery.set("pageSize", String(PAGE_SIZE));
  const apiQs = apiQuery.toString();
  const papers = useQuery({
    queryKey: ["papers", apiQs],
    queryFn: ({ signal }) => fetchJson<PaperList>(`/api/papers?${apiQs}`, { signal }),
    // Keep the last page on screen while the next one loads, instead of flashing a skeleton.
    placeholderData: keepPreviousData,
  });

  // No corpus (or no tables at all) is the normal state of a fresh install, not an error.
  if (overview.error instanceof ApiError && (overview.error.code === "not_found" || overview.error.code === "not_ready"))
    return (
      <NotImported
        migrated={overview.error.code === "not_found"}
        corpus={filters.corpus}
        message={overview.error.message}
        available={(corpora.data?.corpora ?? []).map((c) => c.name)}
        onCorpus={(corpus) => navigate({ ...readFilters(new URLSearchParams()), corpus })}
      />
    );

  return (
    <>
      <CorpusHeader
        overview={overview.data}
        error={overview.error}
        corpora={corpora.data?.corpora}
        current={filters.corpus}
        onCorpus={(corpus) => navigate({ ...readFilters(new URLSearchParams()), corpus })}
      />
      <div className="mx-auto max-w-6xl px-4 sm:px-6">
        <FilterBar filters={filters} overview={overview.data} onChange={setFilter} />
        <div ref={resultsTop} className="scroll-mt-20" />
        <Results
          filters={filters}
          query={papers}
          onPage={goToPage}
          onClear={() => navigate({ ...readFilters(new URLSearchParams()), corpus: filters.corpus })}
        />
      </div>
    </>
  );
}

function CorpusHeader({
  overview,
  error,
  corpora,
  current,
  onCorpus,
}: {
  overview: CorpusOverview | undefined;
  error: Error | null;
  corpora: CorpusOverview[] | undefined;
  current: string;
  onCorpus: (name: string) => void;
}) {
  const corpusSelectId = useId();
  const years =
    overview?.years.min != null && overview.years.max != null
      ? overview.years.min === overview.years.max
        ? String(overview.years.min)
        : `${overview.years.min}–${overview.years.max}`
      : "—";
  return (
    <section className="border-b border-line bg-surface">
      <div className="mx-auto max-w-6xl px-4 pb-6 pt-8 sm:px-6 sm:pt-10">
        <div className="flex flex-col gap-4 sm:flex-row sm:items-start sm:justify-between">
          <div className="min-w-0">
            <p className="text-xs font-medium uppercase tracking-[0.08em] text-ink-faint">Corpus</p>
            <h1 className="mt-1 font-mono text-2xl font-semibold tracking-tight sm:text-[1.75rem]">{current}</h1>
            <p className="mt-2 max-w-2xl text-[0.9375rem] leading-relaxed text-ink-muted">
              {overview?.description ||
                "Search papers by title, narrow by year and venue, and open a paper to read its problems, methods, results and contributions."}
            </p>
          </div>
          {corpora && corpora.length > 1 && (
            <div className="shrink-0">
              <label htmlFor={corpusSelectId} className="block text-xs font-medium text-ink-muted">
                Switch corpus
              </label>
              <select
                id={corpusSelectId}
                value={current}
                onChange={(e) => onCorpus(e.target.value)}
                className="mt-1 h-9 rounded-md border border-line-strong bg-surface px-2 text-sm"
              >
                {corpora.map((c) => (
                  <option key={c.name} value={c.name}>
                    {c.name} ({formatCount(c.papers)})
                  </option>
                ))}
              </select>
            </div>
          )}
        </div>
        {error ? (
          <p className="mt-5 text-sm text-danger">Corpus details unavailable: {error.message}</p>
        ) : (
          <div className="mt-5 flex flex-col gap-4 lg:flex-row lg:items-end lg:justify-between">
            <dl className="flex flex-wrap gap-x-8 gap-y-3" aria-busy={!overview}>
              <Stat label="Papers" value={overview ? formatCount(overview.papers) : undefined} testId="corpus-paper-count" />
              <Stat label="Citations" value={overview ? formatCount(overview.citations) : undefined} />
              <Stat label="Years" value={overview ? years : undefined} />
              <Stat label="Venues" value={overview ? formatCount(overview.venues.length) : undefined} />
            </dl>
            <FacetLegend />
          </div>
        )}
      </div>
    </section>
  );
}

function Stat({ label, value, testId }: { label: string; value: string | undefined; testId?: string }) {
  return (
    <div className="min-w-16">
      <dt className="text-xs text-ink-faint">{label}</dt>
      <dd className="mt-0.5 text-lg font-semibold tabular-nums" data-testid={testId}>
        {value ?? <span className="inline-block h-5 w-14 animate-pulse rounded bg-line align-middle" />}
      </dd>
    </div>
  );
}

const controlClass =
  "h-10 w-full rounded-md border border-line-strong bg-surface px-3 text-sm text-ink shadow-xs transition-colors hover:border-ink-faint disabled:cursor-not-allowed disabled:opacity-60";

function FilterBar({
  filters,
  overview,
  onChange,
}: {
  filters: Filters;
  overview: CorpusOverview | undefined;
  onChange: (patch: Partial<Omit<Filters, "page">>, mode?: "push" | "replace") => void;
}) {
  const ids = { q: useId(), from: useId(), to: useId(), venue: useId() };
  const years: number[] = [];
  if (overview?.years.min != null && overview.years.max != null) for (let y = overview.years.max; y >= overview.years.min; y--) years.push(y);
  // A value from a shared URL that is not in the list still has to show as selected.
  const withCurrent = (list: string[], value: string) => (value && !list.includes(value) ? [value, ...list] : list);
  const fromOptions = withCurrent(
    years.filter((y) => !filters.yearTo || !Number.isFinite(Number(filters.yearTo)) || y <= Number(filters.yearTo)).map(String),
    filters.yearFrom,
  );
  const toOptions = withCurrent(
    years.filter((y) => !filters.yearFrom || !Number.isFinite(Number(filters.yearFrom)) || y >= Number(filters.yearFrom)).map(String),
    filters.yearTo,
  );
  const venues = overview?.venues ?? [];

  return (
    <form
      role="search"
      aria-label="Filter papers"
      className="-mt-px grid gap-3 py-5 sm:grid-cols-2 lg:grid-cols-[minmax(0,2.2fr)_minmax(0,2fr)_8rem_8rem]"
      onSubmit={(e) => e.preventDefault()}
    >
      <div className="sm:col-span-2 lg:col-span-1">
        <label htmlFor={ids.q} className="mb-1 block text-xs font-medium text-ink-muted">
          Title
        </label>
        <SearchBox id={ids.q} value={filters.q} onCommit={(q) => onChange({ q }, "replace")} />
      </div>
      <div className="sm:col-span-2 lg:col-span-1">
        <label htmlFor={ids.venue} className="mb-1 block text-xs font-medium text-ink-muted">
          Venue
        </label>
        <select
          id={ids.venue}
          value={filters.venue}
          disabled={!overview}
          onChange={(e) => onChange({ venue: e.target.value })}
          className={`${controlClass} truncate pr-8`}
        >
          <option value="">All venues</option>
          <VenueOptions venues={venues} selected={filters.venue || undefined} />
        </select>
      </div>
      <div>
        <label htmlFor={ids.from} className="mb-1 block text-xs font-medium text-ink-muted">
          From year
        </label>
        <select id={ids.from} value={filters.yearFrom} disabled={!overview} onChange={(e) => onChange({ yearFrom: e.target.value })} className={controlClass}>
          <option value="">Any</option>
          {fromOptions.map((y) => (
            <option key={y} value={y}>
              {y}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor={ids.to} className="mb-1 block text-xs font-medium text-ink-muted">
          To year
        </label>
        <select id={ids.to} value={filters.yearTo} disabled={!overview} onChange={(e) => onChange({ yearTo: e.target.value })} className={controlClass}>
          <option value="">Any</option>
          {toOptions.map((y) => (
            <option key={y} value={y}>
              {y}
            </option>
          ))}
        </select>
      </div>
    </form>
  );
}

/**
 * Title search that commits to the URL after a pause in typing (or at once on Enter). The URL can
 * also change under it (back button, "clear filters"), and then the box follows the URL — except
 * when the URL merely caught up with what was typed, so keystrokes made meanwhile survive.
 */
function SearchBox({ id, value, onCommit }: { id: string; value: string; onCommit: (q: string) => void }) {
  const [draft, setDraft] = useState(value);
  const [seen, setSeen] = useState(value);
  const [committed, setCommitted] = useState(value);
  const input = useRef<HTMLInputElement>(null);
  if (value !== seen) {
    setSeen(value);
    if (value !== committed) setDraft(value);
  }

  function commit(q: string) {
    setCommitted(q);
    onCommit(q);
  }
  // An effect event, so a re-render with a new onCommit does not restart the debounce timer.
  const commitAfterPause = useEffectEvent((q: string) => commit(q));
  useEffect(() => {
    const q = draft.trim();
    if (q === value) return;
    const timer = setTimeout(() => commitAfterPause(q), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [draft, value]);

  // "/" focuses the search box, as in most search-centred tools.
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      const target = e.target as HTMLElement | null;
      if (e.key !== "/" || e.metaKey || e.ctrlKey || e.altKey) return;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
      e.preventDefault();
      input.current?.focus();
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <div className="relative">
      <svg
        aria-hidden="true"
        viewBox="0 0 20 20"
        className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-ink-faint"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
      >
        <circle cx="8.5" cy="8.5" r="5.5" />
        <path d="m13 13 4 4" strokeLinecap="round" />
      </svg>
      <input
        ref={input}
        id={id}
        type="search"
        value={draft}
        maxLength={200}
        autoComplete="off"
        spellCheck={false}
        placeholder="Search titles…"
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            commit(draft.trim());
          }
        }}
        className={`${controlClass} pl-9 pr-9`}
      />
      {draft === "" && (
        <kbd className="pointer-events-none absolute right-2.5 top-1/2 hidden -translate-y-1/2 rounded border border-line px-1.5 font-mono text-[0.6875rem] text-ink-faint sm:block">
          /
        </kbd>
      )}
    </div>
  );
}

function Results({
  filters,
  query,
  onPage,
  onClear,
}: {
  filters: Filters;
  query: { data: PaperList | undefined; error: Error | null; isFetching: boolean; isPlaceholderData: boolean; refetch: () => unknown };
  onPage: (page: number) => void;
  onClear: () => void;
}) {
  const { data, error, isFetching, isPlaceholderData } = query;

  if (error && !isFetching)
    return (
      <div role="alert" className="rounded-lg border border-danger/30 bg-danger-tint px-4 py-3.5 text-sm">
        <p className="font-semibold text-danger">Could not load papers</p>
        <p className="mt-1 text-ink">{error.message}</p>
        <div className="mt-3 flex gap-2">
          <button type="button" onClick={() => query.refetch()} className={buttonClass}>
            Try again
          </button>
          {hasFilters(filters) && (
            <button type="button" onClick={onClear} className={buttonClass}>
              Clear filters
            </button>
          )}
        </div>
      </div>
    );

  if (!data) return <ResultsSkeleton />;

  const first = (data.page - 1) * data.pageSize + 1;
  const last = first + data.items.length - 1;
  const pages = Math.max(1, Math.ceil(data.total / data.pageSize));
  const updating = isFetching && isPlaceholderData;

  return (
    <section aria-label="Papers" aria-busy={updating}>
      <div className="flex min-h-8 flex-wrap items-center justify-between gap-2 pb-3">
        <p className="text-sm text-ink-muted" data-testid="results-summary" aria-live="polite">
          {data.total === 0 ? (
            "0 papers"
          ) : data.items.length === 0 ? (
            `Page ${formatCount(data.page)} is past the last page (${formatCount(pages)})`
          ) : (
            <>
              Showing{" "}
              <span className="font-medium tabular-nums text-ink">
                {formatCount(first)}–{formatCount(last)}
              </span>{" "}
              of <span className="font-medium tabular-nums text-ink">{formatCount(data.total)}</span> {data.total === 1 ? "paper" : "papers"}
            </>
          )}
        </p>
        <div className="flex items-center gap-3">
          {updating && <Spinner />}
          {hasFilters(filters) && (
            <button type="button" onClick={onClear} className="text-sm font-medium text-ink-muted underline-offset-4 hover:text-ink hover:underline">
              Clear filters
            </button>
          )}
        </div>
      </div>

      {data.items.length === 0 ? (
        <div className="rounded-lg border border-dashed border-line-strong bg-surface px-6 py-12 text-center">
          <p className="font-medium">{data.total === 0 ? "No papers match these filters." : "Nothing on this page."}</p>
          <p className="mt-1 text-sm text-ink-muted">
            {data.total === 0 ? "Try a shorter title search or a wider year range." : "The result set is shorter than this page number."}
          </p>
          <button type="button" onClick={data.total === 0 ? onClear : () => onPage(1)} className={`${buttonClass} mt-4`}>
            {data.total === 0 ? "Clear filters" : "Back to the first page"}
          </button>
        </div>
      ) : (
        <ol
          className={`divide-y divide-line overflow-hidden rounded-lg border border-line bg-surface shadow-xs transition-opacity ${updating ? "opacity-60" : ""}`}
          start={first}
        >
          {data.items.map((p) => (
            <PaperRow key={p.id} corpus={data.corpus} paper={p} />
          ))}
        </ol>
      )}

      {data.total > data.pageSize && (
        <nav aria-label="Pagination" className="flex items-center justify-between gap-3 pt-4">
          <button type="button" onClick={() => onPage(data.page - 1)} disabled={data.page <= 1} className={buttonClass}>
            <span aria-hidden="true">←</span> Previous
          </button>
          <p className="text-sm tabular-nums text-ink-muted">
            Page {formatCount(Math.min(data.page, pages))} of {formatCount(pages)}
          </p>
          <button type="button" onClick={() => onPage(data.page + 1)} disabled={data.page >= pages} className={buttonClass}>
            Next <span aria-hidden="true">→</span>
          </button>
        </nav>
      )}
    </section>
  );
}

function PaperRow({ corpus, paper }: { corpus: string; paper: PaperSummary }) {
  return (
    <li className="group px-4 py-3.5 transition-colors hover:bg-canvas/60 sm:px-5">
      <div className="flex items-baseline justify-between gap-4">
        <Link
          href={paperHref(corpus, paper.externalId)}
          className="text-[0.9375rem] font-medium leading-snug text-ink decoration-ink-faint underline-offset-[3px] hover:underline"
        >
          {paper.title}
        </Link>
        {paper.year != null && (
          <span className="shrink-0 text-sm tabular-nums text-ink-muted" data-testid="paper-year">
            {paper.year}
          </span>
        )}
      </div>
      <div className="mt-1.5 flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between sm:gap-6">
        <p className="min-w-0 text-sm text-ink-muted sm:truncate">
          <span>{formatAuthors(paper.authors)}</span>
          {paper.venue && (
            <>
              <span aria-hidden="true" className="px-1.5 text-line-strong">
                ·
              </span>
              <span title={paper.venue} className="text-ink-faint">
                {shortVenue(paper.venue)}
              </span>
            </>
          )}
        </p>
        <span className="shrink-0">
          <FacetCounts counts={paper.facetCounts} />
        </span>
      </div>
    </li>
  );
}

function ResultsSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading papers">
      <div className="h-8 pb-3">
        <div className="h-4 w-48 animate-pulse rounded bg-line" />
      </div>
      <ul className="divide-y divide-line overflow-hidden rounded-lg border border-line bg-surface">
        {Array.from({ length: 8 }, (_, i) => (
          <li key={i} className="px-5 py-4">
            <div className="h-4 animate-pulse rounded bg-line" style={{ width: `${55 + ((i * 17) % 35)}%` }} />
            <div className="mt-2.5 h-3 w-1/3 animate-pulse rounded bg-line/70" />
          </li>
        ))}
      </ul>
    </div>
  );
}

function Spinner() {
  return (
    <span className="inline-flex items-center gap-2 text-xs text-ink-faint" role="status">
      <span className="size-3.5 animate-spin rounded-full border-2 border-line-strong border-t-ink-muted" aria-hidden="true" />
      Updating
    </span>
  );
}

function NotImported({
  migrated,
  corpus,
  message,
  available,
  onCorpus,
}: {
  migrated: boolean;
  corpus: string;
  message: string;
  available: string[];
  onCorpus: (name: string) => void;
}) {
  return (
    <div className="mx-auto max-w-2xl px-4 py-16 sm:px-6">
      <div className="rounded-xl border border-line bg-surface p-8 shadow-xs">
        <p className="text-xs font-medium uppercase tracking-[0.08em] text-ink-faint">{available.length ? "Corpus not found" : "Empty database"}</p>
        <h1 className="mt-2 text-xl font-semibold tracking-tight">
          {migrated ? (
            <>
              The corpus <span className="font-mono">{corpus}</span> has not been imported yet
            </>
          ) : (
            "The database has not been set up yet"
          )}
        </h1>
        <p className="mt-3 text-[0.9375rem] leading-relaxed text-ink-muted">
          Graft reads papers, facets and citations from its database. From the repository root, create the tables and import a corpus directory (
          <code className="font-mono text-[0.85em]">papers.jsonl</code> and <code className="font-mono text-[0.85em]">citations.tsv</code>), then reload this
          page:
        </p>
        {/* Migrating twice is harmless, so the first step is shown even when tables exist. */}
        <Command>npm run graft -- db migrate</Command>
        {/* Without arguments the importer loads the demo corpus under its default name. */}
        <Command>{corpus === DEFAULT_CORPUS ? "npm run graft -- import" : `npm run graft -- import <corpus-dir> --corpus ${corpus}`}</Command>
        {available.length > 0 && (
          <p className="mt-4 text-sm text-ink-muted">
            Or open an imported corpus:{" "}
            {available.map((name, i) => (
              <span key={name}>
                {i > 0 && ", "}
                <button type="button" onClick={() => onCorpus(name)} className="font-mono font-medium text-ink underline underline-offset-4">
                  {name}
                </button>
              </span>
            ))}
          </p>
        )}
        <p className="mt-4 text-xs text-ink-faint">Server said: {message}</p>
      </div>
    </div>
  );
}

function Command({ children }: { children: ReactNode }) {
  return (
    <pre className="mt-3 overflow-x-auto rounded-md bg-ink px-4 py-3 font-mono text-sm text-white">
      <span aria-hidden="true" className="select-none text-white/50">
        ${" "}
      </span>
      {children}
    </pre>
  );
}
