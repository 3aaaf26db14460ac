import assert from "node:assert/strict";
import { test } from "node:test";
import { parseStoredLibrary } from "./library-store";

test("a stored library reads back; anything else is the empty library, never an error", () => {
  const library = { name: "my.bib", format: "bibtex", entries: [{ key: "a", doi: null, title: "A", year: 2020, line: 1 }] };
  assert.deepEqual(parseStoredLibrary(JSON.stringify({ library, hide: true })), { library, hide: true });
  assert.deepEqual(parseStoredLibrary(null), { library: null, hide: false });
  assert.deepEqual(parseStoredLibrary("{not json"), { library: null, hide: false });
  assert.deepEqual(parseStoredLibrary(JSON.stringify({ library: { name: "x", format: "csv", entries: [] }, hide: "yes" })), { library: null, hide: false });
  assert.deepEqual(parseStoredLibrary(JSON.stringify({ library: { ...library, entries: [{ key: 1 }] } })), { library: null, hide: false });
});
