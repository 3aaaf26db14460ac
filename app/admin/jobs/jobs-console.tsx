"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import {
  Card,
  formButtonClass as buttonClass,
  formFieldClass as inputClass,
  formPrimaryButtonClass as primaryButtonClass,
  labelClass,
  ProgressBar,
} from "@/components/ui";
import { ApiError, fetchJson, sendJson } from "@/lib/http/client";
import type { JobDetail, JobStatus, JobView } from "@/lib/jobs";

// The live jobs console: a list of jobs polled while any is active, the selected job's progress
// and log (polled for new lines), a form that starts a graph build, cancel and retry.

interface JobsList {
  jobs: JobView[];
  stages: { name: string; description: string }[];
  corpora: string[];
}

const ACTIVE: JobStatus[] = ["queued", "running"];

const STATUS_STYLE: Record<JobStatus, string> = {
  queued: "bg-canvas text-ink-muted",
  running: "bg-accent/10 text-accent",
  succeeded: "bg-emerald-50 text-emerald-800",
  failed: "bg-red-50 text-red-800",
  cancelled: "bg-canvas text-ink-faint",
};

function StatusBadge({ status }: { status: JobStatus }) {
  return <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${STATUS_STYLE[status]}`}>{status}</span>;
}

/** How long before `now` (the time the data was fetched, so rendering stays pure). */
function ago(iso: string | null, now: number): string {
  if (!iso) return "";
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  return s < 90 ? `${s} s ago` : s < 5400 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
}

/** A job's progress (a fraction, clamped) as a live bar. */
function Progress({ value, label }: { value: number; label: string }) {
  return <ProgressBar value={Math.round(Math.max(0, Math.min(1, value)) * 100)} total={100} label={label} live />;
}

function StartBuildForm({ corpora, onStarted }: { corpora: string[]; onStarted: (id: number) => void }) {
  const client = useQueryClient();
  const [corpus, setCorpus] = useState("");
  const [k, setK] = useState("20");
  const [alpha, setAlpha] = useState("");
  // Blank: the corpus's default (the demo corpus's shipped text encoder, else USE-lite; lib/graph/build.ts).
  const [embedder, setEmbedder] = useState("");
  const start = useMutation({
    mutationFn: () =>
      sendJson<{ job: JobView; created: boolean }>("/api/admin/jobs", "POST", {
        stage: "graph",
        params: { corpus: corpus || corpora[0], k: Number(k), ...(alpha.trim() ? { alpha: Number(alpha) } : {}), ...(embedder.trim() ? { embedder } : {}) },
      }),
    onSuccess: (r) => {
      void client.invalidateQueries({ queryKey: ["admin-jobs"] });
      onStarted(r.job.id);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    start.mutate();
  };
  const err = start.error instanceof ApiError ? start.error : null;
  return (
    <form onSubmit={submit} className="grid gap-3 sm:grid-cols-[1fr_6rem_6rem_1fr_auto] sm:items-end" aria-label="Start a graph build">
      <label>
        <span className={labelClass}>Corpus</span>
        <select className={inputClass} value={corpus || corpora[0] || ""} onChange={(e) => setCorpus(e.target.value)} disabled={corpora.length === 0}>
          {corpora.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
      </label>
      <label>
        <span className={labelClass}>K</span>
        <input className={inputClass} type="number" min={1} max={200} value={k} onChange={(e) => setK(e.target.value)} />
      </label>
      <label>
        <span className={labelClass}>α</span>
        <input
          className={inputClass}
          type="number"
          min={0}
          max={1}
          step={0.05}
          value={alpha}
          placeholder="default"
          title="blank: the stage's default (0.25 for the default mixed similarity)"
          onChange={(e) => setAlpha(e.target.value)}
        />
      </label>
      <label>
        <span className={labelClass}>Embedder</span>
        <input
          className={inputClass}
          value={embedder}
          maxLength={300}
          placeholder="the corpus's default"
          title="blank: the corpus's default (the demo corpus's shipped text encoder, else use-lite); or use-lite, minilm[:model], lsa:<folder>"
          onChange={(e) => setEmbedder(e.target.value)}
        />
      </label>
      <button type="submit" className={primaryButtonClass} disabled={start.isPending || corpora.length === 0}>
        {start.isPending ? "Starting…" : "Start graph build"}
      </button>
      {err && (
        <p role="alert" className="text-sm text-red-800 sm:col-span-5">
          {err.message}
          {err.issues.length > 0 && ` (${err.issues.map((i) => `${i.path}: ${i.message}`).join("; ")})`}
        </p>
      )}
      {start.data && !start.data.created && (
        <p className="text-sm text-ink-muted sm:col-span-5">The same build is already queued or running: job {start.data.job.id}.</p>
      )}
    </form>
  );
}

/** A job's corpus, build, attempts, worker and times (relative to `now`). */
function JobFacts({ d, now }: { d: JobDetail; now: number }) {
  return (
    <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4">
      <dt className="text-ink-faint">Corpus</dt>
      <dd>{d.corpus ?? "—"}</dd>
      <dt className="text-ink-faint">Build</dt>
      <dd>{d.buildId === null ? "—" : `${d.buildId}${d.serving ? " (served)" : ""}`}</dd>
      <dt className="text-ink-faint">Attempts</dt>
      <dd>{d.attempts}</dd>
      <dt className="text-ink-faint">Worker</dt>
      <dd className="truncate font-mono text-xs">{d.workerId ?? "—"}</dd>
      <dt className="text-ink-faint">Queued</dt>
      <dd>{ago(d.createdAt, now)}</dd>
      <dt className="text-ink-faint">Started</dt>
      <dd>{ago(d.startedAt, now) || "—"}</dd>
      <dt className="text-ink-faint">Finished</dt>
      <dd>{ago(d.finishedAt, now) || "—"}</dd>
    </dl>
  );
}

/** One job's live view; keyed by id, so selecting another job starts a fresh log. */
function JobPanel({ id }: { id: number }) {
  const client = useQueryClient();
  const [logs, setLogs] = useState<JobDetail["logs"]>([]);
  const lastLog = useRef(0);
  const logBox = useRef<HTMLPreElement>(null);
  const detail = useQuery({
    queryKey: ["admin-job", id],
    queryFn: async () => {
      const d = await fetchJson<JobDetail>(`/api/admin/jobs/${id}?logs=500${lastLog.current ? `&logsAfter=${lastLog.current}` : ""}`);
      if (d.logs.length) {
        lastLog.current = d.logs[d.logs.length - 1].id;
        setLogs((old) => [...old, ...d.logs].slice(-2000));
      }
      return d;
    },
    refetchInterval: (q) => (q.state.data && !ACTIVE.includes(q.state.data.status) ? false : 1000),
    staleTime: 0,
  });
  useEffect(() => {
    const box = logBox.current;
    if (box) box.scrollTop = box.scrollHeight;
  }, [logs.length]);
  const act = useMutation({
    mutationFn: (action: "cancel" | "retry") => fetchJson<JobDetail>(`/api/admin/jobs/${id}/${action}`, { method: "POST" }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ["admin-jobs"] });
      void client.invalidateQueries({ queryKey: ["admin-job", id] });
    },
  });
  const d = detail.data;
  if (detail.error)
    return (
      <p role="alert" className="text-sm text-red-800">
        {(detail.error as Error).message}
      </p>
    );
  if (!d) return <p className="text-sm text-ink-muted">Loading job {id}…</p>;
  const now = detail.dataUpdatedAt;
  const waiting = d.status === "queued" && now - Date.parse(d.createdAt) > 10_000;
  return (
    <div className="space-y-4" data-testid="job-detail">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h3 className="text-base font-semibold tracking-tight">
          Job {d.id} · {d.stage} <StatusBadge status={d.status} />
        </h3>
        <div className="flex gap-2">
          {ACTIVE.includes(d.status) && (
            <button type="button" className={buttonClass} onClick={() => act.mutate("cancel")} disabled={act.isPending}>
              Cancel
            </button>
          )}
          {(d.status === "failed" || d.status === "cancelled") && (
            <button type="button" className={buttonClass} onClick={() => act.mutate("retry")} disabled={act.isPending}>
              Retry
            </button>
          )}
        </div>
      </div>
      <div className="space-y-1.5">
        <Progress value={d.progress} label={`Job ${d.id} progress`} />
        <p className="text-sm text-ink-muted" data-testid="job-message">
          {Math.round(d.progress * 100)}% · {d.message}
        </p>
      </div>
      {waiting && (
        <p className="rounded-md bg-canvas px-3 py-2 text-sm text-ink-muted">
          No worker has taken this job yet. Start one with <code className="font-mono">npm run worker</code>.
        </p>
      )}
      {act.error && (
        <p role="alert" className="text-sm text-red-800">
          {(act.error as Error).message}
        </p>
      )}
      {d.error && (
        <pre role="alert" className="overflow-x-auto whitespace-pre-wrap rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
          {d.error}
        </pre>
      )}
      <JobFacts d={d} now={now} />
      <details>
        <summary className="cursor-pointer text-sm text-ink-muted">Parameters{d.result ? " and result" : ""}</summary>
        <pre className="mt-2 overflow-x-auto rounded-md bg-canvas px-3 py-2 text-xs">{JSON.stringify({ params: d.params, result: d.result }, null, 2)}</pre>
      </details>
      <div>
        <h4 className="mb-1 text-sm font-medium">Log</h4>
        <pre ref={logBox} className="max-h-80 overflow-y-auto rounded-md bg-canvas px-3 py-2 text-xs leading-relaxed" data-testid="job-log">
          {logs.length === 0
            ? "(no lines yet)"
            : logs.map((l) => (
                <span key={l.id} className={l.level === "error" ? "text-red-800" : l.level === "warn" ? "text-amber-800" : undefined}>
                  {`${new Date(l.at).toLocaleTimeString()} ${l.message}\n`}
                </span>
              ))}
        </pre>
      </div>
    </div>
  );
}

export function JobsConsole() {
  const [selected, setSelected] = useState<number | null>(null);
  const list = useQuery({
    queryKey: ["admin-jobs"],
    queryFn: () => fetchJson<JobsList>("/api/admin/jobs?limit=50"),
    refetchInterval: (q) => (q.state.data?.jobs.some((j) => ACTIVE.includes(j.status)) ? 1500 : 10_000),
    staleTime: 0,
  });
  const jobs = list.data?.jobs ?? [];
  const current = selected ?? jobs[0]?.id ?? null;
  return (
    <div className="space-y-6">
      <Card title="Start a graph build">
        <StartBuildForm corpora={list.data?.corpora ?? []} onStarted={setSelected} />
      </Card>
      <div className="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <Card title="Jobs">
          {list.error && (
            <p role="alert" className="text-sm text-red-800">
              {(list.error as Error).message}
            </p>
          )}
          {jobs.length === 0 && !list.isLoading && <p className="text-sm text-ink-muted">No jobs yet.</p>}
          <ul className="divide-y divide-line" aria-label="Jobs">
            {jobs.map((j) => (
              <li key={j.id}>
                <button
                  type="button"
                  onClick={() => setSelected(j.id)}
                  aria-current={j.id === current ? "true" : undefined}
                  className={`w-full space-y-1.5 px-2 py-2.5 text-left text-sm transition-colors hover:bg-canvas ${j.id === current ? "bg-canvas" : ""}`}
                >
                  <span className="flex items-center justify-between gap-2">
                    <span className="font-medium">
                      #{j.id} {j.stage}
                      {j.corpus ? <span className="font-normal text-ink-muted"> · {j.corpus}</span> : null}
                    </span>
                    <StatusBadge status={j.status} />
                  </span>
                  {j.status === "running" && <Progress value={j.progress} label={`Job ${j.id} progress`} />}
                  <span className="block truncate text-xs text-ink-faint">
                    {j.error ? j.error : j.message} · {ago(j.createdAt, list.dataUpdatedAt)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </Card>
        <Card>
          {current === null ? <p className="text-sm text-ink-muted">Select a job to see its progress and log.</p> : <JobPanel key={current} id={current} />}
        </Card>
      </div>
    </div>
  );
}
