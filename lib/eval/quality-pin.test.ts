/**
 * The pinned quality check on the six-paper store: today's figures pinned, the same retriever
 * holds them, and a deliberately broken one (it retrieves nothing) fails the check.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { testProvider } from "@/lib/db/testing";
import { buildGraphStage } from "@/lib/graph/build";
import { miniPapers, useMiniCorpusStore } from "@/lib/graph/testing";
import { registerRetriever, unregisterRetriever } from "@/lib/retrieve";
import { checkPins, readPins, repin, type QualityPins } from "./quality-pin";

describe(`pinned quality check (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-quality-pin-");
  let dir = "";
  let pins: QualityPins;
  before(async () => {
    await buildGraphStage(t.db, { corpus: "mini", k: 2, workers: 1 });
    dir = mkdtempSync(path.join(os.tmpdir(), "graft-quality-pin-"));
    const lines = miniPapers.map((p) =>
      JSON.stringify({
        id: p.externalId,
        title: p.title,
        abstract: `${p.abstract} ${p.abstract} ${p.abstract}`,
        split: ["P4", "P5"].includes(p.externalId) ? "train" : "test",
        facets: p.facets,
      }),
    );
    writeFileSync(path.join(dir, "papers.jsonl"), lines.join("\n") + "\n");
    writeFileSync(path.join(dir, "citations.tsv"), "citing\tcited\nP0\tP5\nP1\tP5\nP2\tP4\nP3\tP4\nP3\tP2\n");
    const file = path.join(dir, "pins.json");
    const pin = { source: "llm", retriever: "hybrid", queries: 4, seed: 0, "R@20": 0 } as const;
    writeFileSync(
      file,
      JSON.stringify({
        tolerance: 0.01,
        corpus: "mini",
        pins: [
          { ...pin, set: "unseen-report" },
          { ...pin, set: "later-report" },
        ],
      }),
    );
    await repin(t.db, readPins(file), dir, file);
    pins = readPins(file);
    registerRetriever({ name: "broken", scoreKind: "score", preferredFusion: "rrf", retrieve: async () => ({}) });
  });
  after(() => {
    unregisterRetriever("broken");
    rmSync(dir, { recursive: true, force: true });
  });

  test("the pinned figures are today's and hold", async () => {
    assert.ok(pins.pins.every((p) => p["R@20"] > 0));
    const outcomes = await checkPins(t.db, pins, dir);
    assert.deepEqual(
      outcomes.map((o) => [o.ok, o.change]),
      pins.pins.map(() => [true, 0]),
    );
  });

  test("a deliberately broken ranking fails the check", async () => {
    const outcomes = await checkPins(t.db, { ...pins, pins: pins.pins.map((p) => ({ ...p, retriever: "broken" })) }, dir);
    assert.ok(outcomes.every((o) => !o.ok && o.measured === 0));
  });
});
