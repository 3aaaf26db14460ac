import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { FACETS } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { createTestDb, type TestDb } from "@/lib/db/testing";
import { extractCorpus, planExtraction, supersedes, type PaperState } from "./extract-corpus";
import type { ExtractionResult, FacetExtractor, PaperInput } from "./extractor";
import { llmConfig } from "./llm/config";
import { createLlmExtractor } from "./llm/extract";
import { completion, facetAnswer, startStubServer, type RecordedRequest, type StubServer } from "./llm/stub-server";
import { OfflineFacetExtractor } from "./offline/extractor";

// ── planning (pure) ───────────────────────────────────────────────────────────────────────

const state = (id: number, over: Partial<PaperState> = {}): PaperState => ({
  id,
  facetStatus: "none",
  origin: "none",
  lastFailure: null,
  inStudy: false,
  ...over,
});

test("supersedes: offline < llm; imported and mixed facets only with overwrite", () => {
  assert.equal(supersedes("offline", "offline"), true);
  assert.equal(supersedes("offline", "llm"), false);
  assert.equal(supersedes("llm", "offline"), true);
  assert.equal(supersedes("llm", "llm"), true);
  assert.equal(supersedes("llm", "import"), false);
  assert.equal(supersedes("offline", "mixed"), false);
  assert.equal(supersedes("offline", "none"), true);
});

test("plan: papers without facets, transport failures; invalid answers, facets and studies skipped", () => {
  const papers = [
    state(1),
    state(2, { facetStatus: "failed", lastFailure: "error" }),
    state(3, { facetStatus: "failed", lastFailure: "invalid" }),
    state(4, { facetStatus: "imported", origin: "import" }),
    state(5, { facetStatus: "extracted", origin: "offline" }),
    state(6, { facetStatus: "extracted", origin: "llm" }),
    state(7, { inStudy: true }),
    state(8, { facetStatus: "imported", origin: "none" }), // imported with empty lists: nothing to keep
  ];
  assert.deepEqual(planExtraction(papers, { provider: "offline" }), {
    selected: [1, 2, 8],
    skipped: { hasFacets: 3, protected: 0, invalid: 1, inStudy: 1 },
  });
  assert.deepEqual(planExtraction(papers, { provider: "offline", retryInvalid: true }).selected, [1, 2, 3, 8]);
  assert.deepEqual(planExtraction(papers, { provider: "offline", force: true }), {
    selected: [1, 2, 5, 8],
    skipped: { hasFacets: 0, protected: 2, invalid: 1, inStudy: 1 },
  });
  assert.deepEqual(planExtraction(papers, { provider: "llm", force: true }).selected, [1, 2, 5, 6, 8]);
  assert.deepEqual(planExtraction(papers, { provider: "offline", overwrite: true }), {
    selected: [1, 2, 4, 5, 6, 8],
    skipped: { hasFacets: 0, protected: 0, invalid: 1, inStudy: 1 },
  });
});

// ── against a store ───────────────────────────────────────────────────────────────────────

/** An extractor scripted per title: "<x>-bad" → invalid, "<x>-err" → error, else facets tagged with the title. */
function scripted(id = "offline"): FacetExtractor & { calls: string[] } {
  const calls: string[] = [];
  return {
    id,
    calls,
    async extract(paper: PaperInput): Promise<ExtractionResult> {
      calls.push(paper.title);
      const model = `${id}-model`;
      if (paper.title.endsWith("-bad"))
        return { ok: false, kind: "invalid", reason: "answer violates the facet schema", model, usage: { promptTokens: 7, completionTokens: 2 } };
      if (paper.title.endsWith("-err")) return { ok: false, kind: "error", reason: "could not reach the server", model };
      return { ok: true, facets: facetAnswer(paper.title), truncated: false, model, usage: { promptTokens: 100, completionTokens: 20 } };
    },
  };
}

