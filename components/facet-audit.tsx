"use client";

import { type CSSProperties, useState } from "react";
import { FACET_STYLES, FACETS, facetVars, type Facet } from "@/components/facets";
import { DEFAULT_CORPUS } from "@/lib/corpus/browse";
import { FLAG_LABELS, type ItemFlag, STRUCTURAL_FLAGS } from "@/lib/facets/audit/checks";
import { type Mark, segmentText } from "@/lib/facets/audit/highlight";
import type { AuditedItem, PaperAuditView } from "@/lib/facets";

interface MarkData {
  facet: Facet;
  itemId: number;
  /** 0 = the item's best passage. */
  rank: number;
  score: number;
}

/** Structural problems read as errors; the rest (redundancy, grounding, specificity) as warnings. */
function flagTone(flag: ItemFlag): "error" | "warn" {
  return STRUCTURAL_FLAGS.includes(flag) || flag === "meta" ? "error" : "warn";
}

const fmt = (x: number | null) => (x === null ? "—" : x.toFixed(2));

/**
 * A paper's facet audit (Appendix "Facet Extraction and Validation"): each item with its
 * grounding score and audit flags, beside the abstract with the grounding evidence highlighted.
 * With no item selected, every item's best passage is marked in its facet's colour; selecting an
 * item shows its three best passages, ranked, with their cosine scores.
 */
export function FacetAudit({ audit, corpus = DEFAULT_CORPUS }: { audit: PaperAuditView; corpus?: string }) {
  // Until `graft audit` has run for this paper there is nothing to show but how to get it: one
  // line instead of a block of items all marked "not audited".
  if (audit.audited === 0) return <FacetAuditPending corpus={corpus} />;
  return <AuditedFacets audit={audit} />;
}

function FacetAuditPending({ corpus }: { corpus: string }) {
  return (
    <p className="text-sm text-ink-muted" data-testid="facet-audit-pending">
      <span className="font-medium text-ink">Facet audit:</span> not run for this paper yet. The audit checks that each facet item is grounded in the title or
      abstract; an operator runs it with{" "}
      <code className="rounded bg-canvas px-1 py-0.5 font-mono text-xs">npm run graft -- audit{corpus === DEFAULT_CORPUS ? "" : ` --corpus ${corpus}`}</code>.
    </p>
  );
}

function AuditedFacets({ audit }: { audit: PaperAuditView }) {
  const [selected, setSelected] = useState<number | null>(null);
  const items = FACETS.flatMap((f) => audit.facets[f].map((item) => ({ facet: f, item })));
  const current = items.find((x) => x.item.id === selected) ?? null;

  const marksFor = (source: "title" | "abstract"): Mark<MarkData>[] => {
    const chosen = current ? [current] : items;
    return chosen.flatMap(({ facet, item }) =>
      item.evidence
        .map((e, rank) => ({ e, rank }))
        .filter(({ e, rank }) => e.source === source && (current !== null || rank === 0))
        .map(({ e, rank }) => ({ start: e.start, end: e.end, data: { facet, itemId: item.id, rank, score: e.score } })),
    );
  };

  const groundings = items.map((x) => x.item.grounding).filter((g): g is number => g !== null);
  const mean = groundings.length ? groundings.reduce((s, g) => s + g, 0) / groundings.length : null;

  return (
    <section aria-labelledby="facet-audit-heading" data-testid="facet-audit">
      <h2 id="facet-audit-heading" className="text-lg font-semibold tracking-tight">
        Facet audit
      </h2>
      <p className="mt-0.5 text-sm text-ink-muted" data-testid="facet-audit-summary">
        {`${audit.audited} of ${audit.total} items audited${mean === null ? "" : `, mean grounding ${mean.toFixed(2)}`}. ` +
          "Grounding is how closely an item matches its best sentence of the title or abstract (cosine similarity, 0 to 1); select an item to see its evidence."}
      </p>

      <div className="mt-4 grid items-start gap-6 lg:grid-cols-2">
        <div className="rounded-lg border border-line bg-surface p-4 shadow-xs">
          <h3 className="text-xs font-semibold uppercase tracking-[0.08em] text-ink-faint">
            {current ? `Evidence for ${FACET_STYLES[current.facet].label.toLowerCase()} item ${current.item.position + 1}` : "Best evidence of each item"}
          </h3>
          <p className="mt-2 text-[0.9375rem] font-medium leading-7" data-testid="facet-audit-title">
            <Highlighted text={audit.title} marks={marksFor("title")} selected={current !== null} />
          </p>
          <p className="mt-1 text-[0.9375rem] leading-7 text-ink" data-testid="facet-audit-abstract">
            {audit.abstract ? <Highlighted text={audit.abstract} marks={marksFor("abstract")} selected={current !== null} /> : "No abstract available."}
          </p>
          {current && current.item.evidence.length > 0 && (
            <ol className="mt-3 space-y-1 border-t border-line pt-3 text-sm" aria-label="Evidence passages">
              {current.item.evidence.map((e, i) => (
                <li key={`${e.source}-${e.start}`} className="flex gap-2">
                  <span className="w-10 shrink-0 font-mono tabular-nums text-ink-muted">{e.score.toFixed(2)}</span>
                  <span className="min-w-0 text-ink">
                    <span className="sr-only">
                      Rank {i + 1}, from the {e.source === "title" ? "title" : e.source === "fullText" ? "full text" : "abstract"}:{" "}
                    </span>
                    {e.text}
                  </span>
                </li>
              ))}
            </ol>
          )}
        </div>

        <div className="space-y-4">
          {FACETS.map((f) => (
            <FacetAuditList
              key={f}
              facet={f}
              items={audit.facets[f]}
              facetFlags={audit.facetFlags[f]}
              selected={selected}
              onSelect={(id) => setSelected((s) => (s === id ? null : id))}
            />
          ))}
        </div>
      </div>
    </section>
  );
}

