"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { Card, formButtonClass as buttonClass, formFieldClass as inputClass, formPrimaryButtonClass as primaryButtonClass, labelClass } from "@/components/ui";
import { ApiError, fetchJson, sendJson } from "@/lib/http/client";
import type { JobView } from "@/lib/jobs";
import type { CorpusUploadResult } from "@/lib/query/corpus-upload";

// The admin's corpus upload: file(s), format (or detect), target corpus (new or existing) →
// POST /api/admin/corpora/import, then what was imported, or the file's problems line by line,
// and the steps that take the corpus on to a servable graph.

const fmt = (n: number) => n.toLocaleString("en-US");

function Count({ label, value, testId }: { label: string; value: number; testId: string }) {
  return (
    <div>
      <dt className="text-xs text-ink-faint">{label}</dt>
      <dd className="text-xl font-semibold tabular-nums" data-testid={testId}>
        {fmt(value)}
      </dd>
    </div>
  );
}

function Result({ r }: { r: CorpusUploadResult }) {
  // A graph build needs facets: offered here only once every paper has them (else extraction comes first, on the CLI).
  const build = useMutation({
    mutationFn: () => sendJson<{ job: JobView; created: boolean }>("/api/admin/jobs", "POST", { stage: "graph", params: { corpus: r.corpus } }),
  });
  const n = r.papers.created + r.alreadyPresent;
  return (
    <div className="space-y-4" data-testid="import-result">
      <p className="text-sm" data-testid="import-summary">
        {r.files.join(", ")} ({r.formatName}): {fmt(n)} paper{n === 1 ? "" : "s"} into {r.newCorpus ? "the new corpus" : "the corpus"}{" "}
        <span className="font-mono">{r.corpus}</span> in {r.seconds.toFixed(1)} s.
      </p>
      <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
        <Count label="Papers added" value={r.papers.created} testId="import-added" />
        <Count label="Already present" value={r.alreadyPresent} testId="import-present" />
        <Count label="Without abstract" value={r.withoutAbstract} testId="import-without-abstract" />
        <Count label="Citations in the corpus" value={r.citations.total} testId="import-citations" />
      </dl>
      {r.papers.updated > 0 && <p className="text-sm text-ink-muted">{fmt(r.papers.updated)} of the papers already present were updated from the file.</p>}
      {r.withoutAbstract > 0 && (
        <p className="text-sm text-ink-muted">Papers without an abstract are imported with an empty one: their facets can only come from the title.</p>
      )}
      {[
        { title: `Skipped records (${fmt(r.skipped.count)})`, lines: r.skipped.lines, testId: "import-skipped" },
        { title: `Notes (${fmt(r.notices.count)}): imported with something left out`, lines: r.notices.lines, testId: "import-notes" },
      ]
        .filter((s) => s.lines.length > 0)
        .map((s) => (
          <details key={s.testId} data-testid={s.testId}>
            <summary className="cursor-pointer text-sm text-ink-muted">{s.title}</summary>
            <pre className="mt-2 max-h-60 overflow-auto rounded-md bg-canvas px-3 py-2 text-xs">{s.lines.join("\n")}</pre>
          </details>
        ))}
      <div className="space-y-2 border-t border-line pt-4" data-testid="import-next">
        <h3 className="text-sm font-semibold">Next</h3>
        <p className="text-sm text-ink-muted">
          The corpus holds {fmt(r.corpusPapers)} papers, {fmt(r.papersWithoutFacets)} without facets. Run from the repository root:
        </p>
        <ol className="list-decimal space-y-1.5 pl-5 text-sm">
          {r.nextSteps.map((s) => (
            <li key={s.command}>
              {s.what}: <code className="rounded bg-canvas px-1.5 py-0.5 font-mono text-xs">{s.command}</code>
            </li>
          ))}
        </ol>
        <div className="flex flex-wrap items-center gap-2 pt-1">
          <Link href={`/papers?corpus=${encodeURIComponent(r.corpus)}`} className={buttonClass} data-testid="import-browse">
            Browse {r.corpus}
          </Link>
          {r.papersWithoutFacets === 0 && r.corpusPapers > 0 && (
            <button type="button" className={buttonClass} onClick={() => build.mutate()} disabled={build.isPending || build.isSuccess}>
              {build.isPending ? "Queuing…" : "Queue the graph build as a job"}
            </button>
          )}
          {build.data && (
            <span className="text-sm text-ink-muted">
              Job {build.data.job.id} {build.data.created ? "queued" : "already queued"}:{" "}
              <Link href="/admin/jobs" className="underline">
                follow it on the jobs page
              </Link>
              .
            </span>
          )}
          {build.error && (
            <span role="alert" className="text-sm text-red-800">
              {(build.error as Error).message}
            </span>
          )}
        </div>
      </div>
    </div>
  );
}

