"use client";

import { useId } from "react";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { CorpusOverview } from "@/lib/corpus";
import { RETRIEVER_INFO, RETRIEVER_NAMES, type DirectionFilter, type FusionName } from "@/lib/query/types";
import { DIRECTION_FILTER_LABELS } from "../direction";
import { FACET_STYLES, FacetLetter, facetVars } from "../facets";
import { FUSION_SHORT } from "../explain";
import { VenueOptions } from "../venues";
import { fieldClass, labelClass, overlayInputClass, quietButtonClass } from "../ui";
import { K_CHOICES, type ExploreParams } from "./explore-state";

export const FUSION_LABELS: Record<FusionName, string> = {
  auto: "Auto",
  "graph-rrf": "Graph-RRF",
  "corroboration-rrf": "corroboration RRF",
  rrf: "RRF",
  "lm-score": "LM score",
};

/**
 * The explorer's controls: retriever (for comparison), fusion, facets, year range, earlier or
 * later work, venue and k. Every change goes to the URL and re-runs the query; the results stay
 * on screen meanwhile.
 */
// eslint-disable-next-line max-lines-per-function -- mostly JSX markup: one form of filter fields (about 190 of its lines)
export function FiltersPanel({
  params,
  overview,
  graftUnavailable,
  onChange,
  directions = true,
}: {
  params: ExploreParams;
  overview: CorpusOverview | undefined;
  graftUnavailable: string | null;
  onChange: (patch: Partial<ExploreParams>) => void;
  /** Offer earlier / later / both (not for several seeds: each has its own year). */
  directions?: boolean;
}) {
  const ids = { venue: useId(), k: useId() };
  const years: number[] = [];
  if (overview?.years.min != null && overview.years.max != null) for (let y = overview.years.max; y >= overview.years.min; y--) years.push(y);
  const venues = overview?.venues ?? [];
  const effective = graftUnavailable && params.retriever === "graft" ? "dense-graph" : params.retriever;
  const directed = directions && params.direction !== "both";
  const filtered =
    params.yearFrom !== undefined || params.yearTo !== undefined || params.venue !== undefined || directed || params.facets.length < FACETS.length;

  const toggleFacet = (f: Facet) => {
    const next = params.facets.includes(f) ? params.facets.filter((x) => x !== f) : FACETS.filter((x) => x === f || params.facets.includes(x));
    if (next.length > 0) onChange({ facets: next });
  };

  return (
    <form aria-label="Retrieval options and filters" className="space-y-5" onSubmit={(e) => e.preventDefault()}>
      <fieldset>
        <legend className={labelClass}>Retriever</legend>
        <div className="grid gap-1">
          {RETRIEVER_NAMES.map((r) => {
            const down = r === "graft" && graftUnavailable;
            const active = effective === r;
            return (
              <label
                key={r}
                title={down ? graftUnavailable : RETRIEVER_INFO[r].hint}
                className={`flex cursor-pointer items-center justify-between gap-2 rounded-md border px-2.5 py-1.5 text-sm transition-colors has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-focus ${
                  active ? "border-ink bg-surface font-semibold shadow-xs" : "border-line-strong bg-surface text-ink-muted hover:text-ink"
                } ${down ? "opacity-60" : ""}`}
              >
                <span className="flex items-center gap-2">
                  <input type="radio" name="retriever" value={r} checked={active} onChange={() => onChange({ retriever: r })} className="accent-ink" />
                  {RETRIEVER_INFO[r].label}
                </span>
                {down && <span className="text-[0.6875rem] font-medium text-ink-faint">not trained</span>}
              </label>
            );
          })}
        </div>
        <p className="mt-1.5 text-xs leading-snug text-ink-faint" data-testid="retriever-hint">
          {RETRIEVER_INFO[effective].hint}
        </p>
      </fieldset>

      <fieldset>
        <legend className={labelClass}>Fusion</legend>
        <SegmentedChoice<FusionName>
          name="fusion"
          options={["auto", "graph-rrf", "rrf"]}
          labels={FUSION_LABELS}
          value={params.fusion}
          onChange={(fusion) => onChange({ fusion })}
        />
        <p className="mt-1.5 text-xs leading-snug text-ink-faint" data-testid="fusion-hint">
          {FUSION_SHORT[params.fusion]}
        </p>
      </fieldset>

      <fieldset>
        <legend className={labelClass}>Facets</legend>
        <div className="grid grid-cols-2 gap-1.5">
          {FACETS.map((f) => {
            const on = params.facets.includes(f);
            const last = on && params.facets.length === 1;
            return (
              <label
                key={f}
                style={facetVars(f)}
                title={last ? "At least one facet stays on" : FACET_STYLES[f].description}
                className={`relative flex cursor-pointer items-center gap-1.5 rounded-md border py-1 pl-1 pr-2 text-[0.8125rem] font-medium transition-colors has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-focus ${
                  on ? "border-(--facet)/40 bg-(--facet-tint) text-(--facet-ink)" : "border-line bg-surface text-ink-faint"
                }`}
              >
                <input type="checkbox" className={overlayInputClass} checked={on} disabled={last} onChange={() => toggleFacet(f)} />
                <FacetLetter facet={f} />
                {FACET_STYLES[f].label}
              </label>
            );
          })}
        </div>
      </fieldset>

      <div className="grid grid-cols-2 gap-2">
        <YearSelect
          label="From year"
          years={years.filter((y) => params.yearTo === undefined || y <= params.yearTo)}
          value={params.yearFrom}
          onChange={(yearFrom) => onChange({ yearFrom })}
        />
        <YearSelect
          label="To year"
          years={years.filter((y) => params.yearFrom === undefined || y >= params.yearFrom)}
          value={params.yearTo}
          onChange={(yearTo) => onChange({ yearTo })}
        />
      </div>

      {directions && (
        <fieldset>
          <legend className={labelClass}>Earlier or later work</legend>
          <SegmentedChoice
            name="direction"
            options={["earlier", "later", "both"] satisfies DirectionFilter[]}
            labels={DIRECTION_FILTER_LABELS}
            value={params.direction}
            onChange={(direction) => onChange({ direction })}
          />
          <p className="mt-1.5 text-xs leading-snug text-ink-faint" data-testid="direction-hint">
            Work the query builds on (published before its year) or work building on it (after). For pasted text, the year is inferred from the closest papers.
          </p>
        </fieldset>
      )}

      <div>
        <label htmlFor={ids.venue} className={labelClass}>
          Venue
        </label>
        <select id={ids.venue} className={fieldClass} value={params.venue ?? ""} onChange={(e) => onChange({ venue: e.target.value || undefined })}>
          <option value="">All venues</option>
          <VenueOptions venues={venues} selected={params.venue} />
        </select>
      </div>

      <div>
        <label htmlFor={ids.k} className={labelClass}>
          Results
        </label>
        <select id={ids.k} className={fieldClass} value={params.k} onChange={(e) => onChange({ k: Number(e.target.value) })}>
          {[...new Set([...K_CHOICES, params.k])]
            .sort((a, b) => a - b)
            .map((k) => (
              <option key={k} value={k}>
                Top {k}
              </option>
            ))}
        </select>
      </div>

      {filtered && (
        <button
          type="button"
          className={quietButtonClass}
          onClick={() => onChange({ yearFrom: undefined, yearTo: undefined, venue: undefined, direction: "both", facets: [...FACETS] })}
        >
          Clear filters
        </button>
      )}
    </form>
  );
}

