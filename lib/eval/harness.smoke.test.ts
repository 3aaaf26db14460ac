/**
 * End-to-end smoke run of the evaluation harness (CI): every suite on a ~170-paper slice of
 * the demo corpus with the tiny random BERT fixture as embedder, a few dozen queries, and a
 * generative provider that "decodes" from dense item lists, so every table, the provider seam,
 * the Markdown/JSON/SVG writers and the report schema are exercised in well under a minute.
 * The numbers are meaningless (random embeddings); the assertions check the wiring and the
 * invariants that hold whatever the embeddings.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { defaultCorpusPath } from "@/lib/paths";
import { FACETS } from "@/lib/corpus";
import { mulberry32 } from "@/lib/random";
import { denseItemLists, prepareItemLists } from "./baselines";
import { loadCorpusData } from "@/lib/graph/corpus-data";
import { paperItems } from "./dense-graph";
import type { GenerativeProvider, GenerativeResult } from "./generative";
import { runEvaluation } from "./harness";
import { parseReport, writeReport, type EvalReport } from "./report";

const TINY_BERT = fileURLToPath(new URL("../embed/fixtures/tiny-bert", import.meta.url));
const EMBEDDER = `minilm:${TINY_BERT}`;

/** A slice of the demo corpus: 12 out-of-corpus queries with their gold, plus sampled papers of every split. */
function writeSlice(dir: string): void {
  const src = defaultCorpusPath();
  const lines = (f: string): string[] =>
    readFileSync(path.join(src, f), "utf8")
      .split("\n")
      .filter((l) => l.trim());
  const papers = lines("papers.jsonl").map((l) => ({ line: l, row: JSON.parse(l) as { id: string; split: string } }));
  const queries = lines("ooc-queries.jsonl").slice(0, 12);
  const queryIds = new Set(queries.map((l) => (JSON.parse(l) as { id: string }).id));
  const goldRows = lines("ooc-gold.tsv")
    .slice(1)
    .map((l) => l.split("\t"));
  const keep = new Set(goldRows.filter(([q]) => queryIds.has(q)).map(([, d]) => d));
  const rand = mulberry32(7);
  const quota: Record<string, number> = { train: 80, dev: 30, test: 50 };
  for (const p of [...papers].sort(() => rand() - 0.5)) {
    if (quota[p.row.split] > 0 && !keep.has(p.row.id)) {
      keep.add(p.row.id);
      quota[p.row.split]--;
    }
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "papers.jsonl"),
    `${papers
      .filter((p) => keep.has(p.row.id))
      .map((p) => p.line)
      .join("\n")}\n`,
  );
  const cites = lines("citations.tsv")
    .slice(1)
    .filter((l) => l.split("\t").every((id) => keep.has(id)));
  writeFileSync(path.join(dir, "citations.tsv"), `citing\tcited\n${cites.join("\n")}\n`);
  writeFileSync(path.join(dir, "ooc-queries.jsonl"), `${queries.join("\n")}\n`);
  writeFileSync(
    path.join(dir, "ooc-gold.tsv"),
    `query\tcited\n${goldRows
      .filter(([q, d]) => queryIds.has(q) && keep.has(d))
      .map((r) => r.join("\t"))
      .join("\n")}\n`,
  );
}

/**
 * A stand-in provider: candidate lists from each query item's nearest corpus items (what a
 * perfectly trained decoder of the dense teacher would emit), with log-probabilities from the
 * rescaled cosine. "docid-c2t" is declined, to exercise the "not run" path.
 */
async function itemListProvider(corpusDir: string, cacheRoot: string): Promise<GenerativeProvider> {
  const data = await loadCorpusData(corpusDir, { embedder: EMBEDDER, cacheRoot });
  const index = prepareItemLists(data.items);
  const byId = new Map(data.queries.ids.map((id, i) => [id, i]));
  return {
    unavailable: (v) => (v === "docid-c2t" ? "C2T identifiers are not part of the smoke provider" : null),
    describe: (v) => ({ provider: "dense item lists (smoke test stand-in)", variant: v }),
    run: async (variant, queries, options) => {
      assert.equal(options.embedder, data.embedderId);
      assert.deepEqual(options.corpusIds, data.ids);
      return queries.map((q): GenerativeResult => {
        // The harness hands over the query's item vectors: the same as the corpus's own for an indexed paper.
        const own =
          q.corpusIndex !== null
            ? paperItems(data.items, q.corpusIndex)
            : Object.fromEntries(FACETS.map((f) => [f, data.queries.items[f][byId.get(q.id) as number]]));
        for (const f of FACETS) assert.deepEqual(q.items[f], own[f]);
        const lists = denseItemLists(index, q.items, { perItem: 10, exclude: q.corpusIndex ?? -1 });
        const logp = Object.fromEntries(
          Object.entries(lists).map(([f, l]) => [f, l?.map((c) => ({ ...c, score: Math.log((1 + (c.score ?? 0)) / 2 + 1e-9) }))]),
        );
        if (variant === "minder") return { views: { title: logp.problems ?? [], substring: logp.methods ?? [] } };
        return { lists: logp };
      });
    },
  };
}

