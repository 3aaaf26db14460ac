"use client";

import { useMemo, useSyncExternalStore } from "react";
import { ApiError } from "@/lib/http/client";
import type { ApiErrorBody } from "@/lib/http";
import { libraryIndex, type Library, type LibraryIndex } from "@/lib/query/library";
import { localStore } from "../local-store";

// "Your library" (issue 19) as the browser keeps it: the parsed entries of the last file the
// reader uploaded and whether papers in it are hidden, in localStorage (no account needed), one
// store shared like the collection (components/local-store.ts). A new file replaces the stored
// library only once the server has read it without a problem, so a bad file loses nothing.

const KEY = "graft.library.v1";

export interface StoredLibrary {
  library: Library | null;
  /** Hide papers that are in the library from results, per-facet lists and the graph. */
  hide: boolean;
}

const EMPTY: StoredLibrary = { library: null, hide: false };

/** The stored value, or the empty library when it is missing or not what this version wrote. */
export function parseStoredLibrary(raw: string | null): StoredLibrary {
  if (!raw) return EMPTY;
  try {
    const v = JSON.parse(raw) as Partial<StoredLibrary>;
    const lib = v.library;
    const valid =
      lib &&
      typeof lib.name === "string" &&
      (lib.format === "bibtex" || lib.format === "ris") &&
      Array.isArray(lib.entries) &&
      lib.entries.every((e) => typeof e?.title === "string" && typeof e?.key === "string");
    return { library: valid ? lib : null, hide: v.hide === true };
  } catch {
    return EMPTY;
  }
}

const store = localStore(KEY, parseStoredLibrary, EMPTY);

/** Sends a library file to the server's reader; throws an ApiError whose message lists the file's problems. */
export async function uploadLibrary(file: File): Promise<Library> {
  const form = new FormData();
  form.set("file", file);
  let res: Response;
  try {
    res = await fetch("/api/uploads/library", { method: "POST", body: form, headers: { accept: "application/json" } });
  } catch {
    throw new ApiError(0, "network", "Could not reach the Graft server. Check that it is running.");
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const e = (body as ApiErrorBody | null)?.error;
    throw new ApiError(res.status, e?.code ?? "internal", e?.message ?? `The server answered ${res.status}`, e?.issues ?? []);
  }
  return body as Library;
}

export function useLibrary(): StoredLibrary & { index: LibraryIndex | null; replace(library: Library): void; remove(): void; setHide(hide: boolean): void } {
  const stored = useSyncExternalStore(store.subscribe, store.read, () => EMPTY);
  const index = useMemo(() => (stored.library ? libraryIndex(stored.library.entries) : null), [stored.library]);
  return {
    ...stored,
    index,
    replace: (library) => store.write({ ...store.read(), library }),
    remove: () => store.write({ library: null, hide: false }),
    setHide: (hide) => store.write({ ...store.read(), hide }),
  };
}
