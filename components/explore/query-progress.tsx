"use client";

import { useEffect, useState } from "react";
import type { QueryStep } from "@/lib/query";
import { Icon } from "../ui";
import type { Progress, QueryInput } from "./related-client";

const STEP_LABELS: Record<QueryStep, string> = {
  upload: "Send",
  parse: "Read",
  extract: "Extract facets",
  embed: "Embed items",
  retrieve: "Retrieve",
  fuse: "Fuse",
};

/** The steps a query of this kind goes through, in order (corpus papers have stored facets). */
export function stepsFor(kind: QueryInput["kind"]): QueryStep[] {
  if (kind === "paper") return ["upload", "embed", "retrieve", "fuse"];
  return ["upload", "parse", "extract", "embed", "retrieve", "fuse"];
}

/**
 * A step indicator for a running query: completed steps ticked, the current one spinning with
 * the server's message, and the elapsed time. Announced politely to screen readers.
 */
export function QueryProgress({ kind, progress, compact = false }: { kind: QueryInput["kind"]; progress: Progress[]; compact?: boolean }) {
  const steps = stepsFor(kind);
  // Steps the server reports that this kind does not list (e.g. "embed" for a paper) are shown too.
  for (const p of progress) if (!steps.includes(p.step)) steps.splice(Math.max(0, steps.indexOf("retrieve")), 0, p.step);
  const last = progress.at(-1);
  const current = last ? steps.indexOf(last.step) : 0;
  const elapsed = useElapsed();
  const message = last?.message ?? (kind === "file" ? "Uploading the file…" : "Sending the query…");

  return (
    <div
      role="status"
      aria-live="polite"
      data-testid="query-progress"
      className={`rounded-lg border border-line bg-surface shadow-xs ${compact ? "px-4 py-3" : "px-5 py-4"}`}
    >
      <div className="flex items-center justify-between gap-4">
        <p className="flex min-w-0 items-center gap-2.5 text-sm font-medium">
          <span className="size-4 shrink-0 animate-spin rounded-full border-2 border-line-strong border-t-ink" aria-hidden="true" />
          <span className="truncate" data-testid="query-progress-message">
            {message}
          </span>
        </p>
        <span className="shrink-0 text-xs tabular-nums text-ink-faint" aria-hidden="true">
          {elapsed.toFixed(1)} s
        </span>
      </div>
      <ol className="mt-3 flex flex-wrap items-center gap-x-1 gap-y-2 text-xs" aria-label="Steps">
        {steps.map((s, i) => {
          const state = i < current ? "done" : i === current ? "active" : "todo";
          return (
            <li key={s} className="flex items-center gap-1" data-step={s} data-state={state}>
              {i > 0 && <span aria-hidden="true" className={`mx-1 h-px w-4 ${i <= current ? "bg-ink-muted" : "bg-line-strong"}`} />}
              <span
                className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 font-medium ${
                  state === "done" ? "bg-canvas text-ink-muted" : state === "active" ? "bg-ink text-white" : "text-ink-faint"
                }`}
              >
                {state === "done" && <Icon name="check" className="size-3" />}
                {s === "upload" && kind === "file" ? "Upload" : STEP_LABELS[s]}
                <span className="sr-only">{state === "done" ? " (done)" : state === "active" ? " (in progress)" : ""}</span>
              </span>
            </li>
          );
        })}
      </ol>
    </div>
  );
}

function useElapsed(): number {
  const [start] = useState(() => performance.now());
  const [now, setNow] = useState(start);
  useEffect(() => {
    const id = setInterval(() => setNow(performance.now()), 100);
    return () => clearInterval(id);
  }, []);
  return (now - start) / 1000;
}
