import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testProvider } from "@/lib/db/testing";
import { buildGraphStage } from "@/lib/graph/build";
import { useMiniCorpusStore } from "@/lib/graph/testing";
import { warmUp } from "./warm-up";

// The server's start-up warm-up (instrumentation.ts): a pasted paper answered once, failures
// only logged.

function recorder() {
  const lines: { level: "info" | "warn"; line: string }[] = [];
  return { lines, log: { info: (line: string) => lines.push({ level: "info", line }), warn: (line: string) => lines.push({ level: "warn", line }) } };
}

describe(`warmUp (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-warm-up-");

  test("before a graph build or a corpus exists: it logs why, never throws", async () => {
    const noBuild = recorder();
    assert.equal(await warmUp(t.db, noBuild.log, "mini"), false);
    assert.equal(noBuild.lines.length, 1);
    assert.equal(noBuild.lines[0].level, "warn");
    assert.match(noBuild.lines[0].line, /not warmed up \(.*build --stage graph.*\); the first query loads what it needs/);
    const noCorpus = recorder();
    assert.equal(await warmUp(t.db, noCorpus.log, "no-such-corpus"), false);
    assert.match(noCorpus.lines[0].line, /not warmed up \(.*no-such-corpus/);
  });

  test("with a graph build: the pasted-paper path runs once and says what it loaded", async () => {
    await buildGraphStage(t.db, { corpus: "mini", k: 2, workers: 1 });
    const r = recorder();
    assert.equal(await warmUp(t.db, r.log, "mini"), true);
    assert.equal(r.lines.length, 1);
    assert.equal(r.lines[0].level, "info");
    assert.match(r.lines[0].line, /the served build and models of "mini" loaded in \d+\.\d s/);
  });
});
