"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useState, type ReactNode } from "react";
import type { CorpusOverview } from "@/lib/corpus";
import { FACETS, type Facet } from "@/lib/corpus/types";
import { DEMO } from "@/lib/demo/examples";
import { fetchJson } from "@/lib/http/client";
import { inLibrary, libraryMatch, type LibraryIndex, type LibraryMatch, type PaperIdentity } from "@/lib/query/library";
import type { QuerySource, RelatedResult } from "@/lib/query";
import { FusionExplainer } from "../explain";
import { queryYearPhrase } from "../direction";
import { ExportMenu } from "../export-menu";
import { FACET_STYLES, FacetLegend, FacetLetter, facetVars } from "../facets";
import { paperHref } from "../format";
import { RelatedGraph } from "../graph/related-graph";
import { buttonClass, Icon, quietButtonClass } from "../ui";
import { Composer } from "./composer";
import { CorpusSwitch } from "./corpus-switch";
import { setupCommands } from "./setup-command";
import { readParams, writeParams, type ExploreParams, type Sort } from "./explore-state";
import { FiltersPanel, FUSION_LABELS } from "./filters-panel";
import { RETRIEVER_INFO } from "@/lib/query/types";
import { LibraryPanel, type LibraryMarks } from "./library-panel";
import { useLibrary } from "./library-store";
import { LineageView } from "./lineage-view";
import { PerFacetView } from "./per-facet-view";
import { QueryProgress } from "./query-progress";
import { exportContext, toResultRecord } from "./records";
import {
  busyRetryDelay,
  fetchRelated,
  inputKey,
  isGraftNotTrained,
  RelatedError,
  retryWhenBusy,
  type Progress,
  type QueryInput,
  type QueryOptions,
} from "./related-client";
import { INPUT_ERROR_CODES } from "@/lib/input/errors";
import { ResultList, type RankedPaper, type SeedActions } from "./result-list";
import { SeedResults } from "./seed-results";
import { SeedTray } from "./seed-tray";
import { ViewSwitch } from "./view-switch";

/**
 * The explorer: the start page (paste text, drop a file, pick a corpus paper, or try an example)
 * and, once a query runs, its progress and results in place (no page load): a ranked list with
 * facet provenance, a per-facet view and the typed graph, with filters, retriever comparison and
 * export. Options live in the URL; pasted text and files stay in the page.
 */
