import type { Metadata } from "next";
import type { ReactNode } from "react";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { SaveButton } from "@/components/collection";
import { exploreHref } from "@/components/explore/explore-state";
import { ExportMenu } from "@/components/export-menu";
import { FacetAudit } from "@/components/facet-audit";
import { FacetChip, FacetList, FACETS } from "@/components/facets";
import { plural } from "@/components/format";
import { GraphNeighbours } from "@/components/graph-neighbours";
import { PaperLinks } from "@/components/paper-links";
import { PaperRelated } from "@/components/paper-related";
import { Icon, primaryButtonClass } from "@/components/ui";
import type { ExportRecord } from "@/lib/export";
import { corpusName, DEFAULT_CORPUS, getPaperDetail, NotFoundError, type PaperDetail } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import { loadPaperAudit } from "@/lib/facets";
import { paperNeighbours } from "@/lib/graph/neighbours";
import { resolveSegment } from "@/lib/http";
import { loadGraph, NoGraphBuildError } from "@/lib/retrieve";
import { relatedOptions, relatedPapers, type RelatedResult } from "@/lib/query";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = Promise<{ corpus: string; id: string }>;

// cache(): generateMetadata and the page share one database read per request.
const loadPaper = cache(async (rawCorpus: string, rawId: string): Promise<PaperDetail | null> => {
  const corpus = corpusName.safeParse(rawCorpus);
  if (!corpus.success) return null;
  try {
    // The id segment may arrive percent-encoded or decoded depending on how the page was reached.
    return await resolveSegment(rawId, (id) => getPaperDetail(getDb(), corpus.data, id));
  } catch (err) {
    // An unknown corpus is just another missing page; anything else is a real failure.
    if (err instanceof NotFoundError) return null;
    throw err;
  }
});

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { corpus, id } = await params;
  const paper = await loadPaper(corpus, id);
  return paper ? { title: paper.title, description: paper.abstract.slice(0, 200) } : { title: "Paper not found" };
}

type LoadedPaper = NonNullable<Awaited<ReturnType<typeof loadPaper>>>;

/** Breadcrumb, title, authors, year and venue, and the paper's actions. */
function PaperHeader({ paper, browseHref, record }: { paper: LoadedPaper; browseHref: string; record: ExportRecord }) {
  return (
    <header className="border-b border-line bg-surface">
      <div className="mx-auto max-w-6xl px-4 pb-7 pt-6 sm:px-6">
        <nav aria-label="Breadcrumb" className="flex min-w-0 items-center gap-1.5 text-sm text-ink-faint">
          <Link href={browseHref} className="hover:text-ink hover:underline">
            Browse
          </Link>
          <span aria-hidden="true">/</span>
          <Link href={browseHref} className="font-mono hover:text-ink hover:underline">
            {paper.corpus}
          </Link>
          <span aria-hidden="true">/</span>
          <span className="truncate font-mono text-ink-muted" aria-current="page">
            {paper.externalId}
          </span>
        </nav>
        <h1 className="mt-4 max-w-4xl text-2xl font-semibold leading-tight tracking-tight text-balance sm:text-[1.875rem]">{paper.title}</h1>
        <p className="mt-3 max-w-4xl text-[0.9375rem] leading-relaxed text-ink-muted" data-testid="paper-authors">
          {paper.authors.length > 0 ? paper.authors.join(", ") : "Unknown authors"}
        </p>
        <dl className="mt-4 flex flex-wrap gap-x-6 gap-y-2 text-sm">
          <Meta label="Year">{paper.year ?? "—"}</Meta>
          {paper.venue && <Meta label="Venue">{paper.venue}</Meta>}
          {paper.split && (
            <Meta label="Split">
              <span className="rounded bg-canvas px-1.5 py-0.5 font-mono text-xs text-ink-muted">{paper.split}</span>
            </Meta>
          )}
          {paper.role !== "corpus" && (
            <Meta label="Role">
              <span className="rounded bg-canvas px-1.5 py-0.5 text-xs text-ink-muted">Query paper (outside the graph)</span>
            </Meta>
          )}
        </dl>
        <div className="mt-5 flex flex-wrap items-center gap-2">
          {paper.role === "corpus" && (
            <Link href={exploreHref(paper.corpus, paper.externalId)} className={primaryButtonClass} data-testid="explore-related">
              Explore related work
              <Icon name="chevronRight" className="size-4" />
            </Link>
          )}
          <SaveButton record={record} />
          <ExportMenu records={[record]} name={paper.title} label="Cite" align="left" />
        </div>
      </div>
    </header>
  );
}