/** A refused import: the message, and the records it names. */
function ImportError({ err }: { err: ApiError }) {
  return (
    <Card testId="import-error">
      <div role="alert" className="space-y-2">
        <p className="text-sm font-medium text-red-800">{err.message}</p>
        {err.issues.length > 0 && (
          <pre className="max-h-80 overflow-auto rounded-md bg-red-50 px-3 py-2 text-xs text-red-900" data-testid="import-issues">
            {err.issues.map((i) => `${i.path}: ${i.message}`).join("\n")}
          </pre>
        )}
      </div>
    </Card>
  );
}

export function CorpusImportForm({ formats, corpora }: { formats: { value: string; label: string }[]; corpora: string[] }) {
  const router = useRouter();
  const ids = { file: useId(), format: useId(), corpus: useId(), list: useId(), description: useId() };
  const [corpus, setCorpus] = useState("");
  const upload = useMutation({
    mutationFn: (body: FormData) => fetchJson<CorpusUploadResult>("/api/admin/corpora/import", { method: "POST", body }),
    // The corpus list on the page counts the new papers.
    onSuccess: () => router.refresh(),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    upload.mutate(new FormData(e.currentTarget));
  };
  const err = upload.error instanceof ApiError ? upload.error : upload.error ? new ApiError(0, "internal", (upload.error as Error).message) : null;
  const existing = corpora.includes(corpus.trim());
  return (
    <div className="space-y-6">
      <Card title="Import papers">
        <form onSubmit={submit} className="grid gap-4 sm:grid-cols-2" aria-label="Import papers" data-testid="import-form">
          <label htmlFor={ids.file} className="sm:col-span-2">
            <span className={labelClass}>File (several for a Semantic Scholar sample or a corpus directory: papers, abstracts, citations)</span>
            <input
              id={ids.file}
              name="file"
              type="file"
              multiple
              required
              className="block w-full text-sm text-ink file:mr-3 file:h-9 file:rounded-md file:border file:border-line-strong file:bg-surface file:px-3 file:text-sm file:font-medium"
              data-testid="import-file"
            />
          </label>
          <label htmlFor={ids.format}>
            <span className={labelClass}>Format</span>
            <select id={ids.format} name="format" className={inputClass} defaultValue="detect" data-testid="import-format">
              <option value="detect">Detect from the file name and first line</option>
              {formats.map((f) => (
                <option key={f.value} value={f.value}>
                  {f.value}: {f.label}
                </option>
              ))}
            </select>
          </label>
          <label htmlFor={ids.corpus}>
            <span className={labelClass}>Corpus (a new name, or an existing corpus to add to)</span>
            <input
              id={ids.corpus}
              name="corpus"
              required
              maxLength={64}
              pattern="[A-Za-z0-9][A-Za-z0-9._\-]*"
              title="letters, digits, '.', '_' and '-'"
              list={ids.list}
              className={inputClass}
              value={corpus}
              onChange={(e) => setCorpus(e.target.value)}
              placeholder="my-library"
              data-testid="import-corpus"
            />
            <datalist id={ids.list}>
              {corpora.map((c) => (
                <option key={c} value={c} />
              ))}
            </datalist>
            {corpus.trim() && (
              <span className="mt-1 block text-xs text-ink-faint" data-testid="import-corpus-note">
                {existing ? "Adds to this corpus: papers already in it are matched by id and kept." : "A new corpus."}
              </span>
            )}
          </label>
          <label htmlFor={ids.description} className="sm:col-span-2">
            <span className={labelClass}>Description (optional, shown in the app)</span>
            <input id={ids.description} name="description" maxLength={2000} className={inputClass} />
          </label>
          <div className="flex flex-wrap items-center justify-between gap-3 sm:col-span-2">
            <label className="flex items-center gap-2 text-sm text-ink-muted">
              <input type="checkbox" name="skipInvalid" />
              Skip invalid records (listed) instead of refusing the file
            </label>
            <button type="submit" className={primaryButtonClass} disabled={upload.isPending} data-testid="import-submit">
              {upload.isPending ? "Importing…" : "Import"}
            </button>
          </div>
        </form>
      </Card>
      {err && <ImportError err={err} />}
      {upload.data && !err && (
        <Card title="Imported">
          <Result key={`${upload.submittedAt}`} r={upload.data} />
        </Card>
      )}
    </div>
  );
}
