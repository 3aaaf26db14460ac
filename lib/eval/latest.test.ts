import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { repoRoot } from "@/lib/paths";
import { latestReportPath, readLatestReport } from "./latest";

test("latest report path: reports/eval-latest.json unless GRAFT_EVAL_REPORT says otherwise", () => {
  assert.equal(latestReportPath({}), path.join(repoRoot, "reports", "eval-latest.json"));
  assert.equal(latestReportPath({ GRAFT_EVAL_REPORT: "x/y.json" }), path.join(repoRoot, "x/y.json"));
  assert.equal(latestReportPath({ GRAFT_EVAL_REPORT: "/abs/r.json" }), "/abs/r.json");
});

test("reading the latest report: ok, missing, or invalid with the reason", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-latest-"));
  try {
    const file = path.join(dir, "eval-latest.json");
    assert.deepEqual(readLatestReport(file), { status: "missing", path: file });
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        kind: "full",
        date: "d",
        tables: { main: [{ method: "bm25", label: "BM25", status: "ok", "R@20": 0.3 }] },
        manifest: { command: "c", date: "d" },
      }),
    );
    const ok = readLatestReport(file);
    assert.equal(ok.status, "ok");
    assert.equal(ok.status === "ok" && ok.report.tables.main?.[0]["R@20"], 0.3);
    writeFileSync(file, JSON.stringify({ version: 1, kind: "full", date: "d", tables: {}, manifest: {} }));
    const bad = readLatestReport(file);
    assert.equal(bad.status, "invalid");
    assert.match(bad.status === "invalid" ? bad.message : "", /manifest\.command/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
