import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { AttributionRow } from "../report";
import { attributionSection } from "./attribution-section";
import { sampleQueries } from "./context";

describe("query sampling", () => {
  test("all queries when no limit or a limit above their number", () => {
    assert.deepEqual(sampleQueries([5, 1, 3], undefined, 0), [5, 1, 3]);
    assert.deepEqual(sampleQueries([5, 1, 3], 3, 0), [5, 1, 3]);
  });

  test("a limit draws a seeded subset, in ascending order", () => {
    const items = Array.from({ length: 100 }, (_, i) => i * 2);
    const a = sampleQueries(items, 10, 7);
    assert.equal(a.length, 10);
    assert.deepEqual(
      a,
      [...a].sort((x, y) => x - y),
    );
    assert.ok(a.every((x) => items.includes(x)));
    assert.equal(new Set(a).size, 10);
    assert.deepEqual(sampleQueries(items, 10, 7), a);
    assert.notDeepEqual(sampleQueries(items, 10, 8), a);
  });
});

describe("attribution section", () => {
  const row = (id: string, fusion: string, lists: string, precision: number, status: "ok" | "not run" = "ok"): AttributionRow => ({
    id,
    label: id,
    setting: "in-corpus",
    lists,
    fusion,
    status,
    ...(status === "ok" ? { precision, subsetShare: precision, pairs: 10, perFacet: {} } : { reason: "no provider" }),
  });

  test("none without rows", () => {
    assert.equal(attributionSection([]), undefined);
  });

  test("headline: graph-RRF over generative lists, else graph-RRF over any lists, else the first row that ran", () => {
    const dense = row("graph-rrf:dense-items", "graph-rrf", "dense-items", 0.9);
    const gen = row("graph-rrf:generative:+floor", "graph-rrf", "generative:+floor", 1);
    const rrf = row("rrf:dense-items", "rrf", "dense-items", 0.5);
    assert.equal(attributionSection([rrf, dense, gen])?.lists, "generative:+floor");
    assert.equal(attributionSection([rrf, dense, { ...gen, status: "not run" }])?.lists, "dense-items");
    assert.equal(attributionSection([rrf, dense, { ...gen, status: "not run" }])?.fusion, "graph-rrf");
    assert.equal(attributionSection([rrf])?.precision, 0.5);
    const none = attributionSection([row("x", "graph-rrf", "generative:+floor", 0, "not run")]);
    assert.equal(none?.fusion, "none");
    assert.equal(none?.precision, 0);
    assert.equal(none?.rows.length, 1);
  });
});