describe("extractCorpus", { concurrency: false }, () => {
  let t: TestDb;
  let db: Db;
  let corpusId: number;

  before(async () => {
    t = await createTestDb();
    db = t.db;
  });
  after(() => t.cleanup());

  /** A fresh corpus "c" whose papers are titled as given; `imported` ones get imported facets. */
  async function seed(titles: string[], imported: string[] = []): Promise<void> {
    await db.corpus.deleteMany({});
    corpusId = (await db.corpus.create({ data: { name: "c" } })).id;
    for (const title of titles) {
      const p = await db.paper.create({
        data: {
          corpusId,
          externalId: title,
          title,
          titleSearch: title,
          abstract: `About ${title}.`,
          facetStatus: imported.includes(title) ? "imported" : "none",
        },
      });
      if (imported.includes(title)) {
        await db.facetItem.createMany({
          data: FACETS.map((facet) => ({ paperId: p.id, facet, position: 0, text: `imported ${facet} of ${title}`, source: "import" })),
        });
      }
    }
  }

  const paper = (title: string) =>
    db.paper.findFirstOrThrow({
      where: { corpusId, externalId: title },
      include: { facetItems: { orderBy: [{ facet: "asc" }, { position: "asc" }] }, extractions: { orderBy: { id: "asc" } } },
    });

  beforeEach(async () => {
    await seed(["a", "b-bad", "c-err", "d"], ["d"]);
  });

  test("extracts papers without facets; stores items, status, failures and per-paper token usage", async () => {
    const ex = scripted();
    const s = await extractCorpus(db, { corpus: "c", extractor: ex, concurrency: 2 });
    assert.deepEqual([...ex.calls].sort(), ["a", "b-bad", "c-err"]);
    assert.equal(s.selected, 3);
    assert.deepEqual(s.skipped, { hasFacets: 1, protected: 0, invalid: 0, inStudy: 0 });
    assert.deepEqual([s.ok, s.invalid, s.error, s.itemsWritten], [1, 1, 1, 10]);
    assert.deepEqual(s.usage, { promptTokens: 107, completionTokens: 22 });

    const a = await paper("a");
    assert.equal(a.facetStatus, "extracted");
    assert.equal(a.facetError, null);
    const expected = facetAnswer("a");
    assert.deepEqual(
      a.facetItems.filter((i) => i.facet === "methods").map((i) => [i.position, i.text, i.source]),
      expected.methods.map((text, i) => [i, text, "offline"]),
    );
    assert.equal(a.facetItems.length, 10);
    assert.deepEqual(
      a.extractions.map((e) => [e.provider, e.model, e.status, e.promptTokens, e.completionTokens, e.truncated]),
      [["offline", "offline-model", "ok", 100, 20, false]],
    );
    // Attempts are written as multi-row INSERTs: createdAt still reads back as a recent Date.
    const at = a.extractions[0].createdAt;
    assert.ok(at instanceof Date && Math.abs(Date.now() - at.getTime()) < 10 * 60_000, String(at));

    const bad = await paper("b-bad");
    assert.equal(bad.facetStatus, "failed");
    assert.match(bad.facetError ?? "", /^invalid: answer violates the facet schema/);
    assert.equal(bad.facetItems.length, 0);
    assert.deepEqual(
      bad.extractions.map((e) => [e.status, e.promptTokens]),
      [["invalid", 7]],
    );

    const err = await paper("c-err");
    assert.equal(err.facetStatus, "failed");
    assert.deepEqual(
      err.extractions.map((e) => [e.status, e.promptTokens]),
      [["error", null]],
    );

    const d = await paper("d");
    assert.equal(d.facetStatus, "imported");
    assert.ok(d.facetItems.every((i) => i.source === "import"));
  });

  test("re-running retries transport errors only; --retry-invalid re-runs invalid answers", async () => {
    await extractCorpus(db, { corpus: "c", extractor: scripted(), concurrency: 1 });
    const again = scripted();
    const s = await extractCorpus(db, { corpus: "c", extractor: again, concurrency: 1 });
    assert.deepEqual(again.calls, ["c-err"]);
    assert.deepEqual(s.skipped, { hasFacets: 2, protected: 0, invalid: 1, inStudy: 0 });
    assert.equal((await paper("c-err")).extractions.length, 2, "each attempt is recorded");
    const retry = scripted();
    await extractCorpus(db, { corpus: "c", extractor: retry, concurrency: 1, retryInvalid: true });
    assert.deepEqual(retry.calls, ["b-bad", "c-err"]);
  });

  test("--force never replaces imported facets; offline keeps LLM facets; --overwrite replaces both", async () => {
    await extractCorpus(db, { corpus: "c", extractor: scripted("llm"), concurrency: 1 });
    assert.equal((await paper("a")).facetItems[0].source, "llm");
    const off = scripted("offline");
    const s = await extractCorpus(db, { corpus: "c", extractor: off, concurrency: 1, force: true });
    assert.deepEqual(off.calls, ["c-err"], "a (llm) and d (imported) are protected, b-bad was invalid");
    assert.equal(s.skipped.protected, 2);
    assert.equal((await paper("a")).facetItems[0].source, "llm");

    const llm = scripted("llm");
    await extractCorpus(db, { corpus: "c", extractor: llm, concurrency: 1, force: true });
    assert.deepEqual(llm.calls, ["a", "c-err"], "llm --force re-does its own facets, not imported ones");

    const over = scripted("offline");
    await extractCorpus(db, { corpus: "c", extractor: over, concurrency: 1, overwrite: true });
    assert.deepEqual(over.calls, ["a", "c-err", "d"]);
    const d = await paper("d");
    assert.equal(d.facetStatus, "extracted");
    assert.ok(d.facetItems.every((i) => i.source === "offline"));
  });

  test("a failed re-extraction keeps the paper's facets; a paper in a study is never touched", async () => {
    await seed(["x", "y"]);
    await extractCorpus(db, { corpus: "c", extractor: scripted(), concurrency: 1 });
    const before = (await paper("x")).facetItems.map((i) => i.text);
    const failing: FacetExtractor = { id: "offline", extract: async () => ({ ok: false, kind: "invalid", reason: "nope", model: "m" }) };
    const s = await extractCorpus(db, { corpus: "c", extractor: failing, concurrency: 1, force: true });
    assert.equal(s.keptPrevious, 2);
    const x = await paper("x");
    assert.equal(x.facetStatus, "extracted");
    assert.deepEqual(
      x.facetItems.map((i) => i.text),
      before,
    );
    assert.deepEqual(
      x.extractions.map((e) => e.status),
      ["ok", "invalid"],
    );

    const study = await db.study.create({ data: { corpusId, name: "s", seed: 1 } });
    await db.studyItem.create({ data: { studyId: study.id, facetItemId: x.facetItems[0].id, paperId: x.id, position: 0 } });
    const ex = scripted();
    const s2 = await extractCorpus(db, { corpus: "c", extractor: ex, concurrency: 1, overwrite: true });
    assert.deepEqual(ex.calls, ["y"]);
    assert.equal(s2.skipped.inStudy, 1);
    assert.equal(await db.studyItem.count(), 1);
  });

  test("an interrupted run keeps what finished, and re-running finishes the rest", async () => {
    await seed(Array.from({ length: 12 }, (_, i) => `p${i}`));
    const ac = new AbortController();
    let n = 0;
    const slow: FacetExtractor = {
      id: "offline",
      async extract(p, opts) {
        if (++n === 6) ac.abort(new Error("stop"));
        opts?.signal?.throwIfAborted();
        return { ok: true, facets: facetAnswer(p.title), truncated: false, model: "m" };
      },
    };
    const s = await extractCorpus(db, { corpus: "c", extractor: slow, concurrency: 1, signal: ac.signal, batchSize: 4 });
    assert.equal(s.aborted, true);
    assert.equal(s.ok, 5);
    assert.equal(await db.paper.count({ where: { corpusId, facetStatus: "extracted" } }), 5, "the partial batch was flushed");
    const rest = scripted();
    const s2 = await extractCorpus(db, { corpus: "c", extractor: rest, concurrency: 3 });
    assert.equal(s2.selected, 7);
    assert.equal(rest.calls.length, 7);
    assert.equal(await db.paper.count({ where: { corpusId, facetStatus: "extracted" } }), 12);
  });

  test("a timer (e.g. Ctrl-C) can stop a run of an extractor that never waits on I/O", async () => {
    await db.corpus.deleteMany({});
    corpusId = (await db.corpus.create({ data: { name: "c" } })).id;
    await db.paper.createMany({
      data: Array.from({ length: 300 }, (_, i) => ({ corpusId, externalId: `s${i}`, title: `s${i}`, titleSearch: `s${i}`, abstract: "x" })),
    });
    const ac = new AbortController();
    let calls = 0;
    let timer: NodeJS.Timeout | undefined;
    const busy: FacetExtractor = {
      id: "offline",
      async extract(p) {
        // A timer armed mid-run (not a wall-clock deadline, which a slow database start would
        // miss) fires only if the run yields to the event loop between papers.
        if (++calls === 5) timer = setTimeout(() => ac.abort(new Error("interrupted")), 0);
        const until = performance.now() + 1; // synchronous work, like the offline extractor
        while (performance.now() < until);
        return { ok: true, facets: facetAnswer(p.title, [1, 1, 1, 1]), truncated: false, model: "m" };
      },
    };
    const s = await extractCorpus(db, { corpus: "c", extractor: busy, concurrency: 1, signal: ac.signal });
    clearTimeout(timer);
    assert.equal(s.aborted, true, "the timer fired before the run finished");
    assert.ok(s.ok >= 4 && s.ok < 300, `${s.ok} extracted`);
    assert.equal(await db.paper.count({ where: { corpusId, facetStatus: "extracted" } }), s.ok);
  });

  test("a run stops itself after consecutive errors instead of failing every paper", async () => {
    await seed(Array.from({ length: 30 }, (_, i) => `q${i}-err`));
    const ex = scripted();
    const s = await extractCorpus(db, { corpus: "c", extractor: ex, concurrency: 1, maxConsecutiveErrors: 5 });
    assert.equal(s.error, 5);
    assert.match(s.stopped ?? "", /5 consecutive errors; the last: could not reach the server/);
    assert.equal(s.aborted, false);
    assert.equal(await db.paper.count({ where: { corpusId, facetStatus: "failed" } }), 5);
  });

  test("--dry-run and --limit", async () => {
    const ex = scripted();
    const dry = await extractCorpus(db, { corpus: "c", extractor: ex, concurrency: 1, dryRun: true });
    assert.equal(dry.selected, 3);
    assert.equal(ex.calls.length, 0);
    assert.equal(await db.extraction.count(), 0);
    const one = await extractCorpus(db, { corpus: "c", extractor: ex, concurrency: 1, limit: 1 });
    assert.equal(one.selected, 1);
    assert.deepEqual(ex.calls, ["a"]);
    await assert.rejects(extractCorpus(db, { corpus: "nope", extractor: ex, concurrency: 1 }), /no corpus named "nope"/);
  });

  describe("with the LLM extractor and a stub server", () => {
    let server: StubServer;
    after(() => server?.close());

    const titleOf = (req: RecordedRequest) => /\nTitle: (.*)/.exec((req.body as { messages: { content: string }[] }).messages[1].content)?.[1] ?? "";

    test("schema failures are discarded (not retried), 429/5xx retried, usage per paper, concurrency bounded", async () => {
      await seed(["ok-1", "ok-2", "six-items", "flaky", "ok-3"]);
      const seen = new Map<string, number>();
      server = await startStubServer((req) => {
        const title = titleOf(req);
        const n = (seen.get(title) ?? 0) + 1;
        seen.set(title, n);
        const usage = { prompt_tokens: 50 + title.length, completion_tokens: 9 };
        if (title === "six-items")
          return {
            ...completion(JSON.stringify({ ...facetAnswer(title), methods: ["1", "2", "3", "4", "5", "6"] }), { usage, model: "stub-2025" }),
            delayMs: 20,
          };
        if (title === "flaky" && n === 1) return { status: 429, headers: { "retry-after-ms": "10" }, json: { error: { message: "slow down" } } };
        if (title === "flaky" && n === 2) return { status: 503, text: "busy" };
        return { ...completion(JSON.stringify(facetAnswer(title)), { usage, model: "stub-2025" }), delayMs: 20 };
      });
      const config = llmConfig({ model: "stub", baseUrl: server.baseUrl, timeoutMs: 2000, maxRetries: 3, retryBaseDelayMs: 5, retryMaxDelayMs: 20 });
      const s = await extractCorpus(db, { corpus: "c", extractor: createLlmExtractor(config), concurrency: 2 });
      assert.ok(server.maxInFlight <= 2);
      assert.deepEqual([s.ok, s.invalid, s.error], [4, 1, 0]);
      assert.equal(seen.get("six-items"), 1, "an invalid answer is not retried");
      assert.equal(seen.get("flaky"), 3, "429 and 503 are retried");
      const six = await paper("six-items");
      assert.equal(six.facetStatus, "failed");
      assert.match(six.facetError ?? "", /invalid: answer violates the facet schema: methods: expected 1-5 items, got 6/);
      assert.deepEqual(
        six.extractions.map((e) => [e.provider, e.status, e.promptTokens, e.completionTokens]),
        [["llm", "invalid", 59, 9]],
      );
      const ok = await paper("ok-1");
      assert.deepEqual(
        ok.extractions.map((e) => [e.model, e.status, e.promptTokens, e.completionTokens]),
        [["stub-2025", "ok", 54, 9]],
      );
      assert.deepEqual(
        ok.facetItems.filter((i) => i.facet === "results").map((i) => i.text),
        facetAnswer("ok-1").results,
      );
      assert.ok(ok.facetItems.every((i) => i.source === "llm"));
      assert.deepEqual(s.models, ["stub-2025"]);
    });
  });
});