export default async function PaperPage({ params }: { params: Params }) {
  const { corpus, id } = await params;
  const paper = await loadPaper(corpus, id);
  if (!paper) notFound();

  const browseHref = paper.corpus === DEFAULT_CORPUS ? "/papers" : `/papers?corpus=${encodeURIComponent(paper.corpus)}`;
  const record: ExportRecord = {
    corpus: paper.corpus,
    externalId: paper.externalId,
    title: paper.title,
    authors: paper.authors,
    year: paper.year,
    venue: paper.venue,
    abstract: paper.abstract || null,
  };
  const facetTotal = FACETS.reduce((n, f) => n + paper.facets[f].length, 0);
  const neighbours = paper.role === "corpus" ? await paperNeighbours(getDb(), paper.id, { loadGraph }) : null;
  const related = neighbours ? await loadRelated(paper.corpus, paper.externalId) : null;
  const audit = await loadPaperAudit(getDb(), paper.id);

  return (
    <article>
      <PaperHeader paper={paper} browseHref={browseHref} record={record} />

      <div className="mx-auto max-w-6xl space-y-10 px-4 pt-8 sm:px-6">
        <section aria-labelledby="abstract-heading" className="max-w-4xl">
          <h2 id="abstract-heading" className="text-xs font-semibold uppercase tracking-[0.08em] text-ink-faint">
            Abstract
          </h2>
          <p className="mt-2 text-base leading-7 text-ink">{paper.abstract || "No abstract available."}</p>
        </section>

        <section aria-labelledby="facets-heading">
          <div className="flex flex-wrap items-end justify-between gap-3">
            <div>
              <h2 id="facets-heading" className="text-lg font-semibold tracking-tight">
                Facets
              </h2>
              <p className="mt-0.5 text-sm text-ink-muted">
                {facetTotal > 0 ? `${plural(facetTotal, "item")} extracted from the title and abstract.` : "No facets have been extracted for this paper yet."}
              </p>
            </div>
            <div className="flex flex-wrap gap-1.5">
              {FACETS.map((f) => (
                <FacetChip key={f} facet={f} count={paper.facets[f].length} />
              ))}
            </div>
          </div>
          <div className="mt-4">
            <FacetList facets={paper.facets} />
          </div>
        </section>

        {audit && audit.total > 0 && <FacetAudit audit={audit} corpus={paper.corpus} />}

        {related && related.results.length > 0 && <PaperRelated result={related} />}

        {neighbours && <GraphNeighbours corpus={paper.corpus} neighbours={neighbours} />}

        <section aria-label="Citations" className="grid items-start gap-6 lg:grid-cols-2">
          <PaperLinks
            testId="references"
            title="References"
            hint={`Papers in ${paper.corpus} that this paper cites`}
            corpus={paper.corpus}
            papers={paper.references}
            empty="It cites no other paper of this corpus."
          />
          <PaperLinks
            testId="cited-by"
            title="Cited by"
            hint={`Papers in ${paper.corpus} that cite this paper`}
            corpus={paper.corpus}
            papers={paper.citedBy}
            empty="No paper of this corpus cites it."
          />
        </section>
      </div>
    </article>
  );
}

/** Related papers via the shared pipeline; a corpus without a graph build simply has none yet. */
async function loadRelated(corpus: string, externalId: string): Promise<RelatedResult | null> {
  try {
    return await relatedPapers(getDb(), { corpus, paperId: externalId }, relatedOptions.parse({ k: 20 }));
  } catch (err) {
    if (err instanceof NoGraphBuildError) return null;
    throw err;
  }
}

function Meta({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex min-w-0 items-baseline gap-2">
      <dt className="text-ink-faint">{label}</dt>
      <dd className="min-w-0 text-ink">{children}</dd>
    </div>
  );
}
