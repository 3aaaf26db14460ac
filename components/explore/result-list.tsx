"use client";

import Link from "next/link";
import { useState } from "react";
import type { LibraryMatch, AppliedFusion, CreditedFacet, RelatedPaper } from "@/lib/query";
import { SaveButton } from "../collection";
import { DirectionChip, type QueryYear } from "../direction";
import { Explained, foundThrough } from "../explain";
import { FACET_STYLES, FacetLetter, FacetRankChip, facetVars } from "../facets";
import { formatAuthors, paperHref, shortVenue } from "../format";
import { Icon } from "../ui";
import { LibraryBadge, type LibraryMarks } from "./library-panel";
import { toRecord } from "./records";
import { SeedButton } from "./seed-tray";

/** "Add as seed" on each result: which papers are seeds already, and how to add one. */
export interface SeedActions {
  seeded: (id: string) => boolean;
  add: (id: string, title: string) => void;
}

export interface RankedPaper extends RelatedPaper {
  /** Position in the fused ranking (1-based), kept when the list is re-sorted by year. */
  fusedRank: number;
}

/** The fused ranking: each result with its facet chips, a save toggle and an expandable "why related". */
export function ResultList({
  corpus,
  results,
  fusion,
  large = false,
  openFirst = false,
  library,
  seeds,
  queryYear,
}: {
  corpus: string;
  results: RankedPaper[];
  /** The year each result's earlier / later work chip is measured from (RelatedResult.query.year). */
  queryYear?: QueryYear | null;
  /** Offers "Add as seed" on each result. */
  seeds?: SeedActions;
  /** Results in the reader's library, marked "in your library". */
  library?: LibraryMarks;
  /** The fusion rule that ranked them, for the technical detail of "why related". */
  fusion?: AppliedFusion;
  large?: boolean;
  openFirst?: boolean;
}) {
  return (
    <ol
      className="divide-y divide-line overflow-hidden rounded-lg border border-line bg-surface shadow-xs"
      data-testid="result-list"
      aria-label="Related papers"
    >
      {results.map((r, i) => (
        <ResultItem
          key={r.externalId}
          corpus={corpus}
          r={r}
          fusion={fusion}
          large={large}
          defaultOpen={openFirst && i === 0}
          mark={library?.get(r.externalId) ?? null}
          seeds={seeds}
          queryYear={queryYear}
        />
      ))}
    </ol>
  );
}

function ResultItem({
  corpus,
  r,
  fusion,
  large,
  defaultOpen,
  mark,
  seeds,
  queryYear,
}: {
  corpus: string;
  r: RankedPaper;
  seeds?: SeedActions;
  queryYear?: QueryYear | null;
  fusion?: AppliedFusion;
  large: boolean;
  defaultOpen: boolean;
  mark: LibraryMatch | null;
}) {
  const [open, setOpen] = useState(defaultOpen);
  const panelId = `why-${r.fusedRank}`;
  return (
    <li className={`group ${large ? "px-6 py-5" : "px-4 py-3.5 sm:px-5"}`} data-testid="result" data-id={r.externalId}>
      <div className="flex items-start gap-3">
        <span className={`shrink-0 pt-0.5 text-right tabular-nums text-ink-faint ${large ? "w-8 text-lg" : "w-6 text-sm"}`} aria-label={`Rank ${r.fusedRank}`}>
          {r.fusedRank}
        </span>
        <div className="min-w-0 flex-1">
          <div className="flex items-start justify-between gap-3">
            <Link
              href={paperHref(corpus, r.externalId)}
              className={`font-medium leading-snug text-ink decoration-ink-faint underline-offset-[3px] hover:underline ${large ? "text-xl" : "text-[0.9375rem]"}`}
              data-testid="result-title"
            >
              {r.title}
            </Link>
            <span className="flex shrink-0 items-center gap-2">
              {mark && <LibraryBadge match={mark} large={large} />}
              <SaveButton record={toRecord(corpus, r)} compact />
            </span>
          </div>
          <p className={`mt-0.5 truncate text-ink-faint ${large ? "text-base" : "text-[0.8125rem]"}`}>
            <span className="tabular-nums text-ink-muted" data-testid="result-year">
              {r.year ?? "n.d."}
            </span>
            <span aria-hidden="true" className="px-1.5 text-line-strong">
              ·
            </span>
            {formatAuthors(r.authors)}
            {r.venue && (
              <>
                <span aria-hidden="true" className="px-1.5 text-line-strong">
                  ·
                </span>
                <span title={r.venue} data-testid="result-venue">
                  {shortVenue(r.venue)}
                </span>
              </>
            )}
          </p>
          <div className="mt-2 flex flex-wrap items-center gap-1.5">
            {r.direction && <DirectionChip direction={r.direction} year={r.year} queryYear={queryYear} size={large ? "lg" : "sm"} />}
            <span className="sr-only">{foundThrough(r.facets, r.wholePaperRank)}</span>
            {r.facets.map((f) => (
              <FacetRankChip key={f.facet} facet={f.facet} rank={f.rank} weight={f.weight} size={large ? "lg" : "sm"} />
            ))}
            <button
              type="button"
              aria-expanded={open}
              aria-controls={panelId}
              onClick={() => setOpen((o) => !o)}
              className={`ml-1 inline-flex items-center gap-1 rounded-md px-1.5 py-0.5 font-medium text-ink-muted hover:bg-canvas hover:text-ink ${large ? "text-base" : "text-xs"}`}
            >
              <Icon name="chevronRight" className={`size-3.5 transition-transform ${open ? "rotate-90" : ""}`} />
              Why related
            </button>
            {seeds && <SeedButton seeded={seeds.seeded(r.externalId)} onSeed={() => seeds.add(r.externalId, r.title)} />}
          </div>
          {open && <WhyRelated id={panelId} facets={r.facets} wholePaperRank={r.wholePaperRank} fusion={fusion} large={large} />}
        </div>
      </div>
    </li>
  );
}

