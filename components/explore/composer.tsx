"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import type { PaperList } from "@/lib/corpus";
import { DEMO } from "@/lib/demo/examples";
import { countedChars, DEFAULT_MIN_CHARS } from "@/lib/input/text-amount";
import { fetchJson } from "@/lib/http/client";
import { FacetCounts } from "../facets";
import { formatAuthors, shortVenue } from "../format";
import { Icon, primaryButtonClass, quietButtonClass, Spinner } from "../ui";

type Tab = "text" | "file" | "corpus";

const TABS: { id: Tab; label: string; icon: "text" | "upload" | "search" }[] = [
  { id: "text", label: "Paste text", icon: "text" },
  { id: "file", label: "Upload a PDF", icon: "upload" },
  { id: "corpus", label: "Search the corpus", icon: "search" },
];

const DRAFT_KEY = "graft.explore.draft";
const ACCEPT = ".pdf,.txt,.json,application/pdf,text/plain,application/json";

export interface ComposerProps {
  corpus: string;
  busy: boolean;
  onText: (text: string) => void;
  onFile: (file: File) => void;
  onPaper: (paperId: string) => void;
}

/**
 * The three ways in: paste text, drop a file, or pick a corpus paper by title. A tab list with
 * roving focus (arrow keys), each panel a fixed minimum height so switching does not shift the page.
 */
export function Composer(props: ComposerProps) {
  const [tab, setTab] = useState<Tab>("text");
  const baseId = useId();
  const tabRefs = useRef<Record<Tab, HTMLButtonElement | null>>({ text: null, file: null, corpus: null });

  function onTabKey(e: KeyboardEvent<HTMLButtonElement>) {
    const i = TABS.findIndex((t) => t.id === tab);
    const next =
      e.key === "ArrowRight"
        ? (i + 1) % TABS.length
        : e.key === "ArrowLeft"
          ? (i - 1 + TABS.length) % TABS.length
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? TABS.length - 1
              : -1;
    if (next < 0) return;
    e.preventDefault();
    setTab(TABS[next].id);
    tabRefs.current[TABS[next].id]?.focus();
  }

  return (
    <div className="overflow-hidden rounded-xl border border-line bg-surface shadow-sm" data-testid="composer">
      <div role="tablist" aria-label="How to give a paper" className="flex border-b border-line bg-canvas/60 px-2 pt-2">
        {TABS.map((t) => (
          <button
            key={t.id}
            ref={(el) => {
              tabRefs.current[t.id] = el;
            }}
            role="tab"
            type="button"
            id={`${baseId}-tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`${baseId}-panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => setTab(t.id)}
            onKeyDown={onTabKey}
            className={`-mb-px inline-flex items-center gap-2 rounded-t-md border px-3.5 py-2 text-sm font-medium transition-colors ${
              tab === t.id ? "border-line border-b-surface bg-surface text-ink" : "border-transparent text-ink-muted hover:text-ink"
            }`}
          >
            <Icon name={t.icon} className="size-4" />
            {t.label}
          </button>
        ))}
      </div>
      {TABS.map((t) => (
        <div
          key={t.id}
          role="tabpanel"
          id={`${baseId}-panel-${t.id}`}
          aria-labelledby={`${baseId}-tab-${t.id}`}
          hidden={tab !== t.id}
          className="min-h-[17.5rem] p-4 sm:p-5"
        >
          {t.id === "text" && <TextPanel {...props} />}
          {t.id === "file" && <FilePanel {...props} />}
          {t.id === "corpus" && tab === "corpus" && <CorpusPanel {...props} />}
        </div>
      ))}
    </div>
  );
}

function TextPanel({ busy, onText }: ComposerProps) {
  const id = useId();
  const [text, setText] = useState("");
  // A draft survives a reload in this tab (restored after hydration: the server has no storage).
  useEffect(() => {
    try {
      const saved = window.sessionStorage.getItem(DRAFT_KEY);
      // eslint-disable-next-line react-hooks/set-state-in-effect -- one-time restore of browser-only state
      if (saved) setText(saved);
    } catch {
      // storage disabled
    }
  }, []);
  const update = (v: string) => {
    setText(v);
    try {
      window.sessionStorage.setItem(DRAFT_KEY, v);
    } catch {
      // storage disabled
    }
  };
  // The server's minimum, counted as the server counts (lib/input/text-amount.ts).
  const chars = countedChars(text);
  const tooShort = chars < DEFAULT_MIN_CHARS;
  const example = DEMO.abstracts[0];
  const submit = () => {
    if (!tooShort && !busy) onText(text.trim());
  };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      className="flex h-full flex-col"
    >
      <div className="flex items-baseline justify-between gap-3">
        <label htmlFor={id} className="text-sm font-medium">
          Title and abstract
        </label>
        {example && (
          <button type="button" className={quietButtonClass} onClick={() => update(`${example.title}\n\n${example.abstract}`)}>
            Use an example abstract
          </button>
        )}
      </div>
      <textarea
        id={id}
        value={text}
        onChange={(e) => update(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
            e.preventDefault();
            submit();
          }
        }}
        rows={7}
        placeholder={
          "Paste a title on the first line, then the abstract (or a whole draft).\n\nGraft extracts its problems, methods, results and contributions and finds papers related through each."
        }
        className="mt-1.5 w-full resize-y rounded-md border border-line-strong bg-surface px-3 py-2.5 text-[0.9375rem] leading-relaxed text-ink shadow-xs placeholder:text-ink-faint hover:border-ink-faint"
        aria-describedby={`${id}-hint`}
      />
      <div className="mt-3 flex flex-wrap items-center justify-between gap-3">
        <p id={`${id}-hint`} className={`text-xs ${chars > 0 && tooShort ? "text-ink-muted" : "text-ink-faint"}`} data-testid="paste-hint" aria-live="polite">
          {chars > 0 && tooShort
            ? `${chars} of at least ${DEFAULT_MIN_CHARS} characters: paste the title and the whole abstract.`
            : "Ctrl + Enter to search. Nothing you paste is stored."}
        </p>
        <button type="submit" className={primaryButtonClass} disabled={tooShort || busy}>
          Find related papers
          <Icon name="chevronRight" className="size-4" />
        </button>
      </div>
    </form>
  );
}

