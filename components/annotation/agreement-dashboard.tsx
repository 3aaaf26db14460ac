import type { ReactNode } from "react";
import { FacetChip, FACETS } from "@/components/facets";
import type { StudyReport } from "@/lib/annotation";
import { Card, fmtCi, fmtNum, fmtPct } from "../ui";

// The agreement dashboard of a study: the statistics of the paper's groundedness appendix.

function Figure({ label, value, detail, testId }: { label: string; value: ReactNode; detail?: ReactNode; testId?: string }) {
  return (
    <div className="min-w-36" data-testid={testId}>
      <dt className="text-xs text-ink-faint">{label}</dt>
      <dd className="mt-0.5 text-xl font-semibold tabular-nums">{value}</dd>
      {detail && <dd className="text-xs tabular-nums text-ink-muted">{detail}</dd>}
    </div>
  );
}

const th = "px-3 py-2 font-medium";
const td = "px-3 py-2 tabular-nums";

// eslint-disable-next-line max-lines-per-function -- JSX markup only: the agreement tables
export function AgreementDashboard({ report }: { report: StudyReport }) {
  const { annotators, pooled, core, bootstrap } = report;
  const share = (k: number, n: number) => (n ? `${k}/${n} (${fmtPct(k / n)})` : "—");
  return (
    <div className="space-y-6">
      <Card title="Per annotator" testId="per-annotator">
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm" aria-label="Ratings per annotator">
            <thead className="border-b border-line text-xs text-ink-faint">
              <tr>
                <th className={th}>Annotator</th>
                <th className={th}>Rated</th>
                {[5, 4, 3, 2, 1].map((s) => (
                  <th key={s} className={`${th} text-right`}>
                    {s}
                  </th>
                ))}
                <th className={`${th} text-right`}>Mean</th>
                <th className={`${th} text-right`}>≥ 4</th>
              </tr>
            </thead>
            <tbody>
              {annotators.map((a) => (
                <tr key={a.userId} className="border-b border-line last:border-0">
                  <td className="px-3 py-2 font-medium">{a.email}</td>
                  <td className={td}>
                    {a.summary.n} / {a.assigned}
                  </td>
                  {[5, 4, 3, 2, 1].map((s) => (
                    <td key={s} className={`${td} text-right`}>
                      {a.summary.counts[s - 1]}
                    </td>
                  ))}
                  <td className={`${td} text-right`}>{fmtNum(a.summary.mean)}</td>
                  <td className={`${td} text-right`}>{fmtPct(a.summary.shareGrounded)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Card>

      <Card title="Pooled over distinct items" testId="pooled">
        <p className="-mt-1 mb-4 text-sm text-ink-muted">
          Each item counts once; a core item&apos;s ratings are averaged across its annotators. The CI is a percentile bootstrap over papers (
          {bootstrap.resamples} resamples, seed {bootstrap.seed}).
        </p>
        <dl className="flex flex-wrap gap-x-10 gap-y-4">
          <Figure
            label="Rated ≥ 4 (95% CI)"
            value={fmtPct(pooled.share)}
            detail={`${pooled.grounded}/${pooled.items} items ${fmtCi(pooled.shareCi?.lower, pooled.shareCi?.upper, true)}`}
            testId="stat-pooled-share"
          />
          <Figure label="Mean score" value={fmtNum(pooled.mean)} detail={`${pooled.items} items`} testId="stat-pooled-mean" />
        </dl>
        <table className="mt-5 w-full max-w-xl text-left text-sm" aria-label="Pooled ratings by facet">
          <thead className="border-b border-line text-xs text-ink-faint">
            <tr>
              <th className={th}>Facet</th>
              <th className={`${th} text-right`}>Mean</th>
              <th className={`${th} text-right`}>≥ 4</th>
            </tr>
          </thead>
          <tbody>
            {FACETS.map((f) => {
              const g = pooled.perFacet[f];
              return (
                <tr key={f} className="border-b border-line">
                  <td className="px-3 py-2">
                    <FacetChip facet={f} />
                  </td>
                  <td className={`${td} text-right`}>{fmtNum(g.mean)}</td>
                  <td className={`${td} text-right`}>{share(g.grounded, g.items)}</td>
                </tr>
              );
            })}
            <tr className="font-semibold">
              <td className="px-3 py-2">All</td>
              <td className={`${td} text-right`}>{fmtNum(pooled.mean)}</td>
              <td className={`${td} text-right`}>{share(pooled.grounded, pooled.items)}</td>
            </tr>
          </tbody>
        </table>
      </Card>

      <Card title={`Agreement on the shared core (${core.items} items, ${core.annotators.length} annotators)`} testId="core">
        {core.annotators.length < 2 ? (
          <p className="text-sm text-ink-muted">This study has no shared core: agreement needs items rated by at least two annotators.</p>
        ) : (
          <>
            <p className="-mt-1 mb-4 text-sm text-ink-muted">
              Raw agreement counts the {core.raw.units} core items every annotator has rated; the coefficients use every core rating.
            </p>
            <dl className="flex flex-wrap gap-x-10 gap-y-4">
              <Figure
                label="Identical score, all annotators"
                value={fmtPct(core.raw.units ? core.raw.exact / core.raw.units : null)}
                detail={share(core.raw.exact, core.raw.units)}
                testId="stat-exact"
              />
              <Figure
                label="Within one point"
                value={fmtPct(core.raw.units ? core.raw.withinOne / core.raw.units : null)}
                detail={share(core.raw.withinOne, core.raw.units)}
                testId="stat-within-one"
              />
              <Figure
                label="Unanimously grounded (≥ 4)"
                value={fmtPct(core.raw.units ? core.raw.unanimousGrounded / core.raw.units : null)}
                detail={share(core.raw.unanimousGrounded, core.raw.units)}
                testId="stat-unanimous"
              />
            </dl>
            <dl className="mt-6 flex flex-wrap gap-x-10 gap-y-4 border-t border-line pt-5">
              <Figure
                label="Krippendorff's α, ordinal (95% bootstrap CI)"
                value={fmtNum(core.alphaOrdinal.alpha)}
                detail={core.alphaOrdinal.alpha === null ? "undefined: no variation yet" : fmtCi(core.alphaOrdinal.lower, core.alphaOrdinal.upper)}
                testId="stat-alpha-ordinal"
              />
              <Figure
                label="Krippendorff's α, binarised at ≥ 4"
                value={fmtNum(core.alphaBinary)}
                detail={core.alphaBinary === null ? "undefined: no variation yet" : "nominal metric"}
                testId="stat-alpha-binary"
              />
              <Figure
                label="Gwet's AC1, grounded decision (95% CI)"
                value={fmtNum(core.ac1?.ac1)}
                detail={
                  core.ac1 ? `${fmtCi(core.ac1.lower, core.ac1.upper)} · pa ${fmtNum(core.ac1.pa)}, pe ${fmtNum(core.ac1.pe)}` : "needs two ratings of an item"
                }
                testId="stat-ac1"
              />
            </dl>
            <table className="mt-6 w-full max-w-2xl text-left text-sm" aria-label="Pairwise agreement">
              <thead className="border-b border-line text-xs text-ink-faint">
                <tr>
                  <th className={th}>Pair</th>
                  <th className={`${th} text-right`}>Items</th>
                  <th className={`${th} text-right`}>Exact</th>
                  <th className={`${th} text-right`}>Within one</th>
                </tr>
              </thead>
              <tbody>
                {core.pairwise.map((p) => (
                  <tr key={`${p.a}-${p.b}`} className="border-b border-line last:border-0">
                    <td className="px-3 py-2">
                      {p.aEmail} · {p.bEmail}
                    </td>
                    <td className={`${td} text-right`}>{p.units}</td>
                    <td className={`${td} text-right`}>{fmtPct(p.units ? p.exact / p.units : null)}</td>
                    <td className={`${td} text-right`}>{fmtPct(p.units ? p.withinOne / p.units : null)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="mt-4 text-xs leading-relaxed text-ink-faint">
              α compares observed with expected disagreement from the pooled marginals, so it drops under extreme class imbalance even when raters agree; AC1
              estimates chance agreement without relying on the marginals and stays interpretable at high prevalence (Gwet 2008). CIs: α by a percentile
              bootstrap over core items; AC1 from its variance with a t quantile.
            </p>
          </>
        )}
      </Card>
    </div>
  );
}
