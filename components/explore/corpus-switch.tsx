"use client";

import { useQuery } from "@tanstack/react-query";
import type { CorpusOverview } from "@/lib/corpus";
import { fetchJson } from "@/lib/http/client";
import { formatCount } from "../format";

/** The label of a corpus in the switch: its name and size. */
export function corpusOptionLabel(c: Pick<CorpusOverview, "name" | "papers">): string {
  return `${c.name} (${formatCount(c.papers)} papers)`;
}

/**
 * Which corpus the explorer searches, when the store holds more than one (a lab's own import
 * beside the demo corpus, the 64k anthology): a switch on the start page. With one corpus it is
 * not shown.
 */
export function CorpusSwitch({ corpus, onChange }: { corpus: string; onChange: (name: string) => void }) {
  const corpora = useQuery({
    queryKey: ["corpora"],
    queryFn: ({ signal }) => fetchJson<{ corpora: CorpusOverview[] }>("/api/corpora", { signal }),
    staleTime: 60_000,
  });
  const list = corpora.data?.corpora ?? [];
  if (list.length < 2) return null;
  return (
    <label className="mb-3 flex items-center gap-2 text-sm text-ink-muted">
      <span>Search in</span>
      <select
        aria-label="Corpus"
        value={corpus}
        onChange={(e) => onChange(e.target.value)}
        className="h-8 rounded-md border border-line-strong bg-surface px-2 text-sm text-ink"
      >
        {list.some((c) => c.name === corpus) ? null : <option value={corpus}>{corpus}</option>}
        {list.map((c) => (
          <option key={c.name} value={c.name}>
            {corpusOptionLabel(c)}
          </option>
        ))}
      </select>
    </label>
  );
}