function FilePanel({ busy, onFile }: ComposerProps) {
  const id = useId();
  const [over, setOver] = useState(false);
  const [picked, setPicked] = useState<File | null>(null);
  const take = (file: File | undefined) => {
    if (!file || busy) return;
    setPicked(file);
    onFile(file);
  };
  return (
    <div className="flex h-full flex-col">
      <label
        htmlFor={id}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          take(e.dataTransfer.files[0]);
        }}
        data-testid="drop-zone"
        className={`flex min-h-52 cursor-pointer flex-col items-center justify-center gap-2 rounded-lg border-2 border-dashed px-6 py-8 text-center transition-colors has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-focus ${
          over ? "border-ink-muted bg-canvas" : "border-line-strong hover:border-ink-faint hover:bg-canvas/60"
        }`}
      >
        <span className="flex size-10 items-center justify-center rounded-full bg-canvas text-ink-muted">
          <Icon name="upload" className="size-5" />
        </span>
        <span className="text-[0.9375rem] font-medium">Drop a PDF here, or choose a file</span>
        <span className="text-xs text-ink-faint">PDF with a text layer, plain text, or a JSON paper record · up to 20 MB</span>
        {picked && (
          <span className="mt-1 inline-flex items-center gap-1.5 rounded-md bg-canvas px-2 py-1 font-mono text-xs text-ink-muted">
            <Icon name="file" className="size-3.5" />
            {picked.name} · {(picked.size / 1024).toFixed(0)} KB
          </span>
        )}
        <input
          id={id}
          type="file"
          accept={ACCEPT}
          className="sr-only"
          aria-label="Paper file (PDF, text or JSON)"
          disabled={busy}
          onChange={(e) => {
            take(e.target.files?.[0]);
            e.target.value = "";
          }}
        />
      </label>
      <p className="mt-3 text-xs text-ink-faint">The file is read on the server for this query only; it is not added to the corpus.</p>
    </div>
  );
}

function CorpusPanel({ corpus, busy, onPaper }: ComposerProps) {
  const id = useId();
  const [q, setQ] = useState("");
  const [debounced, setDebounced] = useState("");
  useEffect(() => {
    const t = setTimeout(() => setDebounced(q.trim()), 250);
    return () => clearTimeout(t);
  }, [q]);
  const search = useQuery({
    queryKey: ["paper-search", corpus, debounced],
    queryFn: ({ signal }) => fetchJson<PaperList>(`/api/papers?${new URLSearchParams({ corpus, q: debounced, pageSize: "6" })}`, { signal }),
    enabled: debounced.length >= 2,
  });
  return (
    <div>
      <label htmlFor={id} className="text-sm font-medium">
        Paper title in <span className="font-mono">{corpus}</span>
      </label>
      <div className="relative mt-1.5">
        <Icon name="search" className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-ink-faint" />
        <input
          id={id}
          type="search"
          autoFocus
          value={q}
          onChange={(e) => setQ(e.target.value)}
          placeholder="e.g. attention, parsing, Europarl"
          className="h-10 w-full rounded-md border border-line-strong bg-surface pl-9 pr-3 text-[0.9375rem] shadow-xs hover:border-ink-faint"
          aria-describedby={`${id}-status`}
        />
      </div>
      <div id={`${id}-status`} className="mt-2 min-h-5 text-xs text-ink-faint" aria-live="polite">
        {debounced.length < 2 ? (
          "Type at least two letters of a title."
        ) : search.isFetching ? (
          <Spinner label="Searching" />
        ) : search.error ? (
          `Search failed: ${search.error.message}`
        ) : search.data ? (
          `${search.data.total} ${search.data.total === 1 ? "paper matches" : "papers match"}${search.data.total > search.data.items.length ? `; showing ${search.data.items.length}` : ""}.`
        ) : null}
      </div>
      {search.data && search.data.items.length > 0 && (
        <ul className="mt-1 divide-y divide-line rounded-md border border-line" aria-label="Matching papers">
          {search.data.items.map((p) => (
            <li key={p.id}>
              <button
                type="button"
                disabled={busy}
                onClick={() => onPaper(p.externalId)}
                className="flex w-full items-center justify-between gap-4 px-3 py-2 text-left hover:bg-canvas disabled:opacity-50"
              >
                <span className="min-w-0">
                  <span className="block truncate text-sm font-medium">{p.title}</span>
                  <span className="block truncate text-xs text-ink-faint">
                    {[p.year, formatAuthors(p.authors, 2), p.venue ? shortVenue(p.venue) : null].filter(Boolean).join(" · ")}
                  </span>
                </span>
                <FacetCounts counts={p.facetCounts} />
              </button>
            </li>
          ))}
        </ul>
      )}
      <p className="mt-3 text-xs text-ink-faint">
        Or{" "}
        <Link href="/papers" className="font-medium text-ink-muted underline underline-offset-2 hover:text-ink">
          browse the whole corpus
        </Link>{" "}
        by year and venue.
      </p>
    </div>
  );
}
