"use client";

import Link from "next/link";
import { useCallback, useState } from "react";
import { FACETS } from "@/lib/corpus/types";
import type { RelatedResult } from "@/lib/query";
import { exploreHref } from "./explore/explore-state";
import { PerFacetView } from "./explore/per-facet-view";
import { exportContext, toResultRecord } from "./explore/records";
import { fetchRelated } from "./explore/related-client";
import { ResultList } from "./explore/result-list";
import { FusionExplainer } from "./explain";
import { ExportMenu } from "./export-menu";
import { RelatedGraph } from "./graph/related-graph";
import { FUSION_LABELS } from "./explore/filters-panel";
import { RETRIEVER_INFO } from "@/lib/query/types";
import { buttonClass, Icon, Segmented } from "./ui";

type Tab = "list" | "facets" | "graph";

/** Results listed before "Show all": the page also holds neighbours and citations. */
const SHOWN = 10;

/**
 * A corpus paper's related papers (computed on the server by the same pipeline as the explorer):
 * the ranked list with "why related", the per-facet lists and the typed graph around the paper.
 */
export function PaperRelated({ result }: { result: RelatedResult }) {
  const [tab, setTab] = useState<Tab>("list");
  const [all, setAll] = useState(false);
  const ranked = result.results.map((r, i) => ({ ...r, fusedRank: i + 1 }));
  const expand = useCallback(
    (paperId: string) =>
      fetchRelated(
        { kind: "paper", corpus: result.corpus, paperId },
        { k: 10, retriever: result.retriever, fusion: result.requestedFusion ?? "graph-rrf", facets: [...FACETS] },
        () => {},
      ),
    [result.corpus, result.retriever, result.requestedFusion],
  );
  return (
    <section aria-labelledby="related-heading" data-testid="related-papers">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="related-heading" className="text-lg font-semibold tracking-tight">
            Related papers
          </h2>
          <p className="mt-0.5 text-sm text-ink-muted">
            {result.results.length} papers ({RETRIEVER_INFO[result.retriever].label} + {FUSION_LABELS[result.fusion]}); each shows the facets that found it and
            its rank there (<span className="font-medium">P #3</span>: the 3rd paper found through problems).
          </p>
          <FusionExplainer fusion={result.fusion} note={result.fusionNote} className="mt-1 max-w-3xl" />
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <Segmented<Tab>
            name="paper-related-view"
            label="View"
            value={tab}
            onChange={setTab}
            options={[
              { value: "list", label: "Ranked" },
              { value: "facets", label: "By facet" },
              { value: "graph", label: "Graph", testId: "paper-graph-tab" },
            ]}
          />
          <ExportMenu
            records={() => ranked.map((r) => toResultRecord(result.corpus, r, r.fusedRank))}
            name={`related-${result.query.title}`}
            context={() => exportContext(result)}
          />
          {result.query.externalId && (
            <Link href={exploreHref(result.corpus, result.query.externalId)} className={buttonClass}>
              Filter and compare
              <Icon name="chevronRight" className="size-3.5" />
            </Link>
          )}
        </div>
      </div>
      <div className="mt-4">
        {tab === "list" ? (
          <>
            <ResultList corpus={result.corpus} results={all ? ranked : ranked.slice(0, SHOWN)} fusion={result.fusion} queryYear={result.query.year} />
            {ranked.length > SHOWN && (
              <button type="button" onClick={() => setAll((a) => !a)} className={`${buttonClass} mt-3`} aria-expanded={all}>
                {all ? "Show fewer" : `Show all ${ranked.length}`}
              </button>
            )}
          </>
        ) : tab === "facets" ? (
          <PerFacetView result={result} />
        ) : (
          <RelatedGraph result={result} expand={expand} height={520} name={result.query.title} />
        )}
      </div>
    </section>
  );
}
