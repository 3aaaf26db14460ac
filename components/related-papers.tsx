import Link from "next/link";
import { FACET_STYLES, facetVars } from "@/components/facets";
import type { RelatedResult } from "@/lib/query/related";
import { formatAuthors, paperHref, shortVenue } from "./format";

/**
 * Related papers fused across facets, each with the facets that surfaced it (rank in that
 * facet's list) and, on demand, why: the query's item next to the related paper's item.
 * Server-rendered; <details> needs no client JavaScript.
 */
export function RelatedPapers({ corpus, related }: { corpus: string; related: RelatedResult }) {
  return (
    <section aria-labelledby="related-heading" data-testid="related-papers">
      <h2 id="related-heading" className="text-lg font-semibold tracking-tight">
        Related papers
      </h2>
      <p className="mt-0.5 text-sm text-ink-muted">
        {related.results.length} papers from the typed graph ({related.retriever}, fused with {related.fusion}); each shows the facets
        that surfaced it with its rank there. Open one to see why.
      </p>
      <ol className="mt-4 divide-y divide-line rounded-lg border border-line bg-surface shadow-xs">
        {related.results.map((r, i) => (
          <li key={r.externalId} className="px-4 py-3 sm:px-5" data-testid="related-result">
            <details className="group">
              <summary className="flex cursor-pointer list-none items-start gap-3">
                <span className="w-6 shrink-0 pt-0.5 text-right text-sm tabular-nums text-ink-faint">{i + 1}</span>
                <span className="min-w-0 flex-1">
                  <Link href={paperHref(corpus, r.externalId)} className="font-medium hover:underline">
                    {r.title}
                  </Link>
                  <span className="mt-0.5 block truncate text-xs text-ink-faint">
                    {[r.year, formatAuthors(r.authors), r.venue ? shortVenue(r.venue) : null].filter(Boolean).join(" · ")}
                  </span>
                </span>
                <span className="flex shrink-0 flex-wrap justify-end gap-1">
                  {r.facets.map((f) => (
                    <span
                      key={f.facet}
                      style={facetVars(f.facet)}
                      title={`${FACET_STYLES[f.facet].label}: rank ${f.rank}, weight ${f.weight.toFixed(3)}`}
                      className="inline-flex items-center gap-1 rounded border border-(--facet) bg-(--facet-tint) px-1.5 py-0.5 text-xs font-medium text-(--facet-ink)"
                    >
                      {FACET_STYLES[f.facet].letter}
                      <span className="tabular-nums">#{f.rank}</span>
                    </span>
                  ))}
                </span>
              </summary>
              <dl className="mt-3 space-y-2 pl-9 text-sm">
                {r.facets.map((f) => (
                  <div key={f.facet} style={facetVars(f.facet)} className="border-l-4 border-(--facet) pl-3">
                    <dt className="text-xs font-semibold text-(--facet-ink)">
                      Why related · {FACET_STYLES[f.facet].label} (rank {f.rank}, edge weight {f.weight.toFixed(3)})
                    </dt>
                    {f.evidence ? (
                      <dd className="mt-1 grid gap-1 sm:grid-cols-2 sm:gap-3">
                        <p>
                          <span className="text-xs text-ink-faint">This paper: </span>
                          {f.evidence.queryItem}
                        </p>
                        <p>
                          <span className="text-xs text-ink-faint">Related paper: </span>
                          {f.evidence.paperItem}
                          <span className="ml-1 text-xs tabular-nums text-ink-faint">(cosine {f.evidence.similarity.toFixed(2)})</span>
                        </p>
                      </dd>
                    ) : (
                      <dd className="mt-1 text-ink-faint">No item vectors in this build to compare.</dd>
                    )}
                  </div>
                ))}
              </dl>
            </details>
          </li>
        ))}
      </ol>
    </section>
  );
}
