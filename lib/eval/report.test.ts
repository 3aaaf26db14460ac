import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { scoreRuns } from "./dense-graph";
import {
  formatChange,
  formatDelta,
  formatRatio,
  mergeLatest,
  notReproducedRow,
  notRunRow,
  parseReport,
  recallRow,
  recallTableMarkdown,
  reportMarkdown,
  tableGoldOf,
  tableNote,
  writeReport,
  type EvalReport,
} from "./report";
import { coverageLadderSvg, escapeXml, recallCurvesSvg } from "./svg";

// Two queries: q0 gold {1, 2}, retrieved [1, 9, 2, ...]; q1 gold {3}, retrieved [8, 3].
// R@5 = (2 + 1) / 3 = 1; pooled at cut 1: q0 finds 1, q1 nothing → 1/3.
const report = scoreRuns(
  [
    { retrieved: [1, 9, 2], gold: [1, 2] },
    { retrieved: [8, 3], gold: [3] },
  ],
  { resamples: 50, seed: 1 },
);

function sampleReport(date: string, over: Partial<EvalReport> = {}): EvalReport {
  return {
    version: 1,
    kind: "full",
    suites: ["main"],
    date,
    tables: {
      main: [
        recallRow("bm25", "BM25", report),
        notRunRow("graft", "Graft", "no provider"),
        notReproducedRow("specter2", "SPECTER2", "offline", { "R@20": 0.22 }),
      ],
    },
    manifest: {
      command: "graft eval",
      date,
      wallSeconds: 1,
      git: { commit: "abc", dirty: false },
      node: "v20",
      platform: "linux x64",
      cpus: 2,
      corpus: { papers: 10 },
      embedder: "use-lite@0.2.0",
      graph: { k: 20 },
      retrieval: {},
      bootstrap: { resamples: 50, seed: 1, level: 0.95 },
      generative: { provider: "none" },
      sectionSeconds: { main: 1 },
    },
    ...over,
  };
}

test("recallRow carries the micro estimates and CIs per cutoff", () => {
  const row = recallRow("bm25", "BM25", report);
  assert.equal(row.status, "ok");
  assert.equal(row["R@5"], 1);
  assert.equal(row.queries, 2);
  assert.equal(row.meanGold, 1.5);
  const [lo, hi] = row.ci?.["R@5"] ?? [NaN, NaN];
  assert.ok(lo <= 1 && hi === 1);
  assert.equal(notRunRow("graft", "Graft", "why")["R@20"], undefined);
});

