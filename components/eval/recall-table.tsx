import { formatDelta, type Cutoff, type RecallRow } from "@/lib/eval";
import { ReportTable } from "./report-table";

const f3 = (x: number | undefined): string => (x === undefined ? "–" : x.toFixed(3));

/** One recall table of the evaluation report: estimate with its 95% CI, status, and the paper's figure. */
export function RecallTable({ rows, cutoffs, caption }: { rows: readonly RecallRow[]; cutoffs: readonly Cutoff[]; caption: string }) {
  const hasDelta = rows.some((r) => r.delta !== undefined);
  return (
    <ReportTable
      caption={caption}
      minWidth="min-w-[40rem]"
      header={
        <>
          <th scope="col" className="px-3 py-2 font-medium">
            Method
          </th>
          {cutoffs.map((c) => (
            <th key={c} scope="col" className="px-3 py-2 text-right font-medium">
              {c}
            </th>
          ))}
          {hasDelta && (
            <th scope="col" className="px-3 py-2 text-right font-medium">
              Δ R@20
            </th>
          )}
          <th scope="col" className="px-3 py-2 text-right font-medium">
            Paper
          </th>
        </>
      }
    >
      <tbody>
        {rows.map((r, i) => (
          <tr key={`${r.method}-${r.lists ?? ""}-${i}`} className="border-b border-line last:border-0 align-top">
            <th scope="row" className="px-3 py-2 text-left font-normal">
              <span className="text-ink">{r.label}</span>
              {r.status !== "ok" && (
                <span className="mt-0.5 block text-xs text-ink-faint">
                  <span className="rounded bg-canvas px-1.5 py-0.5 font-medium text-ink-muted">{r.status}</span> {r.reason}
                </span>
              )}
            </th>
            {cutoffs.map((c) => {
              const ci = r.ci?.[c];
              return (
                <td key={c} className="px-3 py-2 text-right tabular-nums">
                  {r.status === "ok" ? (
                    <>
                      <span className="text-ink">{f3(r[c])}</span>
                      {ci && (
                        <span className="block whitespace-nowrap text-xs text-ink-faint">
                          [{f3(ci[0])}, {f3(ci[1])}]
                        </span>
                      )}
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
                .map((c) => `${c} ${f3(r.paper?.[c])}`)
                .join(" · ")}
            </td>
          </tr>
        ))}
      </tbody>
    </ReportTable>
  );
}
