import type { Metadata } from "next";
import type { ReactNode } from "react";
import { CsfcubeSection } from "@/components/eval/csfcube";
import { RecallTable } from "@/components/eval/recall-table";
import { SvgFigure } from "@/components/eval/svg-figure";
import { UserPapersSection } from "@/components/eval/user-papers";
import { FACETS } from "@/lib/corpus/types";
import type { CsfcubeState } from "@/lib/eval";
import { readLatestCsfcube, readLatestReport } from "@/lib/eval";
import { tableNote, TABLES, type EvalReport, type TableName } from "@/lib/eval";
import { coverageLadderSvg, recallCurvesSvg } from "@/lib/eval";
import { ColumnHead, fixed3, ReportTable } from "@/components/eval/report-table";

export const metadata: Metadata = { title: "Evaluation" };
// The report is read at request time, so a new `graft eval` shows without a rebuild.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const pct = (x: number | undefined): string => (x === undefined ? "–" : `${(100 * x).toFixed(1)}%`);

function Section({ id, title, children, note }: { id: string; title: string; children: ReactNode; note?: string }) {
  return (
    <section aria-labelledby={id} className="mt-10">
      <h2 id={id} className="text-lg font-semibold tracking-tight">
        {title}
      </h2>
      {note && <p className="mt-1 max-w-3xl text-sm text-ink-muted">{note}</p>}
      <div className="mt-3 space-y-4">{children}</div>
    </section>
  );
}

