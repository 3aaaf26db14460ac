/**
 * `graft eval --suite user-papers` end to end on the six-paper store (a smoke run): both query
 * sets, both facet sources, every row through relatedPapers, the report's JSON and Markdown. The
 * mini corpus has no generative model, so "Graft alone" is not run (with the reason) and the
 * default equals its ablation.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { testProvider } from "@/lib/db/testing";
import { buildGraphStage } from "@/lib/graph/build";
import { miniPapers, useMiniCorpusStore } from "@/lib/graph/testing";
import { registeredRetrievers } from "@/lib/retrieve";
import { runEvaluation } from "./harness";
import { mergeLatest, parseReport, reportMarkdown, writeReport, type EvalReport } from "./report";
import { WITH_GENERATIVE, WITHOUT_RERANK, sampleUserPapers, USER_PAPER_ROWS, WHOLE_PAPER_BM25 } from "./user-papers-suite";
import { userPaperQueries } from "./user-papers";

describe(`graft eval --suite user-papers (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-user-papers-suite-");
  let dir = "";
  let report: EvalReport;
  before(async () => {
    await buildGraphStage(t.db, { corpus: "mini", k: 2, workers: 1 });
    dir = mkdtempSync(path.join(os.tmpdir(), "graft-user-papers-suite-"));
    // Abstracts long enough for the pipeline's 100-character minimum (the store's are shorter).
    const lines = miniPapers.map((p) =>
      JSON.stringify({
        id: p.externalId,
        title: p.title,
        abstract: `${p.abstract} ${Object.values(p.facets ?? {})
          .flat()
          .join(". ")}. ${p.abstract}`,
        // P4 and P5 are cited by two test papers each: set 3's queries (one per half).
        split: ["P4", "P5"].includes(p.externalId) ? "train" : "test",
        facets: p.facets,
      }),
    );
    writeFileSync(path.join(dir, "papers.jsonl"), lines.join("\n") + "\n");
    writeFileSync(path.join(dir, "citations.tsv"), "citing\tcited\nP0\tP5\nP1\tP5\nP2\tP4\nP3\tP4\nP3\tP2\n");
    const ooc = [
      {
        id: "Q1",
        title: "Machine translation with back-translation",
        abstract: "We translate with back-translation of monolingual data, a method for low-resource translation.",
        facets: { methods: ["back-translation of monolingual data"] },
      },
      {
        id: "Q2",
        title: "Parsing",
        abstract: "Dependency parsing with transition systems and neural scoring of parser actions, trained on treebanks of many languages.",
        facets: { methods: ["transition-based dependency parsing"] },
      },
    ];
    writeFileSync(path.join(dir, "ooc-queries.jsonl"), ooc.map((q) => JSON.stringify(q)).join("\n") + "\n");
    writeFileSync(path.join(dir, "ooc-gold.tsv"), "query\tcited\nQ1\tP1\nQ1\tP5\nQ2\tP2\n");
    report = await runEvaluation({
      corpusDir: dir,
      suites: ["user-papers"],
      db: t.db,
      storeCorpus: "mini",
      resamples: 20,
      kind: "smoke",
      limits: { userPapers: 3 },
      userPapersTrecDir: path.join(dir, "trec"),
      command: "user-papers-suite.test.ts",
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("three tables, both facet sources, every row in order; the evaluation-only retrievers are removed again", () => {
    const u = report.userPapers;
    assert.ok(u);
    assert.deepEqual(report.tables, {});
    assert.deepEqual(
      u.tables.map((x) => x.id),
      ["ooc", "unseen", "later"],
    );
    const [ooc, unseen, later] = u.tables;
    assert.equal(later.queries, 1);
    assert.equal(later.tuning?.queries, 1);
    assert.equal(later.goldPairs, 2, "P4 is cited by P2 and P3");
    assert.match(later.title, /Later work — set 3 \(1 train papers cited by test papers/);
    assert.equal(ooc.queries, 2);
    assert.equal(ooc.goldPairs, 3);
    assert.match(ooc.title, /set 1 \(2 out-of-corpus papers\)/);
    assert.ok(unseen.queries + (unseen.tuning?.queries ?? 0) <= 4 && unseen.queries <= 3);
    for (const tbl of u.tables) {
      for (const source of ["llm", "offline"] as const) {
        const rows = tbl.sources[source] ?? [];
        assert.deepEqual(
          rows.map((r) => r.method),
          USER_PAPER_ROWS.map((r) => r.method),
          `${tbl.id} ${source}`,
        );
      }
    }
    for (const name of [WITH_GENERATIVE, WITHOUT_RERANK, WHOLE_PAPER_BM25]) assert.ok(!registeredRetrievers().includes(name), name);
  });

  test("rows: recall with its interval, ratios to BM25, the ablation's change, latency; Graft alone says why it did not run", () => {
    for (const tbl of report.userPapers?.tables ?? []) {
      for (const rows of Object.values(tbl.sources)) {
        const by = Object.fromEntries((rows ?? []).map((r) => [r.method, r]));
        assert.equal(by.graft.status, "not run");
        assert.match(by.graft.reason ?? "", /needs a trained model/);
        assert.deepEqual(
          (rows ?? []).filter((r) => r.status !== "ok").map((r) => [r.method, r.reason]),
          [["graft", by.graft.reason]],
        );
        for (const m of ["hybrid", WITH_GENERATIVE, WITHOUT_RERANK, "dense-graph", "bm25", WHOLE_PAPER_BM25]) {
          const r = by[m];
          assert.equal(r.status, "ok", `${tbl.id} ${m}`);
          assert.ok((r["R@5"] as number) <= (r["R@20"] as number) && (r["R@20"] as number) <= (r["R@50"] as number));
          const [lo, hi] = r.ci?.["R@20"] ?? [NaN, NaN];
          assert.ok(lo <= (r["R@20"] as number) && (r["R@20"] as number) <= hi);
          assert.ok(r.latency && r.latency.meanMs > 0 && r.latency.p95Ms > 0);
        }
        assert.equal(by.bm25.ratio, undefined, "BM25 is the denominator");
        if (by.hybrid.ratio) assert.ok(Math.abs(by.hybrid.ratio.value - (by.hybrid["R@20"] as number) / (by.bm25["R@20"] as number)) < 1e-12);
        // No model: the ablation is the first stage it is compared with.
        assert.equal(by[WITH_GENERATIVE]["R@20"], by[WITHOUT_RERANK]["R@20"]);
        assert.equal(by[WITH_GENERATIVE].change?.value, 0);
        assert.equal(by[WITH_GENERATIVE].change?.from, WITHOUT_RERANK);
        assert.equal(by.hybrid.appliedFusion, "rrf");
        assert.equal(by.bm25.fusion, "rrf");
      }
    }
    const unseen = report.userPapers?.tables[1];
    const tuned = unseen?.sources.llm?.find((r) => r.method === "hybrid");
    if ((unseen?.tuning?.queries ?? 0) > 0) assert.equal(tuned?.tuning?.["R@20"], unseen?.tuningSources?.llm?.find((r) => r.method === "hybrid")?.["R@20"]);
  });

  test("the report keeps the stable schema, merges into eval-latest beside the paper's tables, and renders the tables first", () => {
    const out = mkdtempSync(path.join(os.tmpdir(), "graft-user-papers-report-"));
    try {
      writeReport(report, out);
      const day = report.date.slice(0, 10);
      const parsed = parseReport(readFileSync(path.join(out, `eval-smoke-${day}.json`), "utf8"));
      assert.equal(parsed.userPapers?.tables.length, 3);
      const md = readFileSync(path.join(out, `eval-smoke-${day}.md`), "utf8");
      assert.match(md, /## Related papers for papers you bring\n\nR@20 is the share/);
      assert.match(md, /### Papers users bring — set 1 \(2 out-of-corpus papers\)/);
      assert.match(md, /### Papers users bring — set 2 \(\d+ citing test papers queried as unseen, report half\)/);
      assert.match(md, /#### LLM facets/);
      assert.match(md, /#### Offline facets/);
      assert.match(md, /never returned and never a seed/);
      assert.match(md, /co-citation and coupling scores c/);
      assert.match(md, /chosen on the tuning halves of sets 2 and 3 only/);
      assert.match(md, /### Later work — set 3/);
      assert.match(md, /\| Graft alone \(the generative retriever: [^|]*; graph-RRF\) \| auto \| – \| – \| – \| – \| – \|/);
      // Merged after an older report that has only the paper's tables: both kept, user papers first.
      const older = JSON.parse(readFileSync(path.join(out, `eval-smoke-${day}.json`), "utf8")) as EvalReport;
      const previous: EvalReport = {
        ...older,
        suites: ["main"],
        userPapers: undefined,
        tables: { main: [{ method: "bm25", label: "BM25", status: "ok", "R@20": 0.1 }] },
      };
      const merged = mergeLatest(previous, { ...report, kind: "full" }, "x.md");
      assert.deepEqual(merged.suites, ["main", "user-papers"]);
      assert.ok(merged.tables.main && merged.userPapers);
      const text = reportMarkdown(merged);
      assert.ok(text.indexOf("Related papers for papers you bring") < text.indexOf("## Main results"));
      // A later run of another suite keeps the user-paper tables.
      const later = mergeLatest(merged, { ...previous, date: "2099-01-01T00:00:00.000Z", userPapers: undefined }, "y.md");
      assert.equal(later.userPapers?.tables.length, 3);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  test("--trec: a run file per set, source and row that ran, a qrels file per set, matching the runs' gold", () => {
    const files = readdirSync(path.join(dir, "trec"));
    const runFiles = files.filter((f) => f.endsWith(".run"));
    assert.ok(runFiles.includes("mini.ooc.llm.hybrid.run") && runFiles.includes("mini.ooc.offline.bm25.run"), runFiles.join(", "));
    assert.ok(!runFiles.some((f) => f.includes(".graft.")), "Graft alone did not run: no file");
    assert.ok(files.includes("mini.ooc.qrels"));
    const qrels = readFileSync(path.join(dir, "trec", "mini.ooc.qrels"), "utf8");
    assert.equal(qrels, "Q1 0 P1 1\nQ1 0 P5 1\nQ2 0 P2 1\n");
    const lines = readFileSync(path.join(dir, "trec", "mini.ooc.llm.hybrid.run"), "utf8")
      .trim()
      .split("\n");
    assert.ok(lines.length > 0);
    for (const l of lines) assert.match(l, /^Q[12] Q0 P\d \d+ \d+ hybrid$/);
  });

  test("a query limit takes a seeded sample in file order", () => {
    const qs = userPaperQueries(dir, "ooc");
    assert.deepEqual(sampleUserPapers(qs, 5, 0), qs);
    const one = sampleUserPapers(qs, 1, 3);
    assert.equal(one.length, 1);
    assert.deepEqual(sampleUserPapers(qs, 1, 3), one);
  });
});