// eslint-disable-next-line max-lines-per-function -- the explorer page's URL state, query, fallback and seed tray feed one markup tree; the handlers are the URL's setters
export function Explorer() {
  const searchParams = useSearchParams();
  const pathname = usePathname();
  const params = useMemo(() => readParams(new URLSearchParams(searchParams.toString())), [searchParams]);
  const [local, setLocal] = useState<QueryInput | null>(null);
  const input: QueryInput | null = params.paper ? { kind: "paper", corpus: params.corpus, paperId: params.paper } : local;

  // Graft's retriever answers not_ready until a model is trained: remember that per corpus and
  // fall back to the dense-graph teacher, saying so.
  const [graftDown, setGraftDown] = useState<Record<string, string>>({});
  const graftUnavailable = graftDown[params.corpus] ?? null;
  const options: QueryOptions = {
    k: params.k,
    retriever: params.retriever === "graft" && graftUnavailable ? "dense-graph" : params.retriever,
    fusion: params.fusion,
    facets: params.facets,
    yearFrom: params.yearFrom,
    yearTo: params.yearTo,
    venue: params.venue,
    direction: params.direction,
  };
  const iKey = input ? inputKey(input) : null;
  const runKey = JSON.stringify([iKey, options]);
  const [progress, setProgress] = useState<{ run: string; steps: Progress[] }>({ run: "", steps: [] });

  const related = useQuery({
    queryKey: ["related", iKey, options],
    enabled: input !== null,
    queryFn: ({ signal }) => {
      setProgress({ run: runKey, steps: [] });
      return fetchRelated(input!, options, (p) => setProgress((cur) => (cur.run === runKey ? { run: runKey, steps: [...cur.steps, p] } : cur)), signal);
    },
    // While options change, the previous results of the same query stay on screen (dimmed).
    placeholderData: (prev, prevQuery) => (prevQuery?.queryKey[1] === iKey ? prev : undefined),
    staleTime: Infinity,
    // A busy server (503 + Retry-After) is asked again after the wait it names; other errors are shown.
    retry: retryWhenBusy,
    retryDelay: busyRetryDelay,
  });

  const err = related.error;
  // not_ready also means "no graph build"; only a missing model is Graft's own problem.
  const graftNotReady = options.retriever === "graft" && isGraftNotTrained(err);
  useEffect(() => {
    if (graftNotReady && err)
      // eslint-disable-next-line react-hooks/set-state-in-effect -- reacting to a server answer, once per corpus
      setGraftDown((cur) => ({ ...cur, [params.corpus]: err.message }));
  }, [graftNotReady, err, params.corpus]);

  // Papers on screen (results and every facet's list) that are in the reader's library.
  const library = useLibrary();
  const shownResult = related.data;
  const marks: LibraryMarks = useMemo(
    () => (library.index && shownResult ? inLibrary(library.index, [...shownResult.results, ...FACETS.flatMap((f) => shownResult.perFacet[f])]) : new Map()),
    [library.index, shownResult],
  );

  const overview = useQuery({
    queryKey: ["corpus", params.corpus],
    queryFn: ({ signal }) => fetchJson<CorpusOverview>(`/api/corpora/${encodeURIComponent(params.corpus)}`, { signal }),
  });

  const setParams = useCallback(
    (patch: Partial<ExploreParams>, mode: "push" | "replace" = "replace") => {
      const qs = writeParams({ ...params, ...patch }).toString();
      // The History API updates useSearchParams without a server round trip (Next's router
      // integrates with pushState/replaceState), so results change in place.
      window.history[mode === "push" ? "pushState" : "replaceState"](null, "", qs ? `${pathname}?${qs}` : pathname);
    },
    [params, pathname],
  );

  // Seeds: corpus papers gathered in ?seeds=; with no other query, the results are all of theirs.
  const seedMode = !input && params.seeds.length > 0;
  const seedMarkOf = useCallback((p: PaperIdentity): LibraryMatch | null => (library.index ? libraryMatch(library.index, p) : null), [library.index]);
  const [seedTitles, setSeedTitles] = useState<Record<string, string>>({});
  const addSeedTitles = useCallback((t: Record<string, string>) => setSeedTitles((cur) => ({ ...cur, ...t })), []);
  const queryTitle = related.data?.query.externalId ? related.data.query.title : null;
  const seedActions: SeedActions = {
    seeded: (id) => params.seeds.includes(id),
    add: (id, title) => {
      addSeedTitles({ [id]: title });
      if (!params.seeds.includes(id)) setParams({ seeds: [...params.seeds, id] });
    },
  };
  const seedTray = (
    <SeedTray
      seeds={params.seeds}
      titles={queryTitle && params.paper ? { ...seedTitles, [params.paper]: queryTitle } : seedTitles}
      current={input?.kind === "paper" ? input.paperId : null}
      active={seedMode}
      onAdd={(id) => seedActions.add(id, queryTitle ?? id)}
      onRemove={(id) => setParams({ seeds: params.seeds.filter((s) => s !== id) })}
      onClear={() => setParams({ seeds: [] })}
      onRun={() => {
        setLocal(null);
        setParams({ paper: null }, "push");
        window.scrollTo({ top: 0 });
      }}
    />
  );

  const runText = (text: string) => {
    setLocal({ kind: "text", corpus: params.corpus, text });
    setParams({ paper: null }, "push");
  };
  const runFile = (file: File) => {
    setLocal({ kind: "file", corpus: params.corpus, file });
    setParams({ paper: null }, "push");
  };
  const runPaper = (paperId: string) => {
    setLocal(null);
    setParams({ paper: paperId }, "push");
    window.scrollTo({ top: 0 });
  };
  const reset = () => {
    setLocal(null);
    setParams({ paper: null, seeds: seedMode ? [] : params.seeds }, "push");
  };

  if (seedMode)
    return (
      <div>
        <QueryBar onNewQuery={reset}>
          <p className="mt-2 text-xs text-ink-faint">
            <span className="rounded bg-canvas px-1.5 py-0.5 font-medium text-ink-muted">Several seeds</span>
          </p>
          <h1 className="mt-1.5 text-xl font-semibold tracking-tight sm:text-2xl" data-testid="query-title">
            Papers related to all {params.seeds.length} seeds
          </h1>
        </QueryBar>
        <div className="mx-auto grid max-w-6xl gap-6 px-4 pt-6 sm:px-6 lg:grid-cols-[16rem_minmax(0,1fr)]">
          <aside className="lg:sticky lg:top-20 lg:self-start" aria-label="Options">
            <div className="-mt-4 mb-5">{seedTray}</div>
            <FiltersPanel params={params} overview={overview.data} graftUnavailable={graftUnavailable} onChange={(p) => setParams(p)} directions={false} />
          </aside>
          <section aria-label="Results" className="min-w-0">
            <SeedResults
              corpus={params.corpus}
              seeds={params.seeds}
              options={{ ...options, direction: undefined }}
              actions={seedActions}
              onSeedTitles={addSeedTitles}
              view={params.view}
              onView={(view) => setParams({ view })}
              markOf={seedMarkOf}
            />
          </section>
        </div>
      </div>
    );

  if (!input)
    return (
      <StartPage
        corpus={params.corpus}
        busy={false}
        onText={runText}
        onFile={runFile}
        onPaper={runPaper}
        onCorpus={(corpus) => setParams({ corpus, paper: null, seeds: [] }, "push")}
      />
    );

  const fallingBack = graftNotReady;
  const running = related.isFetching || fallingBack;
  const result = related.data;
  const showError = err && !fallingBack && !related.isFetching;

  return (
    <div>
      <QueryBar onNewQuery={reset}>
        <QueryHeader input={input} result={result} />
      </QueryBar>

      <div className="mx-auto grid max-w-6xl gap-6 px-4 pt-6 sm:px-6 lg:grid-cols-[16rem_minmax(0,1fr)]">
        <aside className="lg:sticky lg:top-20 lg:self-start" aria-label="Options">
          <FiltersPanel params={params} overview={overview.data} graftUnavailable={graftUnavailable} onChange={(p) => setParams(p)} />
          <LibraryPanel marked={marks.size} />
          {seedTray}
        </aside>

        <section aria-label="Results" className="min-w-0" aria-busy={running}>
          {graftUnavailable && params.retriever === "graft" && (
            <div
              role="status"
              className="mb-4 flex gap-3 rounded-lg border border-line-strong bg-surface px-4 py-3 text-sm shadow-xs"
              data-testid="graft-fallback"
            >
              <Icon name="info" className="mt-0.5 size-4 shrink-0 text-ink-muted" />
              <p>
                <span className="font-semibold">Graft&apos;s generative retriever is not trained for this corpus yet</span>, so these results come from the
                dense-graph teacher it is distilled from. <span className="text-ink-muted">Server: {graftUnavailable}</span>
              </p>
            </div>
          )}

          {running && (
            <div className={result ? "mb-4" : ""}>
              <QueryProgress key={runKey} kind={input.kind} progress={progress.run === runKey ? progress.steps : []} compact={Boolean(result)} />
            </div>
          )}

          {showError && (
            <QueryErrorPanel
              error={err}
              corpus={params.corpus}
              input={input}
              onRetry={() => related.refetch()}
              onReset={reset}
              onRetriever={(r) => setParams({ retriever: r })}
            />
          )}

          {result && !showError && (
            <Results
              result={result}
              params={params}
              stale={related.isPlaceholderData || running}
              setParams={setParams}
              options={options}
              library={{ marks, hide: library.hide, index: library.index }}
              seeds={seedActions}
            />
          )}

          {!result && running && <ResultsSkeleton />}
        </section>
      </div>
    </div>
  );
}

