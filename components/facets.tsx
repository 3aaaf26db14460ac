import type { CSSProperties } from "react";
import { FACETS, type Facet } from "@/lib/corpus/types";
import { ordinal } from "./format";

/**
 * Graft's one facet colour scheme. Hues are Okabe-Ito (distinguishable under the common forms
 * of colour-vision deficiency); every facet also carries a letter and a label, so colour is
 * never the only cue. `ink` is the hue darkened until text on `tint` reaches WCAG AA (>= 5:1);
 * the raw hues are below 4.5:1 on white for three facets, so they are used for fills and rules only.
 */
export const FACET_STYLES: Record<Facet, { label: string; letter: string; color: string; ink: string; tint: string; description: string }> = {
  problems: {
    label: "Problems",
    letter: "P",
    color: "#D55E00",
    ink: "#A64900",
    tint: "#FBEFE6",
    description: "What the paper sets out to solve",
  },
  methods: {
    label: "Methods",
    letter: "M",
    color: "#0072B2",
    ink: "#0067A0",
    tint: "#E6F1F7",
    description: "How it approaches the problem",
  },
  results: {
    label: "Results",
    letter: "R",
    color: "#009E73",
    ink: "#007253",
    tint: "#E6F5F1",
    description: "What it found or measured",
  },
  contributions: {
    label: "Contributions",
    letter: "C",
    color: "#CC79A7",
    ink: "#8B5272",
    tint: "#FAF2F6",
    description: "What it gives the field",
  },
};

export { FACETS, type Facet };

/** The facet's colours as CSS custom properties, read by the `(--facet…)` utilities below. */
export function facetVars(facet: Facet): CSSProperties {
  const s = FACET_STYLES[facet];
  return { "--facet": s.color, "--facet-ink": s.ink, "--facet-tint": s.tint } as CSSProperties;
}

export function FacetLetter({ facet, size = "sm" }: { facet: Facet; size?: "sm" | "md" }) {
  const dims = size === "md" ? "size-6 text-xs" : "size-[1.125rem] text-[0.6875rem]";
  return (
    <span
      aria-hidden="true"
      style={facetVars(facet)}
      className={`${dims} inline-flex shrink-0 items-center justify-center rounded-[0.3rem] bg-(--facet) font-semibold leading-none text-white`}
    >
      {FACET_STYLES[facet].letter}
    </span>
  );
}

/**
 * A facet label, optionally with a count ("M 2"). Compact chips show the letter only and carry
 * the full wording for screen readers and as a tooltip.
 */
export function FacetChip({ facet, count, compact = false }: { facet: Facet; count?: number; compact?: boolean }) {
  const s = FACET_STYLES[facet];
  const spoken = count === undefined ? s.label : `${count} ${count === 1 ? s.label.toLowerCase().replace(/s$/, "") : s.label.toLowerCase()}`;
  const empty = count === 0;
  return (
    <span
      style={facetVars(facet)}
      title={spoken}
      data-facet={facet}
      className={`inline-flex items-center gap-1.5 rounded-md border py-0.5 pl-0.5 pr-2 text-xs font-medium leading-5 ${
        empty ? "border-line bg-surface text-ink-faint" : "border-(--facet)/30 bg-(--facet-tint) text-(--facet-ink)"
      }`}
    >
      <FacetLetter facet={facet} />
      {compact ? <span className="sr-only">{spoken}</span> : <span>{s.label}</span>}
      {count !== undefined && (
        <span className="tabular-nums" aria-hidden={compact ? "true" : undefined}>
          {count}
        </span>
      )}
    </span>
  );
}

/** What one chip ("P #19") means, in words: its tooltip and what screen readers say. */
export function chipMeaning(facet: Facet, rank: number): string {
  const label = FACET_STYLES[facet].label.toLowerCase();
  return `Found through its ${label}: the ${ordinal(rank)} paper the ${label} facet found`;
}

/**
 * A credited facet on a result: letter and rank in that facet's list ("M #2"), its meaning in
 * words spoken and in the tooltip (the fusion weight is in "Why related"). Colour is never the
 * only cue: the letter and rank are text.
 */
export function FacetRankChip({ facet, rank, size = "sm" }: { facet: Facet; rank: number; weight?: number; size?: "sm" | "lg" }) {
  const detail = chipMeaning(facet, rank);
  return (
    <span
      style={facetVars(facet)}
      title={detail}
      data-facet={facet}
      data-testid="facet-chip"
      className={`inline-flex items-center gap-1 rounded-md border border-(--facet)/40 bg-(--facet-tint) font-medium text-(--facet-ink) ${
        size === "lg" ? "py-1 pl-1 pr-2.5 text-base" : "py-0.5 pl-0.5 pr-1.5 text-xs leading-5"
      }`}
    >
      <FacetLetter facet={facet} size={size === "lg" ? "md" : "sm"} />
      <span className="sr-only">{detail}</span>
      <span aria-hidden="true" className="tabular-nums">
        #{rank}
      </span>
    </span>
  );
}

/** The four facet counts of a paper, in facet order. */
export function FacetCounts({ counts }: { counts: Record<Facet, number> }) {
  return (
    <span role="group" className="flex gap-1.5" aria-label="Facet items">
      {FACETS.map((f) => (
        <FacetChip key={f} facet={f} count={counts[f]} compact />
      ))}
    </span>
  );
}

/** A key to the scheme, for pages that show facet colours. */
export function FacetLegend({ className = "" }: { className?: string }) {
  return (
    <ul className={`flex flex-wrap items-center gap-x-4 gap-y-2 text-xs text-ink-muted ${className}`} aria-label="Facet legend">
      {FACETS.map((f) => (
        <li key={f} className="inline-flex items-center gap-1.5" title={FACET_STYLES[f].description}>
          <FacetLetter facet={f} />
          <span>{FACET_STYLES[f].label}</span>
        </li>
      ))}
    </ul>
  );
}

interface FacetItem {
  id: number;
  text: string;
}

/** A paper's facet items grouped by facet: a coloured rule, the letter and label, then the items. */
export function FacetList({ facets }: { facets: Record<Facet, FacetItem[]> }) {
  return (
    <div className="grid gap-4 md:grid-cols-2">
      {FACETS.map((f) => {
        const s = FACET_STYLES[f];
        const items = facets[f] ?? [];
        const headingId = `facet-${f}`;
        return (
          <section
            key={f}
            aria-labelledby={headingId}
            data-facet={f}
            style={facetVars(f)}
            className="min-w-0 wrap-anywhere rounded-r-lg border border-l-4 border-line border-l-(--facet) bg-surface px-4 py-3.5 shadow-xs"
          >
            <h3 id={headingId} className="flex items-center gap-2 text-sm font-semibold text-(--facet-ink)">
              <FacetLetter facet={f} size="md" />
              {s.label}
              <span className="ml-auto text-xs font-normal tabular-nums text-ink-faint">
                {items.length} {items.length === 1 ? "item" : "items"}
              </span>
            </h3>
            {items.length > 0 ? (
              <ul className="mt-2.5 space-y-2">
                {items.map((item) => (
                  <li key={item.id} className="relative pl-4 text-[0.9375rem] leading-relaxed text-ink">
                    <span aria-hidden="true" className="absolute left-0 top-[0.6em] size-1.5 rounded-full bg-(--facet)" />
                    {item.text}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="mt-2.5 text-sm text-ink-faint">No {s.label.toLowerCase()} extracted for this paper.</p>
            )}
          </section>
        );
      })}
    </div>
  );
}