function Highlighted({ text, marks, selected }: { text: string; marks: Mark<MarkData>[]; selected: boolean }) {
  return (
    <>
      {segmentText(text, marks).map((seg) => {
        if (seg.marks.length === 0) return <span key={seg.start}>{seg.text}</span>;
        // The best-ranked mark decides the look; every covering facet is named in the tooltip.
        const top = [...seg.marks].sort((a, b) => a.data.rank - b.data.rank)[0].data;
        const s = FACET_STYLES[top.facet];
        const facets = [...new Set(seg.marks.map((m) => FACET_STYLES[m.data.facet].label))].join(", ");
        const style: CSSProperties = {
          ...facetVars(top.facet),
          backgroundColor: selected && top.rank > 0 ? "transparent" : s.tint,
          boxShadow: `inset 0 -2px 0 ${s.color}`,
        };
        return (
          <mark
            key={seg.start}
            style={style}
            className="rounded-[2px] text-ink"
            data-facet={top.facet}
            data-rank={top.rank + 1}
            title={selected ? `evidence rank ${top.rank + 1}, cosine ${top.score.toFixed(2)}` : `best evidence of: ${facets}`}
          >
            {seg.text}
          </mark>
        );
      })}
    </>
  );
}

function FacetAuditList({
  facet,
  items,
  facetFlags,
  selected,
  onSelect,
}: {
  facet: Facet;
  items: AuditedItem[];
  facetFlags: PaperAuditView["facetFlags"][Facet];
  selected: number | null;
  onSelect: (id: number) => void;
}) {
  const s = FACET_STYLES[facet];
  return (
    <div
      style={facetVars(facet)}
      className="min-w-0 wrap-anywhere rounded-r-lg border border-l-4 border-line border-l-(--facet) bg-surface px-4 py-3 shadow-xs"
      data-facet={facet}
    >
      <h3 className="flex flex-wrap items-center gap-2 text-sm font-semibold text-(--facet-ink)">
        {s.label}
        {facetFlags.map((flag) => (
          <span key={flag} className="rounded bg-danger-tint px-1.5 py-0.5 text-xs font-normal text-danger" data-testid="facet-flag">
            {FLAG_LABELS[flag]}
          </span>
        ))}
      </h3>
      {items.length > 0 && (
        <ul className="mt-2 space-y-1.5">
          {items.map((item) => {
            const active = item.id === selected;
            return (
              <li key={item.id}>
                <button
                  type="button"
                  aria-pressed={active}
                  onClick={() => onSelect(item.id)}
                  data-testid="audit-item"
                  className={`w-full rounded-md px-2 py-1.5 text-left text-sm leading-relaxed transition-colors ${
                    active ? "bg-(--facet-tint) ring-1 ring-(--facet)" : "hover:bg-canvas"
                  }`}
                >
                  <span className="flex items-start gap-2">
                    <span className="min-w-0 flex-1 text-ink">{item.text}</span>
                    <span
                      className="shrink-0 font-mono text-xs tabular-nums text-ink-muted"
                      title="grounding: best cosine with a passage of the paper"
                      data-testid="audit-grounding"
                    >
                      {item.audited ? fmt(item.grounding) : "not audited"}
                    </span>
                  </span>
                  {item.flags.length > 0 && (
                    <span className="mt-1 flex flex-wrap gap-1">
                      {item.flags.map((flag) => (
                        <span
                          key={flag}
                          data-testid="audit-flag"
                          data-flag={flag}
                          className={`rounded px-1.5 py-0.5 text-xs ${flagTone(flag) === "error" ? "bg-danger-tint text-danger" : "bg-canvas text-ink-muted"}`}
                        >
                          {FLAG_LABELS[flag]}
                        </span>
                      ))}
                    </span>
                  )}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
