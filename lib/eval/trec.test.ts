import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { CodedError } from "@/lib/errors";
import { TrecFormatError, trecQrelsLines, trecRunLines, writeTrecFiles, type TrecRun } from "./trec";

const runs: TrecRun[] = [
  { id: "Q1", retrieved: ["P3", "P1", "https://aclanthology.org/P19-1001"], gold: ["P1", "P5"] },
  { id: "Q2", retrieved: [], gold: ["P2"] },
  { id: "Q3", retrieved: [], gold: ["P4"], error: "no_facets" },
];

test("run lines: qid Q0 docid rank score tag, ranks from 1, scores strictly decreasing", () => {
  const lines = trecRunLines(runs, "hybrid");
  assert.deepEqual(lines, ["Q1 Q0 P3 1 3 hybrid", "Q1 Q0 P1 2 2 hybrid", "Q1 Q0 https://aclanthology.org/P19-1001 3 1 hybrid"]);
  const scores = lines.map((l) => Number(l.split(" ")[4]));
  for (let i = 1; i < scores.length; i++) assert.ok(scores[i] < scores[i - 1]);
});

test("a run with an error or no results writes no lines; its gold stays in the qrels", () => {
  const lines = trecRunLines(runs, "bm25");
  assert.ok(lines.every((l) => l.startsWith("Q1 ")));
  assert.deepEqual(trecQrelsLines(runs), ["Q1 0 P1 1", "Q1 0 P5 1", "Q2 0 P2 1", "Q3 0 P4 1"]);
});

test("qrels list each query once", () => {
  assert.deepEqual(trecQrelsLines([...runs, { id: "Q1", retrieved: ["P9"], gold: ["P1", "P5"] }]).length, 4);
});

test("an id with whitespace is refused with a code, not written", () => {
  const refused = (fn: () => unknown) =>
    assert.throws(fn, (e: unknown) => e instanceof TrecFormatError && e instanceof CodedError && e.code === "invalid_record" && /whitespace/.test(e.message));
  refused(() => trecRunLines([{ id: "Q1", retrieved: ["P 1"], gold: [] }], "hybrid"));
  refused(() => trecRunLines([{ id: "Q\t1", retrieved: ["P1"], gold: [] }], "hybrid"));
  refused(() => trecRunLines(runs, "two words"));
  refused(() => trecQrelsLines([{ id: "Q1", retrieved: [], gold: ["P\n1"] }]));
});

test("writeTrecFiles: one run file per row and one qrels file per set, made in a new folder", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-trec-"));
  try {
    const folder = path.join(dir, "runs");
    const written = writeTrecFiles(folder, { corpus: "acl", set: "ooc", source: "llm", method: "hybrid" }, runs);
    writeTrecFiles(folder, { corpus: "acl", set: "ooc", source: "llm", method: "bm25" }, runs);
    assert.equal(written.run, path.join(folder, "acl.ooc.llm.hybrid.run"));
    assert.deepEqual(readdirSync(folder).sort(), ["acl.ooc.llm.bm25.run", "acl.ooc.llm.hybrid.run", "acl.ooc.qrels"]);
    assert.equal(readFileSync(written.run, "utf8"), trecRunLines(runs, "hybrid").join("\n") + "\n");
    assert.equal(readFileSync(written.qrels, "utf8"), "Q1 0 P1 1\nQ1 0 P5 1\nQ2 0 P2 1\nQ3 0 P4 1\n");
    assert.throws(() => writeTrecFiles(folder, { corpus: "../x", set: "ooc", source: "llm", method: "bm25" }, runs), TrecFormatError);
    // A refused id leaves no file behind.
    assert.throws(() => writeTrecFiles(folder, { corpus: "acl", set: "later", source: "llm", method: "bm25" }, [{ id: "Q 1", retrieved: [], gold: ["P1"] }]));
    assert.ok(!readdirSync(folder).some((f) => f.startsWith("acl.later")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
