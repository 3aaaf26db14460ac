"use client";

import Link from "next/link";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useEffectEvent, useId, useRef, useState } from "react";
import { FACET_STYLES, FacetChip, facetVars } from "@/components/facets";
import { highlightSegments, locateEvidence, type EvidenceSnippet } from "@/lib/annotation/evidence";
import type { Sheet, SheetItem } from "@/lib/annotation";
import type { SessionUser } from "@/lib/auth";
import { ApiError, fetchJson, sendJson } from "@/lib/http/client";
import { eyebrowClass, formButtonClass as buttonClass, formPrimaryButtonClass as primaryButtonClass, ProgressBar } from "../ui";

/**
 * One item at a time, keyboard first: 1-5 rates (and puts the cursor in the rationale), Enter
 * saves and moves on, ←/→ move between items, Esc leaves the rationale box. Complete ratings
 * save themselves shortly after the last change and whenever the annotator moves on.
 */

interface Draft {
  score: number | null;
  rationale: string;
}

type SaveState = { kind: "saving" | "saved" | "pending" | "incomplete" } | { kind: "error"; message: string };

interface SaveResponse {
  rating: { score: number; rationale: string };
  rated: number;
  total: number;
}

const AUTOSAVE_MS = 800;
const MIN_RATIONALE = 3;

const complete = (d: Draft) => d.score !== null && d.rationale.trim().length >= MIN_RATIONALE;

