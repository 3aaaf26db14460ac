"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef } from "react";
import { FACETS } from "@/lib/corpus/types";
import { disagreement, titleWords } from "@/lib/demo/disagreement";
import { DEMO, type DemoExample } from "@/lib/demo/examples";
import type { RelatedResult } from "@/lib/query";
import { exploreHref } from "../explore/explore-state";
import { PerFacetView } from "../explore/per-facet-view";
import { fetchRelated, fetchRelatedPreferGraft } from "../explore/related-client";
import { ResultList, WhyRelated } from "../explore/result-list";
import { FACET_STYLES, FacetLetter, facetVars } from "../facets";
import { paperHref } from "../format";
import { RelatedGraph } from "../graph/related-graph";
import { buttonClass, Icon, primaryButtonClass } from "../ui";

// Presentation mode for facet attribution: pick a curated example, then step through
//   1 the query's facets → 2 what each facet retrieves → 3 the fused list with provenance → 4 the graph,
// in large type, with the arrow keys. Runs against the local server on the demo corpus (offline).

const STEPS = [
  { title: "The query, as four facets", short: "Facets" },
  { title: "Each facet retrieves on its own", short: "Per facet" },
  { title: "Fused, with provenance", short: "Fused" },
  { title: "The typed graph", short: "Graph" },
] as const;

const K = 10;

export function DemoPlayer() {
  const sp = useSearchParams();
  const pathname = usePathname();
  const exampleId = sp.get("example");
  const example = DEMO.examples.find((e) => e.paperId === exampleId) ?? null;
  const rawStep = Number(sp.get("step"));
  const step = Number.isInteger(rawStep) && rawStep >= 1 && rawStep <= STEPS.length ? rawStep : 1;

  const go = useCallback(
    (next: { example?: string | null; step?: number }) => {
      const qs = new URLSearchParams();
      const ex = next.example === undefined ? exampleId : next.example;
      if (ex) {
        qs.set("example", ex);
        qs.set("step", String(next.step ?? step));
      }
      const s = qs.toString();
      window.history.pushState(null, "", s ? `${pathname}?${s}` : pathname);
    },
    [exampleId, pathname, step],
  );

  if (!example) return <DemoIndex onPick={(id) => go({ example: id, step: 1 })} />;
  return <Presentation example={example} step={step} onStep={(s) => go({ step: s })} onExit={() => go({ example: null })} />;
}

function DemoIndex({ onPick }: { onPick: (id: string) => void }) {
  return (
    <div className="mx-auto max-w-6xl px-4 py-12 sm:px-6">
      <p className="text-sm font-medium uppercase tracking-[0.08em] text-ink-faint">Demo · facet attribution</p>
      <h1 className="mt-2 text-4xl font-semibold leading-tight tracking-tight text-balance">Different facets surface different papers</h1>
      <p className="mt-4 max-w-3xl text-xl leading-relaxed text-ink-muted">
        Graft retrieves related work through each facet of a paper and keeps track of which facet found what. Pick an example and step through it with{" "}
        <Kbd>→</Kbd> and <Kbd>←</Kbd>: the query&apos;s facets, each facet&apos;s own list, the fused ranking with its provenance, and the typed graph.
      </p>
      <ul className="mt-10 grid gap-4 md:grid-cols-2" data-testid="demo-examples">
        {DEMO.examples.map((e, i) => (
          <li key={e.paperId}>
            <button
              type="button"
              onClick={() => onPick(e.paperId)}
              className="flex h-full w-full flex-col gap-4 rounded-xl border border-line bg-surface p-6 text-left shadow-xs transition-colors hover:border-line-strong hover:bg-canvas/50"
            >
              <span className="text-sm tabular-nums text-ink-faint">Example {i + 1}</span>
              <span className="text-2xl font-semibold leading-snug">{e.title}</span>
              <span className="mt-auto flex items-center justify-between text-base text-ink-muted">
                <span>{e.year}</span>
                <span className="flex items-center gap-1.5">
                  {e.soleFacets.map((f) => (
                    <FacetLetter key={f} facet={f} size="md" />
                  ))}
                  <span className="ml-1 text-sm">each find their own papers</span>
                </span>
              </span>
            </button>
          </li>
        ))}
      </ul>
      <p className="mt-8 max-w-3xl text-sm leading-relaxed text-ink-faint">
        How these were chosen: {DEMO.picked.how} ({DEMO.picked.eligible} of {DEMO.picked.scanned} papers qualified;{" "}
        <code className="font-mono">{DEMO.picked.command}</code>)
      </p>
    </div>
  );
}

