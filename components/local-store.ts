"use client";

// One value kept in localStorage (no account needed) and shared by every component through
// useSyncExternalStore; other tabs follow through the storage event. Used by the collection and
// "Your library".

export interface LocalStore<T> {
  /** What is stored (the same object until the stored text changes, as useSyncExternalStore needs). */
  read(): T;
  write(value: T): void;
  subscribe(listener: () => void): () => void;
  /** The value before anything is stored, and on the server. */
  readonly empty: T;
}

/** A store under `key`; `parse` turns the stored text (null: none) into a value, never throwing. */
export function localStore<T>(key: string, parse: (raw: string | null) => T, empty: T): LocalStore<T> {
  const listeners = new Set<() => void>();
  let cache: { raw: string | null; value: T } = { raw: null, value: empty };
  return {
    empty,
    read() {
      let raw: string | null = null;
      try {
        raw = window.localStorage.getItem(key);
      } catch {
        return cache.value; // storage disabled: keep what this page view set
      }
      if (raw !== cache.raw) cache = { raw, value: parse(raw) };
      return cache.value;
    },
    write(value) {
      try {
        window.localStorage.setItem(key, JSON.stringify(value));
      } catch {
        // Quota or privacy mode: the value lasts for this page view.
        cache = { raw: cache.raw, value };
      }
      for (const l of listeners) l();
    },
    subscribe(listener) {
      listeners.add(listener);
      const onStorage = (e: StorageEvent) => {
        if (e.key === key) listener();
      };
      window.addEventListener("storage", onStorage);
      return () => {
        listeners.delete(listener);
        window.removeEventListener("storage", onStorage);
      };
    },
  };
}
