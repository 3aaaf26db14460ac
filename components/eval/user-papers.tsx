import {
  formatChange,
  formatLatency,
  formatRatio,
  USER_PAPER_SOURCE_LABELS,
  USER_PAPER_SOURCES,
  USER_PAPERS_HEADING,
  USER_PAPERS_INTRO,
  userPaperTableNote,
  type UserPaperRow,
  type UserPapersSection as Section,
  type UserPaperTable,
} from "@/lib/eval";
import { ColumnHead, fixed3, Interval, ReportTable, RowStatusNote } from "./report-table";

/** "2.02×" with its interval below. */
function Paired({ text }: { text: string }) {
  if (!text) return null;
  const [head, ...rest] = text.split(" [");
  return (
    <>
      <span className="text-ink">{head}</span>
      {rest.length > 0 && <span className="block whitespace-nowrap text-xs text-ink-faint">[{rest.join(" [")}</span>}
    </>
  );
}

function SourceTable({ rows, caption, withTuning }: { rows: readonly UserPaperRow[]; caption: string; withTuning: boolean }) {
  return (
    <ReportTable
      caption={caption}
      minWidth="min-w-[52rem]"
      header={
        <>
          <ColumnHead>Method</ColumnHead>
          {(["R@5", "R@10", "R@20", "R@50"] as const).map((c) => (
            <ColumnHead key={c} numeric>
              {c}
            </ColumnHead>
          ))}
          <ColumnHead numeric title="R@20 over the BM25 row's R@20 on the same queries, with a paired bootstrap interval">
            × BM25 (R@20)
          </ColumnHead>
          <ColumnHead numeric title="Relative change in R@20 from the default pipeline, with a paired bootstrap interval">
            Δ vs default
          </ColumnHead>
          {withTuning && (
            <ColumnHead numeric title="The same row on the tuning half of set 2, which chose the settings">
              R@20 tuning half
            </ColumnHead>
          )}
          <ColumnHead numeric title="Wall time of one answer, warm: mean / 95th percentile">
            ms mean / p95
          </ColumnHead>
        </>
      }
    >
      <tbody>
        {rows.map((r) => {
          const ok = r.status === "ok";
          return (
            <tr key={r.method} className="border-b border-line align-top last:border-0" data-method={r.method}>
              <th scope="row" className="px-3 py-2 text-left font-normal">
                <span className="text-ink">{r.label}</span>
                {ok && r.appliedFusion && <span className="mt-0.5 block text-xs text-ink-faint">fusion run: {r.appliedFusion}</span>}
                {ok && r.failed ? (
                  <span className="mt-0.5 block text-xs text-ink-faint">{r.failed} queries answered with an error (counted as nothing found)</span>
                ) : null}
                {!ok && <RowStatusNote status={r.status} reason={r.reason} />}
              </th>
              {(["R@5", "R@10", "R@20", "R@50"] as const).map((c) => (
                <td key={c} className="px-3 py-2 text-right tabular-nums">
                  {ok ? (
                    <>
                      <span className={c === "R@20" ? "font-semibold text-ink" : "text-ink"}>{fixed3(r[c])}</span>
                      {c === "R@20" && <Interval ci={r.ci?.["R@20"]} />}
                    </>
                  ) : (
                    <span className="text-ink-faint">–</span>
                  )}
                </td>
              ))}
              <td className="px-3 py-2 text-right tabular-nums">
                {ok ? r.method === "bm25" ? <span className="text-ink-faint">baseline</span> : <Paired text={formatRatio(r.ratio)} /> : "–"}
              </td>
              <td className="px-3 py-2 text-right tabular-nums">{ok ? <Paired text={formatChange(r.change)} /> : ""}</td>
              {withTuning && (
                <td className="px-3 py-2 text-right tabular-nums text-ink-muted">
                  {r.tuning ? (
                    <>
                      {fixed3(r.tuning["R@20"])}
                      <Interval ci={r.tuning.ci} />
                    </>
                  ) : (
                    "–"
                  )}
                </td>
              )}
              <td className="whitespace-nowrap px-3 py-2 text-right tabular-nums text-ink-muted">{ok ? formatLatency(r.latency) : ""}</td>
            </tr>
          );
        })}
      </tbody>
    </ReportTable>
  );
}

function UserPaperTableView({ table, section }: { table: UserPaperTable; section: Section }) {
  const id = `user-papers-${table.id}${table.withoutCitations ? "-without-citations" : ""}`;
  return (
    <section aria-labelledby={id} className="mt-6">
      <h3 id={id} className="text-base font-semibold tracking-tight">
        {table.title}
      </h3>
      <p className="mt-1 max-w-4xl text-sm text-ink-muted">{userPaperTableNote(table, section)}</p>
      <div className="mt-3 space-y-4">
        {USER_PAPER_SOURCES.map((source) => {
          const rows = table.sources[source];
          if (!rows) return null;
          return (
            <div key={source}>
              <h4 className="mb-2 text-sm font-medium text-ink">{USER_PAPER_SOURCE_LABELS[source]}</h4>
              <SourceTable rows={rows} caption={`${table.title}: ${USER_PAPER_SOURCE_LABELS[source]}`} withTuning={table.id !== "ooc"} />
            </div>
          );
        })}
      </div>
    </section>
  );
}

/** The user-paper tables of the evaluation report (sets 1–3, and again without citations), each in both facet sources. */
export function UserPapersSection({ section }: { section: Section }) {
  return (
    <section aria-labelledby="user-papers" className="mt-10">
      <h2 id="user-papers" className="text-lg font-semibold tracking-tight">
        {USER_PAPERS_HEADING}
      </h2>
      <p className="mt-1 max-w-3xl text-sm text-ink-muted">{USER_PAPERS_INTRO}</p>
      {section.tables.map((t) => (
        <UserPaperTableView key={`${t.id}${t.withoutCitations ?? ""}`} table={t} section={section} />
      ))}
    </section>
  );
}