// ── start page ───────────────────────────────────────────────────────────────────────────

function StartPage(props: {
  corpus: string;
  busy: boolean;
  onText: (t: string) => void;
  onFile: (f: File) => void;
  onPaper: (id: string) => void;
  onCorpus: (name: string) => void;
}) {
  return (
    <div>
      <section className="border-b border-line bg-surface">
        <div className="mx-auto grid max-w-6xl gap-8 px-4 pb-10 pt-10 sm:px-6 lg:grid-cols-[minmax(0,1fr)_20rem] lg:pt-12">
          <div className="min-w-0">
            <p className="text-xs font-medium uppercase tracking-[0.08em] text-ink-faint">Explore related work</p>
            <h1 className="mt-2 text-[1.75rem] font-semibold leading-tight tracking-tight text-balance sm:text-[2.125rem]">
              Find related papers, and see <em className="font-serif font-medium">why</em> each one is related
            </h1>
            <p className="mt-3 max-w-2xl text-[0.9375rem] leading-relaxed text-ink-muted">
              Graft reads a paper as four facets: the problems it tackles, its methods, its results and its contributions. It retrieves through each facet
              separately and tells you which facets surfaced every paper, with the matching sentences side by side.
            </p>
            <div className="mt-6">
              <CorpusSwitch corpus={props.corpus} onChange={props.onCorpus} />
              <Composer corpus={props.corpus} busy={props.busy} onText={props.onText} onFile={props.onFile} onPaper={props.onPaper} />
            </div>
          </div>
          <aside className="space-y-4 lg:pt-[5.5rem]" aria-label="The four facets">
            {FACETS.map((f) => (
              <div key={f} style={facetVars(f)} className="flex gap-3">
                <FacetLetter facet={f} size="md" />
                <div>
                  <p className="text-sm font-semibold text-(--facet-ink)">{FACET_STYLES[f].label}</p>
                  <p className="text-sm text-ink-muted">{FACET_STYLES[f].description}</p>
                </div>
              </div>
            ))}
            <p className="border-t border-line pt-4 text-xs leading-relaxed text-ink-faint">
              Each related paper carries chips like <FacetChipSample facet="methods" rank={2} />: it was found through its methods, the 2nd paper the methods
              facet found.
            </p>
          </aside>
        </div>
      </section>
      <Examples corpus={props.corpus} onPaper={props.onPaper} />
    </div>
  );
}