/** What a credited facet's weight is under each fusion rule (the technical detail). */
const WEIGHT_MEANING: Record<AppliedFusion, string> = {
  "graph-rrf": "w_f(q, d) = α·s + β·c, the typed-graph edge weight",
  rrf: "1 (plain RRF weighs every facet the same)",
  "corroboration-rrf": "corr_f(d), the corroboration by the other candidates",
  "lm-score": "P_f(d), the identifier's probability",
};

/**
 * In words, which facets found the paper; then for each credited facet the query's item next to
 * this paper's item; the numbers behind the credit (ranks, weights, cosines, DocIDs) one click away.
 */
export function WhyRelated({
  id,
  facets,
  wholePaperRank,
  fusion,
  large = false,
}: {
  id?: string;
  facets: CreditedFacet[];
  wholePaperRank?: number;
  fusion?: AppliedFusion;
  large?: boolean;
}) {
  return (
    <div id={id} className="mt-3 space-y-2.5" data-testid="why-related">
      <p className={`text-ink-muted ${large ? "text-base" : "text-sm"}`} data-testid="why-summary">
        {foundThrough(facets, wholePaperRank)} {facets.some((f) => f.evidence) ? "The closest sentences of the two papers are side by side." : ""}
      </p>
      {facets.map((f) => {
        const s = FACET_STYLES[f.facet];
        return (
          <section
            key={f.facet}
            style={facetVars(f.facet)}
            className="min-w-0 wrap-anywhere rounded-md border border-line border-l-4 border-l-(--facet) bg-canvas/50"
            aria-label={`Why related through ${s.label.toLowerCase()}`}
          >
            <h4
              className={`flex flex-wrap items-center gap-x-2 gap-y-0.5 border-b border-line/70 px-3 py-1.5 font-semibold text-(--facet-ink) ${large ? "text-base" : "text-xs"}`}
            >
              <FacetLetter facet={f.facet} />
              {s.label}
              <span className="font-normal text-ink-faint">
                rank {f.rank}
                {f.evidence ? ` · similarity ${f.evidence.similarity.toFixed(2)}` : ""}
              </span>
            </h4>
            {f.evidence ? (
              <div className={`grid gap-px bg-line/70 sm:grid-cols-2 ${large ? "text-lg leading-relaxed" : "text-sm leading-relaxed"}`}>
                <p className="bg-surface px-3 py-2">
                  <span className={`block font-medium uppercase tracking-[0.06em] text-ink-faint ${large ? "text-xs" : "text-[0.6875rem]"}`}>Query</span>
                  <span data-testid="evidence-query">{f.evidence.queryItem}</span>
                </p>
                <p className="bg-surface px-3 py-2">
                  <span className={`block font-medium uppercase tracking-[0.06em] text-ink-faint ${large ? "text-xs" : "text-[0.6875rem]"}`}>This paper</span>
                  <span data-testid="evidence-paper">{f.evidence.paperItem}</span>
                </p>
              </div>
            ) : (
              <p className="bg-surface px-3 py-2 text-sm text-ink-faint">
                {f.queryItem ? (
                  <>
                    Retrieved for the query item “{f.queryItem}”; this paper has no {s.label.toLowerCase()} item vectors to compare.
                  </>
                ) : (
                  "No item vectors in this build to compare."
                )}
              </p>
            )}
          </section>
        );
      })}
      <Explained summary="The numbers behind this" size={large ? "sm" : "xs"}>
        <ul className="space-y-0.5" data-testid="why-numbers">
          {facets.map((f) => (
            <li key={f.facet}>
              {FACET_STYLES[f.facet].label}: rank_f {f.rank} · weight {f.weight.toFixed(3)}
              {f.evidence ? ` · cosine ${f.evidence.similarity.toFixed(3)}` : ""}
              {f.docId ? ` · via DocID “${f.docId}”` : ""}
            </li>
          ))}
        </ul>
        {fusion && (
          <p>
            The weight is {WEIGHT_MEANING[fusion]}; this paper&apos;s score adds {fusion === "lm-score" ? "the weights" : "weight / (60 + rank_f)"} over these
            facets.
          </p>
        )}
      </Explained>
    </div>
  );
}
