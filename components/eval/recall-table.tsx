import { formatDelta, type Cutoff, type RecallRow } from "@/lib/eval";
import { ColumnHead, fixed3, Interval, ReportTable, RowStatusNote } from "./report-table";

/** One recall table of the evaluation report: estimate with its 95% CI, status, and the paper's figure. */
export function RecallTable({ rows, cutoffs, caption }: { rows: readonly RecallRow[]; cutoffs: readonly Cutoff[]; caption: string }) {
  const hasDelta = rows.some((r) => r.delta !== undefined);
  return (
    <ReportTable
      caption={caption}
      minWidth="min-w-[40rem]"
      header={
        <>
          <ColumnHead>Method</ColumnHead>
          {cutoffs.map((c) => (
            <ColumnHead key={c} numeric>
              {c}
            </ColumnHead>
          ))}
          {hasDelta && <ColumnHead numeric>Δ R@20</ColumnHead>}
          <ColumnHead numeric>Paper</ColumnHead>
        </>
      }
    >
      <tbody>
        {rows.map((r, i) => (
          <tr key={`${r.method}-${r.lists ?? ""}-${i}`} className="border-b border-line last:border-0 align-top">
            <th scope="row" className="px-3 py-2 text-left font-normal">
              <span className="text-ink">{r.label}</span>
              {r.status !== "ok" && <RowStatusNote status={r.status} reason={r.reason} />}
            </th>
            {cutoffs.map((c) => {
              const ci = r.ci?.[c];
              return (
                <td key={c} className="px-3 py-2 text-right tabular-nums">
                  {r.status === "ok" ? (
                    <>
                      <span className="text-ink">{fixed3(r[c])}</span>
                      <Interval ci={ci} />
                    </>
                  ) : (
                    <span className="text-ink-faint">–</span>
                  )}
                </td>
              );
            })}
            {hasDelta && <td className="px-3 py-2 text-right tabular-nums text-ink-muted">{r.delta === undefined ? "" : formatDelta(r.delta)}</td>}
            <td className="px-3 py-2 text-right text-xs tabular-nums text-ink-faint">
              {cutoffs
                .filter((c) => r.paper?.[c] !== undefined)
                .map((c) => `${c} ${fixed3(r.paper?.[c])}`)
                .join(" · ")}
            </td>
          </tr>
        ))}
      </tbody>
    </ReportTable>
  );
}