// ── the offline extractor on worker threads ──────────────────────────────────────────────

test("offline extraction on two worker threads stores what the in-process run stores, in the same order", async () => {
  const t = await createTestDb();
  try {
    const db = t.db;
    const methods = ["a transition-based parser", "a CRF tagger", "attention over characters", "a graph neural network", "back-translation"];
    const tasks = ["dependency parsing", "named entity recognition", "machine translation", "summarization"];
    // Varied abstracts, two without any text (failed as invalid), one paper with a body.
    const papers = Array.from({ length: 240 }, (_, i) => ({
      externalId: `p${i}`,
      title: i % 97 === 5 ? "" : `${methods[i % 5]} for ${tasks[i % 4]} ${i}`,
      abstract:
        i % 97 === 5
          ? ""
          : `${tasks[i % 4]} remains hard for low-resource languages. We propose ${methods[i % 5]} trained with ${i % 3 ? "multi-task learning" : "distillation"}. ` +
            `Experiments on ${(i % 9) + 2} benchmarks show gains of ${i % 11} points over strong baselines. We release our code and models.`,
      fullText: i === 7 ? "Introduction\nWe study parsing.\nMethod\nWe propose a new parser.\nResults\nIt is faster." : null,
    }));
    const stored = async (corpus: string) => {
      const rows = await db.paper.findMany({
        where: { corpus: { name: corpus } },
        orderBy: { id: "asc" },
        include: { facetItems: { orderBy: { id: "asc" } }, extractions: { orderBy: { id: "asc" } } },
      });
      const items = await db.facetItem.findMany({ where: { paper: { corpus: { name: corpus } } }, orderBy: { id: "asc" }, include: { paper: true } });
      return {
        papers: rows.map((p) => ({
          externalId: p.externalId,
          facetStatus: p.facetStatus,
          facetError: p.facetError,
          items: p.facetItems.map((i) => [i.facet, i.position, i.text, i.source]),
          attempts: p.extractions.map((e) => [e.provider, e.model, e.status, e.error, e.truncated]),
        })),
        // Insertion order across papers: the order results were written.
        written: items.map((i) => i.paper.externalId),
      };
    };
    const runs = [];
    for (const [corpus, threads] of [
      ["one", 0],
      ["two", 2],
    ] as const) {
      const { id } = await db.corpus.create({ data: { name: corpus } });
      await db.paper.createMany({ data: papers.map((p) => ({ ...p, corpusId: id, titleSearch: p.title })) });
      const s = await extractCorpus(db, { corpus, extractor: new OfflineFacetExtractor(), concurrency: 1, threads, batchSize: 50 });
      runs.push({ summary: { ...s, corpus: "", seconds: 0 }, stored: await stored(corpus) });
    }
    assert.deepEqual(runs[1], runs[0]);
    assert.deepEqual([runs[0].summary.ok, runs[0].summary.invalid, runs[0].summary.error], [237, 3, 0]);
    assert.ok(runs[0].stored.papers.every((p) => p.items.length >= 4 || p.facetStatus === "failed"));
  } finally {
    await t.cleanup();
  }
});