// eslint-disable-next-line max-lines-per-function -- the rating sheet's drafts, autosave timers, navigation and keyboard handlers all read and write the same state; the rest is its markup
export function RatingView({
  sheet,
  startIndex,
  initialItem,
  user,
  scale,
}: {
  sheet: Sheet;
  startIndex: number;
  initialItem?: SheetItem | null;
  user: SessionUser;
  scale: Record<number, { label: string; description: string }>;
}) {
  const studyId = sheet.study.id;
  const closed = sheet.study.status !== "open";
  const queryClient = useQueryClient();
  const [entries, setEntries] = useState(sheet.entries);
  const [drafts, setDrafts] = useState<Record<number, Draft>>({});
  const [states, setStates] = useState<Record<number, SaveState>>({});
  const [index, setIndex] = useState(startIndex);
  const [hint, setHint] = useState<string | null>(null);
  const panel = useRef<HTMLDivElement>(null);
  const rationaleBox = useRef<HTMLTextAreaElement>(null);
  const timers = useRef(new Map<number, number>());
  const ids = { rationale: useId(), hint: useId(), scale: useId() };

  const total = entries.length;
  const entry = entries[index];
  const id = entry.studyItemId;
  const draft = drafts[id] ?? { score: entry.score, rationale: entry.rationale };
  const rated = entries.filter((e) => e.score !== null).length;
  const dirty = (e: (typeof entries)[number], d: Draft) => d.score !== e.score || d.rationale.trim() !== e.rationale.trim();
  const unsaved = entries.some((e) => drafts[e.studyItemId] && dirty(e, drafts[e.studyItemId]));

  const itemUrl = (itemId: number) => `/api/annotate/studies/${studyId}/items/${itemId}`;
  const item = useQuery({
    queryKey: ["annotate-item", studyId, id],
    queryFn: ({ signal }) => fetchJson<SheetItem>(itemUrl(id), { signal }),
    initialData: initialItem && initialItem.studyItemId === id ? initialItem : undefined,
    staleTime: Infinity,
  });

  // Neighbours load in the background, so moving on shows the next paper at once.
  useEffect(() => {
    for (const j of [index + 1, index - 1]) {
      const e = entries[j];
      if (e)
        void queryClient.prefetchQuery({
          queryKey: ["annotate-item", studyId, e.studyItemId],
          queryFn: () => fetchJson<SheetItem>(itemUrl(e.studyItemId)),
          staleTime: Infinity,
        });
    }
    // itemUrl is derived from studyId, already a dependency.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [index, entries, studyId, queryClient]);

  // Leaving with an edit that is not saved (e.g. a score without a rationale) asks first.
  useEffect(() => {
    if (!unsaved) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [unsaved]);

  async function save(itemId: number, d: Draft) {
    if (closed || !complete(d)) return;
    setStates((s) => ({ ...s, [itemId]: { kind: "saving" } }));
    try {
      const res = await sendJson<SaveResponse>(itemUrl(itemId), "PUT", { score: d.score, rationale: d.rationale });
      setEntries((es) => es.map((e) => (e.studyItemId === itemId ? { ...e, score: res.rating.score, rationale: res.rating.rationale } : e)));
      // Drop the draft only if nothing was typed while the request was in flight.
      setDrafts((ds) => {
        const cur = ds[itemId];
        if (!cur || cur.score !== d.score || cur.rationale !== d.rationale) return ds;
        const rest = { ...ds };
        delete rest[itemId];
        return rest;
      });
      setStates((s) => ({ ...s, [itemId]: s[itemId]?.kind === "pending" ? s[itemId] : { kind: "saved" } }));
    } catch (err) {
      setStates((s) => ({ ...s, [itemId]: { kind: "error", message: err instanceof ApiError ? err.message : "Not saved: the server could not be reached." } }));
    }
  }

  function cancelTimer(itemId: number) {
    const t = timers.current.get(itemId);
    if (t !== undefined) window.clearTimeout(t);
    timers.current.delete(itemId);
  }

  /** Saves the current item now if it has a complete, unsaved edit. */
  function flush() {
    cancelTimer(id);
    if (complete(draft) && dirty(entry, draft)) void save(id, draft);
  }

  function edit(patch: Partial<Draft>) {
    if (closed) return;
    const next = { ...draft, ...patch };
    setDrafts((ds) => ({ ...ds, [id]: next }));
    setHint(null);
    cancelTimer(id);
    if (complete(next)) {
      setStates((s) => ({ ...s, [id]: { kind: "pending" } }));
      timers.current.set(
        id,
        window.setTimeout(() => {
          timers.current.delete(id);
          void save(id, next);
        }, AUTOSAVE_MS),
      );
    } else setStates((s) => ({ ...s, [id]: { kind: "incomplete" } }));
  }

  function moveTo(to: number) {
    if (to < 0 || to >= total) return;
    setIndex(to);
    setHint(null);
    window.history.replaceState(null, "", `?item=${entries[to].studyItemId}`);
    panel.current?.focus({ preventScroll: true });
    window.scrollTo({ top: 0 });
  }

  function go(to: number) {
    if (to === index) return;
    flush();
    moveTo(to);
  }

  function rate(score: number) {
    edit({ score });
    rationaleBox.current?.focus();
  }

  function saveAndNext() {
    if (!closed) {
      if (draft.score === null) {
        setHint("Choose a score from 1 to 5 first.");
        return;
      }
      if (draft.rationale.trim().length < MIN_RATIONALE) {
        setHint("Write a one-sentence rationale, then press Enter.");
        rationaleBox.current?.focus();
        return;
      }
      flush();
    }
    if (index + 1 < total) moveTo(index + 1);
    else {
      setHint(closed ? null : "That was the last item. You can still go back and edit any rating.");
      panel.current?.focus({ preventScroll: true });
    }
  }

  const onKey = useEffectEvent((e: KeyboardEvent) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
    const target = e.target as HTMLElement | null;
    if (target === rationaleBox.current) {
      if (e.key === "Enter" && !e.shiftKey) {
        e.preventDefault();
        saveAndNext();
      } else if (e.key === "Escape") {
        e.preventDefault();
        panel.current?.focus({ preventScroll: true });
      }
      return;
    }
    if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
    if (/^[1-5]$/.test(e.key)) {
      e.preventDefault();
      if (!closed) rate(Number(e.key));
    } else if (e.key === "ArrowRight") {
      e.preventDefault();
      go(index + 1);
    } else if (e.key === "ArrowLeft") {
      e.preventDefault();
      go(index - 1);
    } else if (e.key === "Enter" && !(target && ["BUTTON", "A", "SUMMARY"].includes(target.tagName))) {
      e.preventDefault();
      saveAndNext();
    }
  });
  useEffect(() => {
    const listener = (e: KeyboardEvent) => onKey(e);
    window.addEventListener("keydown", listener);
    return () => window.removeEventListener("keydown", listener);
  }, []);

  const state = states[id];
  const saveLine = closed
    ? "This study is closed: ratings are read only."
    : state?.kind === "saving"
      ? "Saving…"
      : state?.kind === "pending"
        ? "Unsaved changes (saving shortly)…"
        : state?.kind === "error"
          ? state.message
          : state?.kind === "incomplete"
            ? draft.score === null
              ? "Choose a score to save."
              : "Add a rationale to save."
            : entry.score !== null
              ? "Saved."
              : "Not rated yet.";

  return (
    <div>
      <section className="border-b border-line bg-surface">
        <div className="mx-auto max-w-6xl px-4 py-4 sm:px-6">
          <div className="flex flex-wrap items-center justify-between gap-3">
            <div className="min-w-0">
              <nav aria-label="Breadcrumb" className="flex min-w-0 items-center gap-1.5 text-sm text-ink-faint">
                <Link href="/annotate" className="hover:text-ink hover:underline">
                  My sheets
                </Link>
                <span aria-hidden="true">/</span>
                <span className="truncate font-medium text-ink" aria-current="page">
                  {sheet.study.name}
                </span>
              </nav>
              <p className="mt-1 text-sm text-ink-muted" data-testid="position">
                Item <span className="font-medium text-ink tabular-nums">{index + 1}</span> of {total} · signed in as {user.name || user.email}
              </p>
            </div>
            <div className="w-56">
              <div className="flex items-baseline justify-between text-sm">
                <span className="text-ink-muted">Rated</span>
                <span className="font-semibold tabular-nums" data-testid="progress" aria-live="polite">
                  {rated} / {total}
                </span>
              </div>
              <div className="mt-1.5">
                <ProgressBar value={rated} total={total} label="Items rated" />
              </div>
            </div>
          </div>
          <nav aria-label="Items on this sheet" className="mt-3">
            <ol className="flex flex-wrap gap-1">
              {entries.map((e, j) => {
                const current = j === index;
                const s = e.score;
                return (
                  <li key={e.studyItemId}>
                    <button
                      type="button"
                      tabIndex={-1}
                      onClick={() => go(j)}
                      aria-current={current ? "step" : undefined}
                      aria-label={`Item ${j + 1}${s !== null ? `, rated ${s}` : ", not rated"}`}
                      title={`${j + 1}. ${FACET_STYLES[e.facet].label} · ${e.paperTitle}`}
                      className={`size-6 rounded text-[0.6875rem] tabular-nums transition-colors ${
                        s !== null ? "bg-ink-muted text-white" : "border border-line-strong bg-surface text-ink-muted"
                      } ${current ? "ring-2 ring-focus ring-offset-1" : ""}`}
                    >
                      {s ?? j + 1}
                    </button>
                  </li>
                );
              })}
            </ol>
          </nav>
        </div>
      </section>

      <div
        ref={panel}
        tabIndex={-1}
        aria-label="Rating panel"
        className="mx-auto grid max-w-6xl gap-6 px-4 pt-6 outline-none sm:px-6 lg:grid-cols-[minmax(0,1fr)_24rem]"
      >
        <PaperPane item={item.data} error={item.error} />

        <aside aria-label="Your rating" className="lg:sticky lg:top-20 lg:self-start">
          <div
            style={facetVars(entry.facet)}
            className="min-w-0 wrap-anywhere rounded-lg border border-l-4 border-line border-l-(--facet) bg-surface px-4 py-4 shadow-xs"
          >
            <div className="flex items-center justify-between gap-2">
              <FacetChip facet={entry.facet} />
              <span className="text-xs tabular-nums text-ink-faint">
                {index + 1} / {total}
              </span>
            </div>
            <p className="mt-3 font-serif text-[1.0625rem] leading-relaxed text-ink" data-testid="item-text">
              {item.data?.text ?? <span className="inline-block h-5 w-full animate-pulse rounded bg-line" />}
            </p>
          </div>

          <fieldset className="mt-4" aria-describedby={ids.scale} disabled={closed}>
            <legend className="text-sm font-semibold">Is the item supported by the paper?</legend>
            <p id={ids.scale} className="sr-only">
              Press a number key from 1 to 5 to rate.
            </p>
            <div className="mt-2 space-y-1.5">
              {[5, 4, 3, 2, 1].map((n) => {
                const on = draft.score === n;
                return (
                  <button
                    key={n}
                    type="button"
                    aria-pressed={on}
                    onClick={() => rate(n)}
                    className={`flex w-full items-start gap-3 rounded-md border px-3 py-2 text-left text-sm transition-colors ${
                      on ? "border-accent bg-accent text-white" : "border-line bg-surface hover:bg-canvas"
                    }`}
                  >
                    <span
                      className={`mt-px inline-flex size-5 shrink-0 items-center justify-center rounded font-semibold tabular-nums ${on ? "bg-white text-ink" : "bg-canvas text-ink"}`}
                    >
                      {n}
                    </span>
                    <span>
                      <span className="font-medium">{scale[n].label}</span>
                      <span className={`block text-xs ${on ? "text-white/80" : "text-ink-muted"}`}>{scale[n].description}</span>
                    </span>
                  </button>
                );
              })}
            </div>
          </fieldset>

          <div className="mt-4">
            <label htmlFor={ids.rationale} className="block text-sm font-semibold">
              Rationale <span className="font-normal text-ink-muted">(one sentence, required)</span>
            </label>
            <textarea
              id={ids.rationale}
              ref={rationaleBox}
              rows={3}
              maxLength={1000}
              readOnly={closed}
              value={draft.rationale}
              onChange={(e) => edit({ rationale: e.target.value })}
              aria-describedby={hint ? ids.hint : undefined}
              className="mt-1 w-full rounded-md border border-line-strong bg-surface px-3 py-2 text-sm leading-relaxed text-ink shadow-xs hover:border-ink-faint"
              placeholder="Why this score? e.g. The abstract states the 2.1 BLEU gain on WMT14."
            />
          </div>

          {hint && (
            <p id={ids.hint} role="alert" className="mt-2 rounded-md border border-danger/30 bg-danger-tint px-3 py-2 text-sm text-danger">
              {hint}
            </p>
          )}
          <p className={`mt-2 text-sm ${state?.kind === "error" ? "text-danger" : "text-ink-muted"}`} role="status" data-testid="save-status">
            {saveLine}
          </p>
          {rated === total && !closed && (
            <p className="mt-2 rounded-md border border-line bg-canvas px-3 py-2 text-sm text-ink" data-testid="sheet-complete">
              All {total} items rated. Thank you! You can still revise any rating.
            </p>
          )}

          <div className="mt-4 flex gap-2">
            <button type="button" className={buttonClass} onClick={() => go(index - 1)} disabled={index === 0}>
              ← Previous
            </button>
            <button type="button" className={`${primaryButtonClass} flex-1`} onClick={saveAndNext}>
              {closed ? "Next →" : "Save and next ↵"}
            </button>
          </div>
          <p className="mt-3 text-xs leading-relaxed text-ink-faint">
            Keys: <Kbd>1</Kbd>–<Kbd>5</Kbd> rate · type the rationale · <Kbd>Enter</Kbd> save and next · <Kbd>←</Kbd> <Kbd>→</Kbd> move · <Kbd>Esc</Kbd> leave
            the text box · <Kbd>Shift</Kbd>+<Kbd>Enter</Kbd> new line
          </p>
        </aside>
      </div>
    </div>
  );
}

function Kbd({ children }: { children: string }) {
  return <kbd className="rounded border border-line-strong bg-surface px-1 font-mono text-[0.6875rem] text-ink-muted">{children}</kbd>;
}

function PaperPane({ item, error }: { item: SheetItem | undefined; error: Error | null }) {
  if (error)
    return (
      <p role="alert" className="rounded-md border border-danger/30 bg-danger-tint px-3 py-2 text-sm text-danger">
        Could not load the item: {error.message}
      </p>
    );
  if (!item)
    return (
      <div aria-busy="true" aria-label="Loading the paper" className="space-y-3">
        <div className="h-7 w-3/4 animate-pulse rounded bg-line" />
        <div className="h-4 w-1/2 animate-pulse rounded bg-line/70" />
        <div className="h-40 w-full animate-pulse rounded bg-line/50" />
      </div>
    );
  const { paper } = item;
  return (
    <article aria-labelledby="paper-title" className="min-w-0">
      <p className={eyebrowClass}>Paper</p>
      <h1 id="paper-title" className="mt-1 text-xl font-semibold leading-snug tracking-tight text-balance" data-testid="paper-title">
        {paper.title}
      </h1>
      <p className="mt-1.5 text-sm text-ink-muted">
        {paper.authors.length ? paper.authors.join(", ") : "Unknown authors"}
        {paper.year ? ` · ${paper.year}` : ""}
        {paper.venue ? ` · ${paper.venue}` : ""}
      </p>
      <section aria-labelledby="abstract-h" className="mt-5">
        <h2 id="abstract-h" className={eyebrowClass}>
          Abstract
        </h2>
        <Abstract text={paper.abstract} evidence={item.evidence} />
      </section>
      {item.evidence.length > 0 && (
        <section aria-labelledby="evidence-h" className="mt-5">
          <h2 id="evidence-h" className={eyebrowClass}>
            Grounding evidence (audit)
          </h2>
          <ol className="mt-2 space-y-1.5 text-sm">
            {item.evidence.map((s) => (
              <li key={s.rank} className="flex gap-2">
                <span className="mt-px inline-flex size-5 shrink-0 items-center justify-center rounded bg-[#fff1b8] text-xs font-semibold text-ink">
                  {s.rank}
                </span>
                <span className="text-ink-muted">
                  {s.text}
                  {s.score !== null && <span className="ml-1 tabular-nums text-ink-faint">(cosine {s.score.toFixed(2)})</span>}
                </span>
              </li>
            ))}
          </ol>
        </section>
      )}
      {paper.fullText && (
        <details className="mt-5 rounded-md border border-line bg-surface px-4 py-3">
          <summary className="cursor-pointer text-sm font-medium">Full text</summary>
          <div className="mt-3 max-h-[32rem] overflow-y-auto whitespace-pre-line text-sm leading-relaxed text-ink">{paper.fullText}</div>
        </details>
      )}
    </article>
  );
}

/** The abstract with the audit's evidence snippets highlighted (numbered by rank). */
function Abstract({ text, evidence }: { text: string; evidence: EvidenceSnippet[] }) {
  if (!text) return <p className="mt-2 text-sm text-ink-faint">No abstract available.</p>;
  const segments = highlightSegments(text, locateEvidence(text, evidence));
  return (
    <p className="mt-2 text-base leading-7 text-ink" data-testid="abstract">
      {segments.map((s, i) =>
        s.ranks.length ? (
          <mark key={i} data-evidence-rank={s.ranks.join(" ")} title={`Evidence ${s.ranks.join(", ")}`} className="rounded-sm bg-[#fff1b8] px-0.5 text-ink">
            {s.text}
          </mark>
        ) : (
          <span key={i}>{s.text}</span>
        ),
      )}
    </p>
  );
}
