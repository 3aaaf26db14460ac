import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { testProvider } from "@/lib/db/testing";
import { buildGraphStage } from "@/lib/graph/build";
import { miniPapers, useMiniCorpusStore } from "@/lib/graph/testing";
import { relatedOptions, relatedPapers } from "@/lib/query";
import { isTuningPaper, recallRatio, runUserPapers, userPaperQueries, userPaperRecall } from "./user-papers";

describe(`papers users bring, through the served pipeline (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-user-papers-");
  let dir = "";
  before(async () => {
    await buildGraphStage(t.db, { corpus: "mini", k: 2, workers: 1 });
    dir = mkdtempSync(path.join(os.tmpdir(), "graft-user-papers-"));
    const lines = miniPapers.map((p) => JSON.stringify({ id: p.externalId, title: p.title, abstract: p.abstract, split: "test", facets: p.facets }));
    writeFileSync(path.join(dir, "papers.jsonl"), lines.join("\n") + "\n");
    writeFileSync(path.join(dir, "citations.tsv"), "citing\tcited\nP0\tP5\nP1\tP5\nP2\tP4\nP3\tP4\nP3\tP2\n");
    const ooc = {
      id: "Q1",
      title: "Machine translation with back-translation",
      abstract: "We translate with back-translation of monolingual data.",
      facets: { methods: ["back-translation of monolingual data"] },
    };
    writeFileSync(path.join(dir, "ooc-queries.jsonl"), JSON.stringify(ooc) + "\n");
    writeFileSync(path.join(dir, "ooc-gold.tsv"), "query\tcited\nQ1\tP1\nQ1\tP5\n");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("set 2 halves split the citing test papers by a fixed hash; set 1 reads the out-of-corpus gold", () => {
    const tune = userPaperQueries(dir, "unseen-tune");
    const report = userPaperQueries(dir, "unseen-report");
    assert.equal(tune.length + report.length, 4, "the four test papers that cite corpus papers");
    for (const q of tune) assert.ok(isTuningPaper(q.id));
    for (const q of report) assert.ok(!isTuningPaper(q.id));
    const p3 = [...tune, ...report].find((q) => q.id === "P3");
    assert.deepEqual(p3?.gold, ["P4", "P2"]);
    const ooc = userPaperQueries(dir, "ooc");
    assert.deepEqual(
      ooc.map((q) => [q.id, q.gold]),
      [["Q1", ["P1", "P5"]]],
    );
  });

  test("a row is what relatedPapers serves for the same paper (the default and BM25)", async () => {
    const queries = [...userPaperQueries(dir, "unseen-tune"), ...userPaperQueries(dir, "unseen-report")];
    for (const retriever of ["hybrid", "bm25"] as const) {
      const runs = await runUserPapers(t.db, "mini", queries, { retriever }, "llm");
      for (const [i, q] of queries.entries()) {
        const served = await relatedPapers(
          t.db,
          { corpus: "mini", paper: { id: q.id, title: q.title, abstract: q.abstract, facets: q.facets } },
          relatedOptions.parse({ retriever, k: 50 }),
        );
        assert.deepEqual(
          runs[i].retrieved,
          served.results.map((r) => r.externalId),
          `${retriever} ${q.id}`,
        );
        assert.ok(!runs[i].retrieved.includes(q.id), "the query is never its own result");
      }
    }
  });

  test("recall, its interval, and the ratio to a baseline on the same queries", async () => {
    const queries = userPaperQueries(dir, "ooc");
    const hybrid = await runUserPapers(t.db, "mini", queries, { retriever: "hybrid" }, "llm");
    const bm25 = await runUserPapers(t.db, "mini", queries, { retriever: "bm25" }, "llm");
    const r = userPaperRecall(hybrid);
    assert.equal(r.queries, 1);
    assert.equal(r.goldPairs, 2);
    assert.equal(r.recall[5], 1, "P1 by its words, P5 because P0 and P1 cite it");
    assert.ok(r.ci20.low <= r.recall[20] && r.recall[20] <= r.ci20.high);
    const ratio = recallRatio(hybrid, bm25);
    assert.equal(ratio.ratio, r.recall[20] / userPaperRecall(bm25).recall[20]);
  });
});
