import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { csfcubeColumns, csfcubeLines, csfcubeMarkdown, parseCsfcube, readCsfcubeReport } from "./csfcube-report";
import { CSFCUBE_FILE, renderLatest, reportMarkdown, type EvalReport } from "./report";
import { userPapersSection } from "./testing";

const FIXTURE = fileURLToPath(new URL("./fixtures/csfcube-dev.json", import.meta.url));

test("the CSFCube file: read, pivoted to one line per method and facet setting, facets as columns", () => {
  const state = readCsfcubeReport(FIXTURE);
  assert.equal(state.status, "ok");
  if (state.status !== "ok") return;
  const lines = csfcubeLines(state.report);
  assert.deepEqual(
    lines.map((l) => [l.method, l.facets]),
    [
      ["hybrid", "restricted"],
      ["hybrid", "all"],
      ["bm25", "all"],
    ],
  );
  assert.deepEqual(Object.keys(lines[0].cells), ["background", "method", "result", "all"]);
  // background: 8 queries in every row; all: 24.
  assert.deepEqual(csfcubeColumns(state.report), [
    { facet: "background", queries: 8 },
    { facet: "method", queries: 8 },
    { facet: "result", queries: 8 },
    { facet: "all", queries: 24 },
  ]);
  const md = csfcubeMarkdown(state);
  assert.match(md, /^## Facet-aware relevance: CSFCube \(dev fold\)/);
  assert.match(
    md,
    /\| Default \(hybrid\) \| query's facet only \| 41\.50 \[33\.10, 50\.20\] \/ 52\.25 \| 30\.10 \/ 40\.00 \| 35\.00 \/ 45\.50 \| 35\.53 \[30\.00, 41\.00\] \/ 45\.92 \|/,
  );
  assert.match(md, /\| Default \(hybrid\) \| all facets \| – \| – \| – \| 33\.00 \/ 44\.00 \|/);
  assert.match(md, /\| BM25 \\\| served \| all facets \| 28\.00 \/ 38\.00 \|/, "a | in a label is escaped");
  assert.match(md, /\| TF-IDF \(all 50\) \| 38\.27 \| 51\.00 \|/);
  assert.match(md, /CC BY-NC 4\.0: test fixture text\.$/);
});

test("a missing file leaves the section out; a malformed one says what is wrong", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-csfcube-"));
  try {
    const missing = readCsfcubeReport(path.join(dir, "none.json"));
    assert.equal(missing.status, "missing");
    assert.equal(csfcubeMarkdown(missing), "");
    const bad = path.join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({
        ...JSON.parse(readFileSync(FIXTURE, "utf8")),
        rows: [{ method: "x", label: "x", facets: "some", facet: "all", queries: 1, map: 1, ndcg20: 1 }],
      }),
    );
    const invalid = readCsfcubeReport(bad);
    assert.equal(invalid.status, "invalid");
    assert.match(csfcubeMarkdown(invalid), /could not be read: rows\.0\.facets/);
    assert.throws(() => parseCsfcube("{"), /not JSON/);
    assert.throws(() => parseCsfcube(JSON.stringify({ generated: "d", command: "c", rows: [] })), /attribution/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("eval-latest.md renders CSFCube after the user-paper tables and before the paper's tables; --render re-writes it", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-csfcube-render-"));
  try {
    const report: EvalReport = {
      version: 1,
      kind: "full",
      suites: ["main", "user-papers"],
      date: "2026-11-25T00:00:00.000Z",
      tables: { main: [{ method: "bm25", label: "BM25", status: "ok", "R@20": 0.1, meanGold: 62.4 }] },
      tableGold: { main: "out-neighbours" },
      userPapers: userPapersSection([
        {
          id: "ooc",
          title: "Papers users bring — set 1 (2 out-of-corpus papers)",
          gold: "g",
          queries: 2,
          goldPairs: 3,
          sources: { llm: [{ method: "bm25", label: "BM25", retriever: "bm25", fusion: "rrf", status: "ok", "R@20": 0.5 }] },
        },
      ]),
      manifest: {
        command: "graft eval",
        date: "2026-11-25T00:00:00.000Z",
        wallSeconds: 1,
        git: { commit: null, dirty: null },
        node: "v20",
        platform: "linux",
        cpus: 2,
        corpus: {},
        embedder: "e",
        graph: {},
        retrieval: {},
        bootstrap: { resamples: 1, seed: 0, level: 0.95 },
        generative: {},
        sectionSeconds: {},
      },
    };
    writeFileSync(path.join(dir, "eval-latest.json"), JSON.stringify(report));
    const before = readFileSync(renderLatest(dir), "utf8");
    assert.doesNotMatch(before, /CSFCube/);
    assert.equal(before, reportMarkdown(report));
    copyFileSync(FIXTURE, path.join(dir, CSFCUBE_FILE));
    const md = readFileSync(renderLatest(dir), "utf8");
    const at = (s: string) => md.indexOf(s);
    assert.ok(at("## Related papers for papers you bring") > 0);
    assert.ok(at("## Related papers for papers you bring") < at("## Facet-aware relevance: CSFCube"));
    assert.ok(at("## Facet-aware relevance: CSFCube") < at("## Main results"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