describe("evaluation harness, end to end (smoke)", () => {
  let root = "";
  let report: EvalReport;
  let out = "";

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "graft-eval-smoke-"));
    const corpus = path.join(root, "corpus");
    writeSlice(corpus);
    const cacheRoot = path.join(root, "data");
    report = await runEvaluation({
      corpusDir: corpus,
      suites: ["main", "ooc", "ablations"],
      embedder: EMBEDDER,
      cacheRoot,
      resamples: 50,
      kind: "smoke",
      limits: { test: 24, dev: 12 },
      generative: await itemListProvider(corpus, cacheRoot),
      command: "harness.smoke.test.ts",
    });
    out = path.join(root, "reports");
    writeReport(report, out);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("fills every table, with numbers only on rows that ran", () => {
    for (const t of ["main", "ooc", "fusion", "leaveOneOut", "walkDepth", "alpha", "kMin", "identifiers", "supervision"] as const) {
      const rows = report.tables[t];
      assert.ok(rows && rows.length > 0, `table ${t} is empty`);
      for (const r of rows) {
        if (r.status === "ok") {
          for (const c of ["R@5", "R@10", "R@20", "R@50"] as const)
            if (r[c] !== undefined) assert.ok((r[c] as number) >= 0 && (r[c] as number) <= 1, `${t}/${r.method} ${c}`);
        } else {
          assert.ok(r.reason && r.reason.length > 0, `${t}/${r.method} has no reason`);
          assert.equal(r["R@20"], undefined, `${t}/${r.method} is ${r.status} but has numbers`);
        }
      }
    }
    const main = Object.fromEntries((report.tables.main ?? []).map((r) => [r.method, r]));
    for (const m of ["dense-graph", "doc-dense", "dense-only", "bm25", "minder", "graft-uniform", "graft-oversample", "graft-floor", "graft"])
      assert.equal(main[m]?.status, "ok", m);
    assert.equal(main.specter2.status, "not reproduced");
    assert.equal(main.specter2.paper?.["R@20"], 0.22);
    assert.equal(main["dense-graph"].queries, 24);
    assert.equal(report.tables.identifiers?.find((r) => r.method === "docid-c2t")?.status, "not run");
    // Recall is cumulative in k.
    const dg = main["dense-graph"];
    assert.ok((dg["R@5"] as number) <= (dg["R@20"] as number) && (dg["R@20"] as number) <= (dg["R@50"] as number));
    assert.equal(report.tables.ooc?.find((r) => r.method === "graft")?.status, "ok");
    assert.equal(report.tables.ooc?.find((r) => r.method === "graft")?.queries, 12);
  });

  it("computes fusion rows from both the dense item lists and the provider's lists", () => {
    const fusion = report.tables.fusion ?? [];
    for (const lists of ["dense-items", "generative:+floor"]) {
      for (const m of ["best-single-facet", "rrf", "lm-score", "graph-rrf"])
        assert.equal(fusion.find((r) => r.lists === lists && r.method === m)?.status, "ok", `${lists}/${m}`);
    }
    const loo = (report.tables.leaveOneOut ?? []).filter((r) => r.lists === "dense-items");
    assert.equal(loo.length, 5);
    const full = loo[0]["R@20"] as number;
    for (const r of loo.slice(1)) assert.ok(Math.abs((r.delta as number) - ((r["R@20"] as number) - full)) < 1e-12);
  });

  it("graph-RRF's in-corpus attribution is exact by construction; other rows are measured", () => {
    const a = report.attribution;
    assert.ok(a);
    assert.equal(a.fusion, "graph-rrf");
    assert.equal(a.lists, "generative:+floor");
    assert.equal(a.precision, 1);
    assert.equal(a.subsetShare, 1);
    const rrfRow = a.rows.find((r) => r.id === "rrf:dense-items");
    assert.ok(rrfRow?.status === "ok" && (rrfRow.precision as number) <= 1 && (rrfRow.pairs as number) > 0);
    assert.ok(a.rows.some((r) => r.setting === "out-of-corpus" && r.status === "ok"));
  });

  it("reports coverage by K and per distillation recipe", () => {
    const c = report.coverage;
    assert.ok(c);
    assert.deepEqual(
      c.byK.map((r) => r.k),
      [10, 20, 50],
    );
    assert.ok(c.byK[0].share <= c.byK[1].share && c.byK[1].share <= c.byK[2].share);
    const v = Object.fromEntries(c.variants.map((r) => [r.variant, r]));
    assert.ok((v.uniform.targetCoverage as number) <= (v["+fallback"].targetCoverage as number));
    assert.ok((v["+oversample"].examples as number) >= (v.uniform.examples as number));
  });

  it("analyses non-obvious retrievals out of corpus", () => {
    const n = report.nonObvious;
    assert.ok(n);
    assert.equal(n.queries, 12);
    for (const r of n.rows.filter((x) => x.status === "ok")) {
      assert.ok((r.nonObviousShare as number) >= 0 && (r.nonObviousShare as number) <= 1);
      assert.ok((r.retrieved as number) <= 12 * 20);
    }
  });

  it("writes Markdown, JSON that parses with the stable schema, and SVG plots; never eval-latest", () => {
    const day = report.date.slice(0, 10);
    const md = readFileSync(path.join(out, `eval-smoke-${day}.md`), "utf8");
    assert.match(md, /## Main results/);
    assert.match(md, /## Attribution/);
    assert.match(md, /## Coverage/);
    const parsed = parseReport(readFileSync(path.join(out, `eval-smoke-${day}.json`), "utf8"));
    assert.equal(parsed.kind, "smoke");
    assert.equal(parsed.manifest.embedder, `minilm:${TINY_BERT}`);
    for (const svg of ["eval-smoke-recall-main.svg", "eval-smoke-recall-ooc.svg", "eval-smoke-coverage.svg"])
      assert.match(readFileSync(path.join(out, svg), "utf8"), /^<svg /);
    assert.equal(existsSync(path.join(out, "eval-latest.json")), false);
  });
});