function FacetChipSample({ facet, rank }: { facet: Facet; rank: number }) {
  return (
    <span
      style={facetVars(facet)}
      className="inline-flex items-center gap-1 rounded border border-(--facet)/40 bg-(--facet-tint) px-1 text-[0.6875rem] font-medium text-(--facet-ink)"
    >
      {FACET_STYLES[facet].letter} #{rank}
    </span>
  );
}

function Examples({ corpus, onPaper }: { corpus: string; onPaper: (id: string) => void }) {
  if (corpus !== DEMO.corpus || DEMO.examples.length === 0) return null;
  return (
    <section aria-labelledby="examples-heading" className="mx-auto max-w-6xl px-4 pt-8 sm:px-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="examples-heading" className="text-lg font-semibold tracking-tight">
            Try an example
          </h2>
          <p className="mt-0.5 text-sm text-ink-muted">Papers from the demo corpus whose facets disagree: each facet surfaces papers the others miss.</p>
        </div>
        <Link href="/demo" className={buttonClass}>
          <Icon name="play" className="size-3.5" />
          Presentation mode
        </Link>
      </div>
      <ul className="mt-4 grid gap-3 sm:grid-cols-2 lg:grid-cols-3" data-testid="examples">
        {DEMO.examples.map((e) => (
          <li key={e.paperId}>
            <button
              type="button"
              onClick={() => onPaper(e.paperId)}
              className="flex h-full w-full flex-col items-start gap-3 rounded-lg border border-line bg-surface p-4 text-left shadow-xs transition-colors hover:border-line-strong hover:bg-canvas/50"
            >
              <span className="text-[0.9375rem] font-medium leading-snug">{e.title}</span>
              <span className="mt-auto flex w-full items-center justify-between gap-2 text-xs text-ink-faint">
                <span className="tabular-nums">{e.year}</span>
                <span className="flex items-center gap-1" aria-label={`${e.soleFacets.length} facets each find their own papers`}>
                  {e.soleFacets.map((f) => (
                    <FacetLetter key={f} facet={f} />
                  ))}
                </span>
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

// ── query header ─────────────────────────────────────────────────────────────────────────

const SOURCE_LABELS: Record<QuerySource, string> = { corpus: "Corpus paper", text: "Pasted text", pdf: "PDF", record: "Paper record" };

function QueryHeader({ input, result }: { input: QueryInput; result: RelatedResult | undefined }) {
  const q = result?.query;
  const fallbackTitle = input.kind === "file" ? input.file.name : input.kind === "text" ? input.text.split("\n")[0].slice(0, 160) : input.paperId;
  const source = q ? SOURCE_LABELS[q.source] : input.kind === "paper" ? "Corpus paper" : input.kind === "file" ? "File" : "Pasted text";
  const items = q ? FACETS.reduce((n, f) => n + q.facets[f].length, 0) : 0;
  return (
    <div className="mt-2">
      <p className="flex flex-wrap items-center gap-2 text-xs text-ink-faint">
        <span className="rounded bg-canvas px-1.5 py-0.5 font-medium text-ink-muted">{source}</span>
        {q?.extraction && (
          <span>
            facets extracted by {q.extraction.provider}
            {q.extraction.model ? ` (${q.extraction.model})` : ""} in {Math.round(q.extraction.ms)} ms
          </span>
        )}
        {q && !q.inGraph && q.source !== "corpus" && <span>· not in the graph: its items were matched against the corpus</span>}
        {q?.year && (
          <span data-testid="query-year" title={`Results are earlier or later work against ${queryYearPhrase(q.year)}`}>
            · {q.year.source === "paper" ? `${q.year.value}` : `about ${q.year.value} (inferred from the closest papers)`}
          </span>
        )}
      </p>
      <h1 className="mt-1.5 max-w-4xl text-xl font-semibold leading-snug tracking-tight text-balance sm:text-2xl" data-testid="query-title">
        {q?.externalId && q.source === "corpus" ? (
          <Link href={paperHref(result!.corpus, q.externalId)} className="hover:underline">
            {q.title}
          </Link>
        ) : q ? (
          q.title || fallbackTitle || "Your paper"
        ) : input.kind === "paper" ? (
          // A corpus paper's title arrives with the result; hold its line meanwhile.
          <span className="inline-block h-[1.375em] w-2/3 animate-pulse rounded bg-line align-middle" aria-label="Loading the paper" />
        ) : (
          fallbackTitle || "Your paper"
        )}
      </h1>
      {!q && (
        // The facets toggle below appears with the result: keep its line so nothing jumps.
        <div className="mt-3 h-5 w-44 animate-pulse rounded bg-line/70" aria-hidden="true" />
      )}
      {q && items > 0 && (
        <details className="group mt-3" open={q.source !== "corpus"}>
          <summary className="inline-flex cursor-pointer list-none items-center gap-1.5 text-sm font-medium text-ink-muted hover:text-ink [&::-webkit-details-marker]:hidden">
            <Icon name="chevronRight" className="size-3.5 transition-transform group-open:rotate-90" />
            The query&apos;s facets ({items} items)
          </summary>
          <div className="mt-3 grid gap-2.5 md:grid-cols-2 xl:grid-cols-4" data-testid="query-facets">
            {FACETS.map((f) => (
              <div
                key={f}
                style={facetVars(f)}
                className="min-w-0 wrap-anywhere rounded-md border border-line border-l-4 border-l-(--facet) bg-surface px-3 py-2"
              >
                <p className="flex items-center gap-1.5 text-xs font-semibold text-(--facet-ink)">
                  <FacetLetter facet={f} />
                  {FACET_STYLES[f].label}
                </p>
                {q.facets[f].length ? (
                  <ul className="mt-1.5 space-y-1 text-[0.8125rem] leading-snug text-ink">
                    {q.facets[f].map((t, i) => (
                      <li key={i}>{t}</li>
                    ))}
                  </ul>
                ) : (
                  <p className="mt-1.5 text-[0.8125rem] text-ink-faint">None found</p>
                )}
              </div>
            ))}
          </div>
        </details>
      )}
    </div>
  );
}

// ── results ──────────────────────────────────────────────────────────────────────────────

function Results({
  result,
  params,
  stale,
  options,
  setParams,
  library,
  seeds,
}: {
  result: RelatedResult;
  params: ExploreParams;
  seeds: SeedActions;
  stale: boolean;
  options: QueryOptions;
  setParams: (p: Partial<ExploreParams>) => void;
  /** Results in the reader's library, whether to hide them, and the library to mark other papers with. */
  library: { marks: LibraryMarks; hide: boolean; index: LibraryIndex | null };
}) {
  // Hidden papers keep their fused rank: the gaps say where they were.
  const ranked: RankedPaper[] = result.results.map((r, i) => ({ ...r, fusedRank: i + 1 })).filter((r) => !(library.hide && library.marks.has(r.externalId)));
  const hiddenCount = result.results.length - ranked.length;
  const { index, hide, marks } = library;
  const markOf = useCallback((p: PaperIdentity): LibraryMatch | null => (index ? libraryMatch(index, p) : null), [index]);
  const graphLibrary = useMemo(() => ({ markOf, hide }), [markOf, hide]);
  const resultIds = useMemo(() => result.results.map((r) => r.externalId), [result.results]);
  const exclude = useMemo(() => (result.query.externalId ? [result.query.externalId] : []), [result.query.externalId]);
  const sorted = params.sort === "year" ? [...ranked].sort((a, b) => (b.year ?? -1) - (a.year ?? -1) || a.fusedRank - b.fusedRank) : ranked;
  const name = result.query.title || "query";
  const expand = useCallback(
    (paperId: string) => fetchRelated({ kind: "paper", corpus: result.corpus, paperId }, { ...options, k: 10 }, () => {}),
    // The options object is rebuilt each render; its JSON is the dependency that matters.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [result.corpus, JSON.stringify(options)],
  );

  return (
    <div className={`transition-opacity ${stale ? "opacity-60" : ""}`}>
      <div className="flex flex-wrap items-center justify-between gap-3 pb-3">
        <p className="text-sm text-ink-muted" data-testid="results-summary">
          <span className="font-semibold text-ink">{result.results.length}</span> related {result.results.length === 1 ? "paper" : "papers"} ·{" "}
          {RETRIEVER_INFO[result.retriever].label} + {FUSION_LABELS[result.fusion]} ·{" "}
          <span className="tabular-nums">{Math.round(result.timings.totalMs)} ms</span>
          {marks.size > 0 && (
            <span data-testid="library-results-note">
              {" "}
              ·{" "}
              {hiddenCount > 0 ? `${hiddenCount} in your library hidden` : `${[...marks.keys()].filter((id) => resultIds.includes(id)).length} in your library`}
            </span>
          )}
        </p>
        <div className="flex flex-wrap items-center gap-2">
          <ViewSwitch value={params.view} onChange={(view) => setParams({ view })} />
          {params.view === "list" && (
            <label className="flex items-center gap-1.5 text-xs text-ink-muted">
              Sort
              <select
                value={params.sort}
                onChange={(e) => setParams({ sort: e.target.value as Sort })}
                className="h-8 rounded-md border border-line-strong bg-surface px-2 text-sm text-ink shadow-xs"
              >
                <option value="score">by score</option>
                <option value="year">by year (newest)</option>
              </select>
            </label>
          )}
          <ExportMenu
            records={() => sorted.map((r) => toResultRecord(result.corpus, r, r.fusedRank))}
            name={name}
            context={() => exportContext(result)}
            disabled={sorted.length === 0}
          />
        </div>
      </div>
      <FusionExplainer fusion={result.fusion} note={result.fusionNote} className="mb-3 max-w-3xl" />
      {result.results.length === 0 ? (
        <div className="rounded-lg border border-dashed border-line-strong bg-surface px-6 py-10 text-center">
          <p className="font-medium">No related papers with these filters.</p>
          <p className="mt-1 text-sm text-ink-muted">Widen the year range, pick another venue, ask for both earlier and later work or turn facets back on.</p>
        </div>
      ) : params.view === "facets" ? (
        <PerFacetView result={result} facets={FACETS.filter((f) => params.facets.includes(f))} library={{ marks, hide }} />
      ) : params.view === "graph" ? (
        <RelatedGraph
          key={`${result.query.externalId ?? result.query.title}-${result.results.length}-${result.retriever}-${result.fusion}`}
          result={result}
          expand={expand}
          name={name}
          library={graphLibrary}
        />
      ) : params.view === "lineage" ? (
        <LineageView corpus={result.corpus} papers={resultIds} exclude={exclude} markOf={markOf} />
      ) : sorted.length === 0 ? (
        <div className="rounded-lg border border-dashed border-line-strong bg-surface px-6 py-10 text-center" data-testid="all-in-library">
          <p className="font-medium">Every result is in your library.</p>
          <p className="mt-1 text-sm text-ink-muted">Untick &ldquo;Hide papers in your library&rdquo; to see them, or ask for more results.</p>
        </div>
      ) : (
        <ResultList corpus={result.corpus} results={sorted} fusion={result.fusion} library={marks} seeds={seeds} queryYear={result.query.year} />
      )}
      <div className="mt-6">
        <FacetLegend />
      </div>
    </div>
  );
}

function ResultsSkeleton() {
  return (
    <ul className="mt-4 divide-y divide-line overflow-hidden rounded-lg border border-line bg-surface" aria-hidden="true">
      {Array.from({ length: 6 }, (_, i) => (
        <li key={i} className="px-5 py-4">
          <div className="h-4 animate-pulse rounded bg-line" style={{ width: `${50 + ((i * 19) % 40)}%` }} />
          <div className="mt-2.5 h-3 w-1/3 animate-pulse rounded bg-line/70" />
          <div className="mt-2.5 flex gap-1.5">
            <div className="h-5 w-10 animate-pulse rounded bg-line/70" />
            <div className="h-5 w-10 animate-pulse rounded bg-line/70" />
          </div>
        </li>
      ))}
    </ul>
  );
}

/** Answers about the paper the reader gave (shown beside the input), not about the server. */
const INPUT_PROBLEMS = new Set<string>([...INPUT_ERROR_CODES, "no_facets", "unsupported_media_type"]);

function QueryErrorPanel({
  error,
  corpus,
  input,
  onRetry,
  onReset,
  onRetriever,
}: {
  error: Error;
  corpus: string;
  input: QueryInput;
  onRetry: () => void;
  onReset: () => void;
  onRetriever: (r: "dense-graph") => void;
}) {
  const code = error instanceof RelatedError ? error.code : "internal";
  const inputProblem = INPUT_PROBLEMS.has(code);
  const title =
    code === "not_ready"
      ? "This corpus is not ready for related-paper queries"
      : code === "not_found"
        ? "Paper not found"
        : inputProblem
          ? input.kind === "file"
            ? "Graft could not read this file"
            : "Graft could not read this text"
          : code === "network"
            ? "The server did not answer"
            : (code as string) === "rate_limited"
              ? "Too many queries in a short time"
              : "The query failed";
  return (
    <div role="alert" className="rounded-lg border border-danger/30 bg-danger-tint px-5 py-4" data-testid="query-error">
      <p className="font-semibold text-danger">{title}</p>
      <p className="mt-1 text-sm text-ink">{error.message}</p>
      {code === "not_ready" && (
        <pre className="mt-3 overflow-x-auto rounded-md bg-ink px-3 py-2 font-mono text-xs text-white">{setupCommands(error.message, corpus)}</pre>
      )}
      <div className="mt-3 flex flex-wrap gap-2">
        {inputProblem || code === "not_found" ? (
          <button type="button" className={buttonClass} onClick={onReset}>
            {input.kind === "file" ? "Choose another file" : "Edit the query"}
          </button>
        ) : (
          <button type="button" className={buttonClass} onClick={onRetry}>
            Try again
          </button>
        )}
        {code === "internal" && (
          <button type="button" className={buttonClass} onClick={() => onRetriever("dense-graph")}>
            Use the dense-graph retriever
          </button>
        )}
      </div>
    </div>
  );
}

/** The band above the results: the way back to a new query, then what was asked. */
function QueryBar({ onNewQuery, children }: { onNewQuery: () => void; children: ReactNode }) {
  return (
    <div className="border-b border-line bg-surface">
      <div className="mx-auto max-w-6xl px-4 pb-5 pt-5 sm:px-6">
        <button type="button" onClick={onNewQuery} className={`${quietButtonClass} -ml-2`}>
          <Icon name="chevronLeft" className="size-4" />
          New query
        </button>
        {children}
      </div>
    </div>
  );
}