function Table({ header, rows, caption }: { header: string[]; rows: (string | number)[][]; caption: string }) {
  return (
    <ReportTable
      caption={caption}
      minWidth="min-w-[36rem]"
      header={
        <>
          {header.map((h, i) => (
            <ColumnHead key={h} numeric={i > 0}>
              {h}
            </ColumnHead>
          ))}
        </>
      }
    >
      <tbody>
        {rows.map((r, i) => (
          <tr key={i} className="border-b border-line last:border-0">
            {r.map((c, j) =>
              j === 0 ? (
                <th key={j} scope="row" className="px-3 py-2 text-left font-normal text-ink">
                  {c}
                </th>
              ) : (
                <td key={j} className="px-3 py-2 text-right tabular-nums text-ink-muted">
                  {c}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </ReportTable>
  );
}

function RecallSection({ report, name }: { report: EvalReport; name: TableName }) {
  const rows = report.tables[name];
  if (!rows) return null;
  return (
    <Section id={`table-${name}`} title={TABLES[name].title} note={tableNote(report, name) || undefined}>
      <RecallTable rows={rows} cutoffs={TABLES[name].cutoffs} caption={TABLES[name].title} />
      {(name === "main" || name === "ooc") && (
        <SvgFigure
          svg={recallCurvesSvg(rows, { title: `Recall@k: ${TABLES[name].title}` })}
          caption="Recall at k = 5, 10, 20, 50 for every row with figures (log scale of k)."
        />
      )}
    </Section>
  );
}

/** When, how and from what the report was produced. */
function ReportProvenance({ report, file }: { report: EvalReport; file: string }) {
  const m = report.manifest;
  const corpus = m.corpus as { name?: string; papers?: number; queriesUsed?: { test?: number; dev?: number; ooc?: number } };
  const queries = corpus.queriesUsed
    ? `; queries: ${corpus.queriesUsed.test ?? "?"} test, ${corpus.queriesUsed.dev ?? "?"} dev, ${corpus.queriesUsed.ooc ?? "?"} out of corpus`
    : "";
  return (
    <dl className="mt-4 grid max-w-3xl grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
      <dt className="text-ink-faint">Produced</dt>
      <dd className="text-ink-muted">
        {new Date(m.date).toUTCString()} · {m.wallSeconds.toFixed(0)} s on {m.cpus} CPU(s)
        {m.git.commit ? ` · commit ${m.git.commit.slice(0, 10)}${m.git.dirty ? " (uncommitted changes)" : ""}` : ""}
      </dd>
      <dt className="text-ink-faint">Command</dt>
      <dd>
        <code className="rounded bg-canvas px-1.5 py-0.5 text-xs">{m.command}</code>
      </dd>
      <dt className="text-ink-faint">Corpus</dt>
      <dd className="text-ink-muted">
        {corpus.name ?? "?"}
        {corpus.papers === undefined ? "" : `, ${corpus.papers} papers`}
        {queries}
      </dd>
      <dt className="text-ink-faint">Embedder</dt>
      <dd className="text-ink-muted">{m.embedder}</dd>
      <dt className="text-ink-faint">Source</dt>
      <dd className="text-ink-muted">
        <code className="text-xs">{file}</code>
        {report.report ? (
          <>
            {" "}
            (report <code className="text-xs">reports/{report.report}</code>)
          </>
        ) : null}
      </dd>
    </dl>
  );
}

function Report({ report, file, csfcube }: { report: EvalReport; file: string; csfcube: CsfcubeState }) {
  const a = report.attribution;
  const c = report.coverage;
  const n = report.nonObvious;
  return (
    <>
      <ReportProvenance report={report} file={file} />

      {report.userPapers && <UserPapersSection section={report.userPapers} />}
      <CsfcubeSection state={csfcube} />

      <h2 className="mt-14 border-t border-line pt-6 text-lg font-semibold tracking-tight">The paper’s experiments (replication)</h2>
      <p className="mt-1 max-w-3xl text-sm text-ink-muted">
        The paper’s protocol on this corpus. Recall is micro-averaged over query–paper pairs, with 95% bootstrap intervals over queries. Rows marked “not run”
        need a trained generative model; “not reproduced” rows cannot run offline and show the paper’s figures only.
      </p>

      <RecallSection report={report} name="main" />
      <RecallSection report={report} name="ooc" />
      {n && (
        <Section
          id="non-obvious"
          title="Non-obvious retrievals (out of corpus)"
          note={`Top-${n.k} retrievals; a paper is obvious when it is among the query's ${n.nearest} nearest corpus papers by facet similarity. Base rate: ${pct(n.baseRate)} of non-obvious pairs are cited (paper ${pct(n.paper.baseRate)}); the popularity control returns the ${n.k} most-cited non-obvious papers (precision ${pct(n.control.nonObviousPrecision)}).`}
        >
          <Table
            caption="Non-obvious retrievals"
            header={["Method", "Non-obvious share", "Correct that are non-obvious", "Non-obvious precision", "Citation lift", "× popularity control"]}
            rows={n.rows.map((r) =>
              r.status === "ok"
                ? [
                    r.label,
                    pct(r.nonObviousShare),
                    pct(r.correctNonObviousShare),
                    pct(r.nonObviousPrecision),
                    `${(r.citationLift ?? 0).toFixed(1)}×`,
                    `${(r.popularityRatio ?? 0).toFixed(1)}×`,
                  ]
                : [`${r.label} (${r.status}: ${r.reason ?? ""})`, "–", "–", "–", "–", "–"],
            )}
          />
        </Section>
      )}
      <RecallSection report={report} name="fusion" />
      <RecallSection report={report} name="leaveOneOut" />
      {a && (
        <Section id="attribution" title="Attribution" note={`Reference: ${a.reference}`}>
          <p className="text-sm text-ink">
            Headline ({a.fusion} over {a.lists}): precision <strong>{fixed3(a.precision)}</strong>, credited set within the reference in {pct(a.subsetShare)} of{" "}
            {a.pairs} pairs (paper: {fixed3(a.paper.precision)}, {pct(a.paper.subsetShare)}).
          </p>
          <Table
            caption="Attribution precision"
            header={["Fusion over lists", "Setting", "Precision", "Subset share", ...FACETS, "Pairs"]}
            rows={a.rows.map((r) =>
              r.status === "ok"
                ? [r.label, r.setting, fixed3(r.precision), pct(r.subsetShare), ...FACETS.map((f) => fixed3(r.perFacet?.[f])), r.pairs ?? ""]
                : [`${r.label} (${r.status}: ${r.reason ?? ""})`, r.setting, "–", "–", ...FACETS.map(() => "–"), ""],
            )}
          />
        </Section>
      )}
      {c && (
        <Section
          id="coverage"
          title="Coverage"
          note="How much of the corpus can be a retrieval target: papers with an incoming edge at each pruning level K, and the training-target coverage of each distillation recipe."
        >
          <Table
            caption="Coverage by K"
            header={["K", "Covered", "Coverage", ...FACETS, "Paper"]}
            rows={c.byK.map((r) => [r.k, r.covered, pct(r.share), ...FACETS.map((f) => pct(r.perFacet[f])), r.paper === undefined ? "" : pct(r.paper)])}
          />
          <Table
            caption="Target coverage per recipe"
            header={["Recipe", "Examples", "Target coverage", "DocIDs under K_min", "Paper"]}
            rows={c.variants.map((v) => [
              v.label,
              v.examples?.toLocaleString("en-US") ?? "–",
              pct(v.targetCoverage),
              v.identifiersUnderKMin ?? "–",
              v.paper === undefined ? "" : pct(v.paper),
            ])}
          />
          <SvgFigure svg={coverageLadderSvg(c)} caption="The coverage ladder: graph coverage by K, then training-target coverage per recipe." />
        </Section>
      )}
      {(["walkDepth", "alpha", "kMin", "identifiers", "supervision"] as const).map((name) => (
        <RecallSection key={name} report={report} name={name} />
      ))}
    </>
  );
}

export default function EvaluationPage() {
  const latest = readLatestReport();
  return (
    <div className="mx-auto max-w-6xl px-4 pb-10 pt-10 sm:px-6">
      <p className="text-xs font-medium uppercase tracking-wide text-ink-faint">Evaluation</p>
      <h1 className="mt-1 text-2xl font-semibold tracking-tight">How good are the related papers?</h1>
      {latest.status === "ok" ? (
        <Report report={latest.report} file={latest.path} csfcube={readLatestCsfcube(latest.path)} />
      ) : (
        <div role="status" className="mt-6 max-w-2xl rounded-lg border border-line bg-surface p-4 text-sm">
          <p className="font-medium text-ink">{latest.status === "missing" ? "No evaluation report yet." : "The evaluation report could not be read."}</p>
          <p className="mt-1 text-ink-muted">
            {latest.status === "missing" ? "Expected" : `${latest.message} in`} <code className="text-xs">{latest.path}</code>. Produce it with{" "}
            <code className="rounded bg-canvas px-1.5 py-0.5 text-xs">npm run graft -- eval --suite all</code>.
          </p>
        </div>
      )}
    </div>
  );
}
