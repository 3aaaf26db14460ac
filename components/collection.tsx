"use client";

import Link from "next/link";
import { useRef, useSyncExternalStore } from "react";
import type { ExportRecord } from "@/lib/export";
import { localStore } from "./local-store";
import { ExportMenu } from "./export-menu";
import { formatAuthors, paperHref, shortVenue } from "./format";
import { buttonClass, Icon, quietButtonClass } from "./ui";

// The reader's collection: papers saved from results and paper pages, kept in localStorage
// (components/local-store.ts) and exported like a result list.

const KEY = "graft.collection.v1";
const EMPTY: ExportRecord[] = [];

/** The stored records that look like export records; anything else reads as an empty collection. */
function parseCollection(raw: string | null): ExportRecord[] {
  try {
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(parsed) ? parsed.filter((p): p is ExportRecord => typeof p?.externalId === "string" && typeof p?.title === "string") : EMPTY;
  } catch {
    return EMPTY;
  }
}

const { read, write, subscribe } = localStore(KEY, parseCollection, EMPTY);

const same = (a: Pick<ExportRecord, "corpus" | "externalId">, b: Pick<ExportRecord, "corpus" | "externalId">) =>
  a.corpus === b.corpus && a.externalId === b.externalId;

export function useCollection() {
  const items = useSyncExternalStore(subscribe, read, () => EMPTY);
  return {
    items,
    has: (p: Pick<ExportRecord, "corpus" | "externalId">) => items.some((x) => same(x, p)),
    toggle(p: ExportRecord) {
      const cur = read();
      // Saved without result context: rank and score belong to one query, not to the paper.
      const clean: ExportRecord = { corpus: p.corpus, externalId: p.externalId, title: p.title, authors: p.authors, year: p.year, venue: p.venue };
      write(cur.some((x) => same(x, p)) ? cur.filter((x) => !same(x, p)) : [...cur, clean]);
    },
    remove: (p: Pick<ExportRecord, "corpus" | "externalId">) => write(read().filter((x) => !same(x, p))),
    clear: () => write([]),
  };
}

/** The save toggle on a result or paper page. */
export function SaveButton({ record, compact = false }: { record: ExportRecord; compact?: boolean }) {
  const { has, toggle } = useCollection();
  const saved = has(record);
  return (
    <button
      type="button"
      aria-pressed={saved}
      onClick={() => toggle(record)}
      title={saved ? "Remove from collection" : "Save to collection"}
      className={`${compact ? "size-8 justify-center px-0" : "h-9 px-3"} inline-flex shrink-0 items-center gap-1.5 rounded-md text-sm font-medium transition-colors ${
        saved ? "text-ink hover:bg-canvas" : "text-ink-faint hover:bg-canvas hover:text-ink"
      } ${compact ? "" : "border border-line-strong bg-surface shadow-xs"}`}
    >
      <Icon name="bookmark" className={`size-4 ${saved ? "fill-current" : ""}`} />
      {compact ? <span className="sr-only">{saved ? `Saved: ${record.title}` : `Save ${record.title}`}</span> : saved ? "Saved" : "Save"}
    </button>
  );
}

/** Header button and the collection dialog. */
export function CollectionButton() {
  const { items, remove, clear } = useCollection();
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button
        type="button"
        onClick={() => dialog.current?.showModal()}
        className="inline-flex items-center gap-1.5 rounded-md px-2.5 py-1.5 text-sm font-medium text-ink-muted transition-colors hover:bg-canvas hover:text-ink"
        data-testid="collection-button"
      >
        <Icon name="bookmark" className="size-4" />
        Collection
        {/* Fixed width: the count arrives after hydration and must not move the header. */}
        <span
          className="inline-block min-w-5 rounded-full bg-canvas px-1.5 text-center text-xs tabular-nums text-ink-muted"
          aria-label={`${items.length} saved`}
        >
          {items.length}
        </span>
      </button>
      <dialog
        ref={dialog}
        aria-labelledby="collection-title"
        className="m-auto max-h-[80dvh] w-[min(40rem,calc(100vw-2rem))] rounded-xl border border-line bg-surface p-0 text-ink shadow-2xl backdrop:bg-ink/30"
        onClick={(e) => {
          // A click on the backdrop (the dialog element itself) closes it.
          if (e.target === e.currentTarget) dialog.current?.close();
        }}
      >
        <div className="flex max-h-[80dvh] flex-col">
          <header className="flex items-center justify-between gap-3 border-b border-line px-5 py-4">
            <div>
              <h2 id="collection-title" className="text-base font-semibold">
                Your collection
              </h2>
              <p className="text-xs text-ink-faint">Saved in this browser. Export it for your reference manager.</p>
            </div>
            <button type="button" onClick={() => dialog.current?.close()} className={quietButtonClass} aria-label="Close collection">
              <Icon name="close" />
            </button>
          </header>
          {items.length === 0 ? (
            <p className="px-5 py-10 text-center text-sm text-ink-faint">
              Nothing saved yet. Use the <Icon name="bookmark" className="inline size-3.5 align-[-2px]" /> button on a result or a paper page.
            </p>
          ) : (
            <ul className="min-h-0 flex-1 divide-y divide-line overflow-y-auto" data-testid="collection-items">
              {items.map((p) => (
                <li key={`${p.corpus}/${p.externalId}`} className="flex items-start gap-3 px-5 py-3">
                  <div className="min-w-0 flex-1">
                    <Link href={paperHref(p.corpus, p.externalId)} onClick={() => dialog.current?.close()} className="text-sm font-medium hover:underline">
                      {p.title}
                    </Link>
                    <p className="mt-0.5 truncate text-xs text-ink-faint">
                      {[p.year, formatAuthors(p.authors, 2), p.venue ? shortVenue(p.venue) : null].filter(Boolean).join(" · ")}
                    </p>
                  </div>
                  <button type="button" onClick={() => remove(p)} className={quietButtonClass} aria-label={`Remove ${p.title}`}>
                    <Icon name="close" className="size-3.5" />
                  </button>
                </li>
              ))}
            </ul>
          )}
          <footer className="flex items-center justify-between gap-3 border-t border-line px-5 py-3">
            <button type="button" onClick={clear} disabled={items.length === 0} className={buttonClass}>
              Clear
            </button>
            <ExportMenu records={() => items} name="collection" disabled={items.length === 0} label="Export collection" placement="up" />
          </footer>
        </div>
      </dialog>
    </>
  );
}