/** One of a few options as a row of buttons (radio inputs under the labels). */
function SegmentedChoice<T extends string>({
  name,
  options,
  labels,
  value,
  onChange,
}: {
  name: string;
  options: readonly T[];
  labels: Record<T, string>;
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <div className="flex gap-1">
      {options.map((o) => (
        <label
          key={o}
          className={`relative flex flex-1 cursor-pointer items-center justify-center gap-1.5 rounded-md border px-2 py-1.5 text-[0.8125rem] has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-focus ${
            value === o ? "border-ink bg-surface font-semibold" : "border-line-strong bg-surface text-ink-muted hover:text-ink"
          }`}
        >
          <input type="radio" name={name} value={o} checked={value === o} onChange={() => onChange(o)} className={overlayInputClass} />
          {labels[o]}
        </label>
      ))}
    </div>
  );
}

/** `list` with `v` in front when it is set and not in the list. */
const withValue = (list: number[], v: number | undefined) => (v !== undefined && !list.includes(v) ? [v, ...list] : list);

/** A year bound: "Any" or one of `years` (the current value kept as an option even when out of range). */
function YearSelect({
  label,
  years,
  value,
  onChange,
}: {
  label: string;
  years: number[];
  value: number | undefined;
  onChange: (year: number | undefined) => void;
}) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <select id={id} className={fieldClass} value={value ?? ""} onChange={(e) => onChange(e.target.value ? Number(e.target.value) : undefined)}>
        <option value="">Any</option>
        {withValue(years, value).map((y) => (
          <option key={y} value={y}>
            {y}
          </option>
        ))}
      </select>
    </div>
  );
}
