import Link from "next/link";
import { FACET_STYLES, FACETS, facetVars } from "@/components/facets";
import type { PaperNeighbours } from "@/lib/graph/neighbours";
import { Explained } from "./explain";
import { paperHref } from "./format";

const VISIBLE = 8;

/** A paper's top neighbours per facet in the typed graph, with w = αs + βc split into its parts. */
export function GraphNeighbours({ corpus, neighbours }: { corpus: string; neighbours: PaperNeighbours }) {
  const { alpha, beta } = neighbours;
  return (
    <section aria-labelledby="neighbours-heading" data-testid="graph-neighbours">
      <h2 id="neighbours-heading" className="text-lg font-semibold tracking-tight">
        Closest papers per facet
      </h2>
      <Explained
        className="mt-0.5"
        size="sm"
        summary="How the link strength is computed"
        plain="The papers most strongly linked to this one through each facet in the facet graph. The number is the link's strength: mostly how similar the two papers' facet items are, plus a share for shared citations."
      >
        <p>
          Typed-graph edges of build {neighbours.build}, top per facet: weight w = {alpha}·s + {beta}·c, where s is the facet similarity (maxsim of the two
          papers&apos; facet items) and c the citation score (bibliographic coupling and co-citation); the parts are shown as (s · c).
        </p>
      </Explained>
      <div className="mt-4 grid gap-4 md:grid-cols-2">
        {FACETS.map((f) => {
          const list = neighbours.facets[f];
          const s = FACET_STYLES[f];
          return (
            <div
              key={f}
              style={facetVars(f)}
              className="min-w-0 wrap-anywhere rounded-lg border border-line border-l-4 border-l-(--facet) bg-surface p-4 shadow-xs"
              data-testid={`neighbours-${f}`}
            >
              <h3 className="text-sm font-semibold text-(--facet-ink)">
                {s.label} <span className="font-normal text-ink-faint">· {list.length} edges</span>
              </h3>
              {list.length === 0 ? (
                <p className="mt-2 text-sm text-ink-faint">No edges in this facet.</p>
              ) : (
                <ol className="mt-2 space-y-1.5">
                  {list.slice(0, VISIBLE).map((n) => (
                    <li key={n.externalId} className="flex min-w-0 items-baseline gap-2 text-sm">
                      <span className="w-5 shrink-0 text-right tabular-nums text-ink-faint">{n.rank}</span>
                      <Link href={paperHref(corpus, n.externalId)} className="min-w-0 flex-1 truncate hover:underline" title={n.title}>
                        {n.title}
                      </Link>
                      <span
                        className="shrink-0 font-mono text-xs tabular-nums text-ink-muted"
                        title={`w ${n.weight.toFixed(3)} = ${alpha}·s ${n.facetScore.toFixed(3)} + ${beta}·c ${n.citationScore.toFixed(3)}`}
                      >
                        {n.weight.toFixed(3)}
                        <span className="text-ink-faint">
                          {" "}
                          (s {n.facetScore.toFixed(2)} · c {n.citationScore.toFixed(2)})
                        </span>
                      </span>
                    </li>
                  ))}
                </ol>
              )}
            </div>
          );
        })}
      </div>
    </section>
  );
}
