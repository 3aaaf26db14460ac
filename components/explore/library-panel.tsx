"use client";

import { useId, useState } from "react";
import type { LibraryMatch } from "@/lib/query";
import { buttonClass, Icon, labelClass, quietButtonClass, Spinner } from "../ui";
import { uploadLibrary, useLibrary } from "./library-store";

/** Papers on screen that are in the reader's library, by external id, and how each matched. */
export type LibraryMarks = ReadonlyMap<string, LibraryMatch>;

const MATCH_WORDS: Record<LibraryMatch, string> = { doi: "same DOI", "title-year": "same title and year" };

/** The "in your library" mark beside a paper's title. */
export function LibraryBadge({ match, large = false }: { match: LibraryMatch; large?: boolean }) {
  return (
    <span
      className={`inline-flex shrink-0 items-center gap-1 rounded border border-ink/20 bg-canvas px-1.5 font-medium text-ink-muted ${large ? "text-sm" : "text-[0.6875rem] leading-5"}`}
      title={`In your library (${MATCH_WORDS[match]})`}
      data-testid="library-badge"
    >
      <Icon name="bookmark" className="size-3" />
      in your library
    </span>
  );
}

/**
 * "Your library": upload a BibTeX or RIS export, see how many papers on screen are in it, hide
 * them. A file the server cannot read leaves the stored library as it was and says why, by line.
 */
export function LibraryPanel({ marked }: { marked: number }) {
  const lib = useLibrary();
  const inputId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ file: string; message: string } | null>(null);

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      lib.replace(await uploadLibrary(file));
    } catch (err) {
      setError({ file: file.name, message: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby={`${inputId}-heading`} className="mt-6 border-t border-line pt-5" data-testid="library-panel">
      <h2 id={`${inputId}-heading`} className={labelClass}>
        Your library
      </h2>
      {lib.library ? (
        <p className="text-sm text-ink" data-testid="library-summary">
          <span className="font-medium">{lib.library.name}</span>: {lib.library.entries.length} {lib.library.entries.length === 1 ? "paper" : "papers"}
          <span className="block text-xs text-ink-muted">
            {marked} {marked === 1 ? "paper" : "papers"} on screen in it{lib.hide && marked > 0 ? " (hidden)" : ""}
          </span>
        </p>
      ) : (
        <p className="text-xs leading-snug text-ink-faint">
          Upload a BibTeX or RIS export (Zotero, Mendeley, JabRef) to mark the papers you already have. It stays in this browser.
        </p>
      )}
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <label className={`${buttonClass} relative cursor-pointer has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-focus`}>
          {busy ? <Spinner label="Reading the library" className="size-3.5" /> : <Icon name="upload" className="size-3.5" />}
          {lib.library ? "Replace" : "Upload .bib / .ris"}
          <input
            type="file"
            accept=".bib,.bibtex,.ris,.txt"
            className="sr-only"
            disabled={busy}
            data-testid="library-file"
            onChange={(e) => {
              void onFile(e.target.files?.[0]);
              e.target.value = "";
            }}
          />
        </label>
        {lib.library && (
          <button type="button" className={quietButtonClass} onClick={() => lib.remove()}>
            Remove
          </button>
        )}
      </div>
      {lib.library && (
        <label className="mt-2 flex cursor-pointer items-center gap-2 text-sm text-ink">
          <input type="checkbox" className="accent-ink" checked={lib.hide} onChange={(e) => lib.setHide(e.target.checked)} data-testid="library-hide" />
          Hide papers in your library
        </label>
      )}
      {error && (
        <div role="alert" className="mt-3 rounded-md border border-danger/30 bg-danger-tint px-3 py-2" data-testid="library-error">
          <p className="text-sm font-semibold text-danger">
            Could not read {error.file}
            {lib.library ? "; your library is unchanged" : ""}
          </p>
          <pre className="mt-1 whitespace-pre-wrap wrap-anywhere font-mono text-[0.6875rem] leading-snug text-ink">{error.message}</pre>
        </div>
      )}
    </section>
  );
}