function Kbd({ children }: { children: React.ReactNode }) {
  return <kbd className="rounded border border-line-strong bg-surface px-1.5 py-0.5 font-mono text-[0.85em] shadow-xs">{children}</kbd>;
}

/** The numbered steps, the current one marked. */
function StepNav({ step, onStep }: { step: number; onStep: (s: number) => void }) {
  return (
    <nav aria-label="Demo steps">
      <ol className="flex flex-wrap items-center gap-1.5">
        {STEPS.map((s, i) => (
          <li key={s.short}>
            <button
              type="button"
              onClick={() => onStep(i + 1)}
              aria-current={step === i + 1 ? "step" : undefined}
              className={`inline-flex items-center gap-2 rounded-full px-3 py-1.5 text-sm font-medium transition-colors ${
                step === i + 1 ? "bg-ink text-white" : i + 1 < step ? "bg-canvas text-ink" : "text-ink-faint hover:text-ink"
              }`}
            >
              <span className="tabular-nums">{i + 1}</span>
              {s.short}
            </button>
          </li>
        ))}
      </ol>
    </nav>
  );
}

function Presentation({ example, step, onStep, onExit }: { example: DemoExample; step: number; onStep: (s: number) => void; onExit: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const related = useQuery({
    queryKey: ["demo", example.paperId],
    queryFn: ({ signal }) =>
      fetchRelatedPreferGraft(
        { kind: "paper", corpus: DEMO.corpus, paperId: example.paperId },
        { k: K, fusion: "graph-rrf", facets: [...FACETS] },
        undefined,
        signal,
      ),
    staleTime: Infinity,
    retry: false,
  });

  // Arrow keys and Page Up/Down (presentation clickers send these) move between steps, except
  // while typing or when a control that uses the arrows (radio group, graph list) has focus.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (t && (t.closest("input, textarea, select, [role=tablist]") || t.isContentEditable)) return;
      if (e.metaKey || e.ctrlKey || e.altKey) return;
      if ((e.key === "ArrowRight" || e.key === "PageDown") && step < STEPS.length) onStep(step + 1);
      else if ((e.key === "ArrowLeft" || e.key === "PageUp") && step > 1) onStep(step - 1);
      else if (/^[1-4]$/.test(e.key)) onStep(Number(e.key));
      else if (e.key === "Escape") onExit();
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [step, onStep, onExit]);

  // Each step's heading takes focus so screen readers announce the new slide.
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
  }, [step]);

  const data = related.data;
  return (
    <div className="mx-auto max-w-7xl px-4 pb-12 pt-6 sm:px-6" data-testid="demo-player">
      <div className="flex flex-wrap items-center justify-between gap-4">
        <button type="button" onClick={onExit} className="inline-flex items-center gap-1.5 text-sm font-medium text-ink-muted hover:text-ink">
          <Icon name="chevronLeft" className="size-4" />
          All examples
        </button>
        <StepNav step={step} onStep={onStep} />
        <div className="flex items-center gap-2">
          <button type="button" className={buttonClass} onClick={() => onStep(step - 1)} disabled={step <= 1}>
            <Icon name="chevronLeft" className="size-4" />
            Back
          </button>
          <button type="button" className={primaryButtonClass} onClick={() => onStep(step + 1)} disabled={step >= STEPS.length} data-testid="demo-next">
            Next
            <Icon name="chevronRight" className="size-4" />
          </button>
        </div>
      </div>

      <header className="mt-8">
        <p className="text-sm font-medium uppercase tracking-[0.08em] text-ink-faint">
          Step {step} of {STEPS.length}
        </p>
        <h1 ref={heading} tabIndex={-1} className="mt-1 text-4xl font-semibold tracking-tight outline-none" data-testid="demo-step-title">
          {STEPS[step - 1].title}
        </h1>
        <p className="mt-2 text-xl text-ink-muted">
          Query:{" "}
          <Link href={paperHref(DEMO.corpus, example.paperId)} className="font-medium text-ink hover:underline">
            {example.title}
          </Link>{" "}
          ({example.year})
        </p>
      </header>

      <div className="mt-8 min-h-[32rem]">
        {related.isPending ? (
          <p className="text-lg text-ink-muted" role="status">
            Retrieving related papers…
          </p>
        ) : related.error ? (
          <div role="alert" className="rounded-lg border border-danger/30 bg-danger-tint px-5 py-4 text-lg">
            <p className="font-semibold text-danger">The demo needs the demo corpus with a graph build.</p>
            <p className="mt-1 text-base">{related.error.message}</p>
          </div>
        ) : data ? (
          <>
            {data.fallback && step > 1 && (
              <p className="mb-4 text-sm text-ink-faint" data-testid="demo-fallback">
                Retrieved by the dense-graph teacher: Graft&apos;s generative retriever is not trained for this corpus yet.
              </p>
            )}
            {step === 1 && <QueryFacets result={data.result} />}
            {step === 2 && <PerFacet result={data.result} />}
            {step === 3 && <Fused result={data.result} />}
            {step === 4 && <GraphStep result={data.result} />}
          </>
        ) : null}
      </div>
    </div>
  );
}