test("Markdown lists every row with its status, CI and the paper's figure", () => {
  const md = recallTableMarkdown("main", sampleReport("2026-01-01T00:00:00.000Z").tables.main ?? []);
  assert.match(md, /\| BM25 \| 1\.000 \[1\.000, 1\.000\] \|/);
  assert.match(md, /not run: no provider/);
  assert.match(md, /not reproduced: offline \| R@20 0\.220 \|/);
  const full = reportMarkdown(sampleReport("2026-01-01T00:00:00.000Z"));
  assert.match(full, /^# Evaluation: main/);
  assert.match(full, /Command: `graft eval`/);
});

test("deltas are signed, and a change that rounds to zero has no sign", () => {
  assert.equal(formatDelta(0.0123), "+0.012");
  assert.equal(formatDelta(-0.02), "-0.020");
  assert.equal(formatDelta(-0.0002), "0.000");
});

test("parseReport validates the stable shape", () => {
  const r = sampleReport("2026-01-01T00:00:00.000Z");
  assert.equal(parseReport(JSON.stringify(r)).tables.main?.[0].method, "bm25");
  assert.throws(() => parseReport("{"), /not JSON/);
  assert.throws(() => parseReport(JSON.stringify({ ...r, version: 2 })), /version/);
  assert.throws(
    () => parseReport(JSON.stringify({ ...r, tables: { main: [{ method: "x", label: "x", status: "ok", "R@20": "high" }] } })),
    /tables\.main\.0\.R@20/,
  );
});

test("eval-latest merges suites: newer parts replace, others are kept", () => {
  const a = sampleReport("2026-01-01T00:00:00.000Z", { attribution: { precision: 0.9 } as EvalReport["attribution"] });
  const b = sampleReport("2026-01-02T00:00:00.000Z", { suites: ["ooc"], tables: { ooc: [notRunRow("graft", "Graft", "x")] } });
  const m = mergeLatest(mergeLatest(null, a, "eval-2026-01-01.md"), b, "eval-2026-01-02.md");
  assert.deepEqual(Object.keys(m.tables).sort(), ["main", "ooc"]);
  assert.deepEqual(m.suites, ["main", "ooc"]);
  assert.equal(m.attribution?.precision, 0.9);
  assert.equal(m.updated?.["tables.main"], "2026-01-01T00:00:00.000Z");
  assert.equal(m.updated?.["tables.ooc"], "2026-01-02T00:00:00.000Z");
  assert.equal(m.updated?.attribution, "2026-01-01T00:00:00.000Z");
  assert.equal(m.report, "eval-2026-01-02.md");
  assert.equal(m.date, "2026-01-02T00:00:00.000Z");
});

test("writeReport writes dated files, plots and eval-latest.json; smoke runs leave latest alone", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-report-"));
  try {
    writeFileSync(path.join(dir, "eval-latest.json"), "not json"); // an unreadable latest is replaced
    const w = writeReport(sampleReport("2026-03-04T05:06:07.000Z"), dir);
    assert.equal(path.basename(w.markdown), "eval-2026-03-04.md");
    assert.deepEqual(
      w.svgs.map((f) => path.basename(f)),
      ["eval-recall-main.svg"],
    );
    const latest = parseReport(readFileSync(path.join(dir, "eval-latest.json"), "utf8"));
    assert.equal(latest.report, "eval-2026-03-04.md");
    assert.equal(readFileSync(path.join(dir, "eval-latest.md"), "utf8"), reportMarkdown(latest));
    const s = writeReport(sampleReport("2026-03-05T00:00:00.000Z", { kind: "smoke" }), dir);
    assert.equal(s.latest, null);
    assert.equal(path.basename(s.markdown), "eval-smoke-2026-03-05.md");
    assert.equal(parseReport(readFileSync(path.join(dir, "eval-latest.json"), "utf8")).date, "2026-03-04T05:06:07.000Z");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("SVG plots: one series per row with figures, labels escaped", () => {
  const rows = [recallRow("a", "A <&> B", report), notRunRow("g", "Graft", "x"), { ...recallRow("b", "B", report), "R@5": 0.5 }];
  const svg = recallCurvesSvg(rows, { title: "Recall & co" });
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.equal((svg.match(/<polyline /g) ?? []).length, 2);
  assert.ok(svg.includes("A &lt;&amp;&gt; B"));
  assert.ok(!svg.includes("Graft"));
  assert.ok(svg.includes("<title>Recall &amp; co</title>"));
  assert.equal(escapeXml(`"'`), "&quot;&apos;");
  const cov = coverageLadderSvg({
    papers: 10,
    byK: [{ k: 20, covered: 8, share: 0.8, perFacet: {} }],
    variants: [
      { variant: "uniform", label: "uniform", status: "ok", targetCoverage: 0.75 },
      { variant: "x", label: "x", status: "not run", reason: "r" },
    ],
  });
  assert.ok(cov.includes("80.0%") && cov.includes("75.0%") && cov.includes("not run"));
});

test("in-corpus notes say which gold a table was scored against; the main table says it is a replication", () => {
  const legacy = sampleReport("2026-01-01T00:00:00.000Z");
  assert.equal(tableGoldOf(legacy, "main"), "undirected");
  assert.equal(tableGoldOf(legacy, "ooc"), null);
  assert.match(tableNote(legacy, "main"), /undirected neighbour set.*mean 1\.5 gold papers per query; these figures predate the switch/);
  const current = { ...legacy, tableGold: { main: "out-neighbours", walkDepth: "out-neighbours" } } as EvalReport;
  const main = tableNote(current, "main");
  assert.match(
    main,
    /^A replication of the paper's in-corpus protocol, not a quality claim\. Gold: the query's own out-neighbours in the full top-20 typed graph.*mean 1\.5 gold papers per query \(the paper: 39\)/,
  );
  assert.match(main, /Graph-RRF reads that same adjacency.*attribution precision is 1\.000 by construction/);
  assert.equal(tableNote(current, "ooc"), tableNote(legacy, "ooc"));
  assert.match(reportMarkdown(current), /## Main results \(in-corpus, test split\)\n\nA replication/);
  // A merge replaces a table's gold with the new run's; tables the run did not write keep theirs.
  const m = mergeLatest(current, sampleReport("2026-01-02T00:00:00.000Z", { tables: { main: [] }, tableGold: { main: "out-neighbours" } }), "x.md");
  assert.deepEqual(m.tableGold, { main: "out-neighbours", walkDepth: "out-neighbours" });
  const old = mergeLatest(current, sampleReport("2026-01-03T00:00:00.000Z", { tables: { main: [] } }), "x.md");
  assert.deepEqual(old.tableGold, { walkDepth: "out-neighbours" });
});

test("paired ratios and relative changes read as figures with intervals", () => {
  assert.equal(formatRatio({ value: 2.0234, ci: [1.851, 2.2] }), "2.02× [1.85, 2.20]");
  assert.equal(formatRatio({ value: 1.5 }), "1.50×");
  assert.equal(formatRatio(undefined), "");
  assert.equal(formatChange({ value: -0.0412, ci: [-0.07, 0.0004] }), "−4.1% [−7.0%, 0.0%]");
  assert.equal(formatChange({ value: 0.1 }), "+10.0%");
});
