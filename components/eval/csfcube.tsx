import { CSFCUBE_HEADING, CSFCUBE_INTRO, csfcubeColumns, csfcubeLines, FACETS_LABEL, type CsfcubeRow, type CsfcubeState } from "@/lib/eval";
import { ColumnHead, Interval, ReportTable } from "./report-table";

const f2 = (x: number): string => x.toFixed(2);

function Cell({ row, showQueries }: { row?: CsfcubeRow; showQueries: boolean }) {
  if (!row) return <span className="text-ink-faint">–</span>;
  return (
    <>
      <span className="text-ink">{f2(row.map)}</span>
      <span className="text-ink-faint"> / {f2(row.ndcg20)}</span>
      <Interval ci={row.mapCi} format={f2} />
      {showQueries && <span className="block text-xs text-ink-faint">n = {row.queries}</span>}
    </>
  );
}

/** The CSFCube dev table (reports/csfcube-dev.json) with its attribution; nothing when the file is missing. */
export function CsfcubeSection({ state }: { state: CsfcubeState }) {
  if (state.status === "missing") return null;
  return (
    <section aria-labelledby="csfcube" className="mt-10">
      <h2 id="csfcube" className="text-lg font-semibold tracking-tight">
        {CSFCUBE_HEADING}
      </h2>
      {state.status === "invalid" ? (
        <p role="status" className="mt-1 max-w-3xl text-sm text-ink-muted">
          <code className="text-xs">{state.path}</code> could not be read: {state.message}
        </p>
      ) : (
        <CsfcubeBody report={state.report} />
      )}
    </section>
  );
}

function CsfcubeBody({ report }: { report: Extract<CsfcubeState, { status: "ok" }>["report"] }) {
  const cols = csfcubeColumns(report);
  return (
    <>
      <p className="mt-1 max-w-3xl text-sm text-ink-muted">
        {CSFCUBE_INTRO} Cells: MAP / NDCG%20, with MAP’s 95% interval below. Generated {report.generated} by <code className="text-xs">{report.command}</code>.
      </p>
      <ReportTable
        caption="CSFCube dev fold: MAP and NDCG%20 per facet"
        minWidth="min-w-[44rem]"
        className="mt-3"
        header={
          <>
            <ColumnHead>Method</ColumnHead>
            <ColumnHead>Facets used</ColumnHead>
            {cols.map((c) => (
              <ColumnHead key={c.facet} numeric>
                {c.facet}
                {c.queries !== null && <span className="block font-normal normal-case">{c.queries} queries</span>}
              </ColumnHead>
            ))}
          </>
        }
      >
        <tbody>
          {csfcubeLines(report).map((l) => (
            <tr key={`${l.method}-${l.facets}`} className="border-b border-line align-top last:border-0">
              <th scope="row" className="px-3 py-2 text-left font-normal text-ink">
                {l.label}
              </th>
              <td className="px-3 py-2 text-ink-muted">{FACETS_LABEL[l.facets]}</td>
              {cols.map((c) => (
                <td key={c.facet} className="px-3 py-2 text-right tabular-nums">
                  <Cell row={l.cells[c.facet]} showQueries={c.queries === null} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </ReportTable>
      {report.references.length > 0 && (
        <div className="mt-3 max-w-xl overflow-x-auto rounded-lg border border-line bg-surface">
          <table className="w-full border-collapse text-sm">
            <caption className="px-3 pt-2 text-left text-xs text-ink-faint">Published references</caption>
            <thead>
              <tr className="border-b border-line text-left text-xs uppercase tracking-wide text-ink-faint">
                <ColumnHead>Reference</ColumnHead>
                <ColumnHead numeric>MAP</ColumnHead>
                <ColumnHead numeric>NDCG%20</ColumnHead>
              </tr>
            </thead>
            <tbody>
              {report.references.map((r) => (
                <tr key={r.label} className="border-b border-line last:border-0">
                  <th scope="row" className="px-3 py-2 text-left font-normal text-ink">
                    {r.label}
                  </th>
                  <td className="px-3 py-2 text-right tabular-nums text-ink-muted">{f2(r.map)}</td>
                  <td className="px-3 py-2 text-right tabular-nums text-ink-muted">{f2(r.ndcg20)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="mt-2 max-w-3xl text-xs text-ink-faint">{report.attribution}</p>
    </>
  );
}