function QueryFacets({ result }: { result: RelatedResult }) {
  return (
    <div className="grid gap-4 md:grid-cols-2" data-testid="demo-facets">
      {FACETS.map((f) => (
        <section
          key={f}
          style={facetVars(f)}
          className="rounded-xl border border-line border-l-8 border-l-(--facet) bg-surface p-6 shadow-xs"
          aria-label={FACET_STYLES[f].label}
        >
          <h2 className="flex items-center gap-3 text-2xl font-semibold text-(--facet-ink)">
            <FacetLetter facet={f} size="md" />
            {FACET_STYLES[f].label}
            <span className="text-base font-normal text-ink-faint">{FACET_STYLES[f].description.toLowerCase()}</span>
          </h2>
          <ul className="mt-4 space-y-3">
            {result.query.facets[f].map((item, i) => (
              <li key={i} className="text-xl leading-relaxed">
                {item}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

function PerFacet({ result }: { result: RelatedResult }) {
  const d = disagreement(result);
  return (
    <div>
      <p className="mb-5 max-w-4xl text-xl leading-relaxed text-ink-muted">
        Each facet&apos;s items are matched against the corpus separately. Their top-{K} lists overlap little: {Math.round(d.spread * 100)}% of the pairwise
        overlap is missing. Papers marked <em>only this facet</em> appear in no other facet&apos;s list.
      </p>
      <PerFacetView result={result} limit={6} large />
    </div>
  );
}

/** The sole find to feature: one whose title shares no word with the query's, as in the paper's CEval example. */
function featured(result: RelatedResult) {
  const d = disagreement(result);
  const q = titleWords(result.query.title);
  const finds = Object.values(d.soleFinds).map((s) => result.results.find((r) => r.externalId === s!.externalId)!);
  return finds.find((r) => ![...titleWords(r.title)].some((w) => q.has(w))) ?? finds[0] ?? result.results[0];
}

function Fused({ result }: { result: RelatedResult }) {
  const star = featured(result);
  const rank = result.results.indexOf(star) + 1;
  const facet = star.facets[0].facet;
  const ranked = result.results.map((r, i) => ({ ...r, fusedRank: i + 1 }));
  return (
    <div className="grid gap-8 xl:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
      <section aria-labelledby="featured-heading" data-testid="demo-featured">
        <h2 id="featured-heading" className="text-2xl font-semibold leading-snug">
          <span style={facetVars(facet)} className="text-(--facet-ink)">
            {star.facets.length === 1 ? `${FACET_STYLES[facet].label} alone` : "Several facets"}
          </span>{" "}
          surfaced “{star.title}” at rank {rank}
        </h2>
        <p className="mt-2 text-lg text-ink-muted">
          Related through <em>how</em> or <em>what</em> it does, not through the words of the query&apos;s title. The evidence:
        </p>
        <WhyRelated facets={star.facets} fusion={result.fusion} large />
      </section>
      <section aria-label="Fused ranking">
        <ResultList corpus={result.corpus} results={ranked} fusion={result.fusion} large queryYear={result.query.year} />
      </section>
    </div>
  );
}

function GraphStep({ result }: { result: RelatedResult }) {
  const expand = useMemo(
    () => (paperId: string) =>
      fetchRelated(
        { kind: "paper", corpus: result.corpus, paperId },
        { k: K, retriever: result.retriever, fusion: "graph-rrf", facets: [...FACETS] },
        () => {},
      ),
    [result.corpus, result.retriever],
  );
  return (
    <div>
      <RelatedGraph result={result} expand={expand} height={620} large name={result.query.title} />
      <p className="mt-4 text-lg text-ink-muted">
        Edges take the colour of the facet that links two papers and grow with its weight; each paper is a pie of its facets. Double-click a paper to grow the
        graph, or{" "}
        {result.query.externalId && (
          <Link href={exploreHref(result.corpus, result.query.externalId)} className="font-medium text-ink underline underline-offset-4">
            open this query in the explorer
          </Link>
        )}
        .
      </p>
    </div>
  );
}
