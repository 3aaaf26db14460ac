import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { ExtractionResult, FacetExtractor, PaperInput } from "../extractor";
import { llmConfig } from "./config";
import { createLlmExtractor } from "./extract";
import { extractAll, type ExtractProgress } from "./run";
import { completion, facetAnswer, startStubServer, type RecordedRequest, type StubServer } from "./stub-server";

const servers: StubServer[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

interface Paper extends PaperInput {
  id: string;
}

const papers = (n: number, prefix = "paper"): Paper[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}`, title: `${prefix}-${i}`, abstract: `Abstract of ${prefix}-${i}.` }));

/** The paper title the stub was asked about, read back from the prompt. */
function titleOf(req: RecordedRequest): string {
  const user = (req.body as { messages: { content: string }[] }).messages[1].content;
  return /\nTitle: (.*)/.exec(user)?.[1] ?? "";
}

/** Answers each paper after `delayMs`, its facets tagged with its title; titles ending in -bad / -err fail. */
async function paperServer(delayMs: number): Promise<StubServer> {
  const s = await startStubServer((req) => {
    const title = titleOf(req);
    if (title.endsWith("-bad")) return { ...completion("not json", { usage: { prompt_tokens: 10, completion_tokens: 1 } }), delayMs };
    if (title.endsWith("-err")) return { status: 400, json: { error: { message: "context too long" } }, delayMs };
    const n = Number(/-(\d+)$/.exec(title)?.[1] ?? 0);
    return { ...completion(JSON.stringify(facetAnswer(title)), { usage: { prompt_tokens: 100 + n, completion_tokens: 10 } }), delayMs };
  });
  servers.push(s);
  return s;
}

const cfg = (baseUrl: string) => llmConfig({ model: "test-model", baseUrl, timeoutMs: 2000, maxRetries: 1, retryBaseDelayMs: 5, retryMaxDelayMs: 20 });

test("bounded concurrency at the server; every paper's result and usage reported", async () => {
  const s = await paperServer(40);
  const input = papers(10);
  const results = new Map<string, ExtractionResult>();
  const progress: ExtractProgress[] = [];
  const summary = await extractAll(input, createLlmExtractor(cfg(s.baseUrl)), {
    concurrency: 3,
    onResult: (paper, result) => void results.set(paper.id, result),
    onProgress: (p) => progress.push(p),
  });
  assert.equal(s.maxInFlight, 3, "never more than 3 requests open, and the pool filled up");
  assert.equal(s.requests.length, 10);
  assert.equal(results.size, 10);
  for (const [i, paper] of input.entries()) {
    const r = results.get(paper.id);
    assert.ok(r?.ok, paper.id);
    assert.deepEqual(r.facets, facetAnswer(paper.title), "each paper gets its own facets");
    assert.deepEqual(r.usage, { promptTokens: 100 + i, completionTokens: 10 });
  }
  assert.deepEqual(summary, {
    total: 10,
    done: 10,
    ok: 10,
    invalid: 0,
    error: 0,
    usage: { promptTokens: 10 * 100 + 45, completionTokens: 100 },
    aborted: false,
  });
  assert.deepEqual(
    progress.map((p) => p.done),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  );
  assert.ok(progress.every((p) => p.inFlight >= 0 && p.inFlight <= 3));
});

test("concurrency 1 is sequential; mixed outcomes are counted, failed ones' usage included", async () => {
  const s = await paperServer(5);
  const input = [...papers(2), { id: "x", title: "x-bad", abstract: "" }, { id: "y", title: "y-err", abstract: "" }];
  const seen: [string, boolean, string?][] = [];
  const summary = await extractAll(input, createLlmExtractor(cfg(s.baseUrl)), {
    concurrency: 1,
    onResult: (p, r) => void seen.push([p.id, r.ok, r.ok ? undefined : r.kind]),
  });
  assert.equal(s.maxInFlight, 1);
  assert.deepEqual(seen, [
    ["paper-0", true, undefined],
    ["paper-1", true, undefined],
    ["x", false, "invalid"],
    ["y", false, "error"],
  ]);
  assert.equal(summary.ok, 2);
  assert.equal(summary.invalid, 1);
  assert.equal(summary.error, 1);
  assert.deepEqual(summary.usage, { promptTokens: 100 + 101 + 10, completionTokens: 21 });
});

test("resume: a second run over the papers still lacking facets finishes the set", async () => {
  const s = await paperServer(5);
  const input = [...papers(3), { id: "p-bad", title: "p-bad", abstract: "" }];
  const store = new Map<string, string[]>(); // what a caller persists: facets by paper id
  const persist = (p: Paper, r: ExtractionResult) => {
    if (r.ok) store.set(p.id, r.facets.problems);
  };
  await extractAll(input, createLlmExtractor(cfg(s.baseUrl)), { concurrency: 2, onResult: persist });
  assert.equal(store.size, 3);
  const before = s.requests.length;
  const missing = input.filter((p) => !store.has(p.id));
  assert.deepEqual(
    missing.map((p) => p.id),
    ["p-bad"],
  );
  await extractAll(missing, createLlmExtractor(cfg(s.baseUrl)), { concurrency: 2, onResult: persist });
  assert.equal(s.requests.length - before, 1, "only the unprocessed paper is requested again");
});

test("abort: no new papers are started, in-flight ones are abandoned and not reported", async () => {
  const s = await paperServer(60);
  const ac = new AbortController();
  const reported: string[] = [];
  const summary = await extractAll(papers(20), createLlmExtractor(cfg(s.baseUrl)), {
    concurrency: 2,
    signal: ac.signal,
    onResult: (p) => {
      reported.push(p.id);
      if (reported.length === 3) ac.abort();
    },
  });
  assert.equal(summary.aborted, true);
  assert.equal(summary.done, reported.length);
  assert.ok(reported.length >= 3 && reported.length <= 4, `reported ${reported.length}`);
  assert.ok(s.requests.length <= 5, `${s.requests.length} requests: scheduling stopped`);
});

test("onResult calls never overlap, and a throwing onResult stops the run and rejects", async () => {
  let active = 0;
  let maxActive = 0;
  const fake: FacetExtractor = {
    id: "fake",
    extract: async (paper) => {
      await new Promise((r) => setTimeout(r, 2));
      return { ok: true, facets: facetAnswer(paper.title), truncated: false, model: "fake" };
    },
  };
  await extractAll(papers(12), fake, {
    concurrency: 4,
    onResult: async () => {
      maxActive = Math.max(maxActive, ++active);
      await new Promise((r) => setTimeout(r, 3));
      active--;
    },
  });
  assert.equal(maxActive, 1);

  let calls = 0;
  let started = 0;
  const counting: FacetExtractor = { ...fake, extract: (p, o) => (started++, fake.extract(p, o)) };
  await assert.rejects(
    extractAll(papers(50), counting, {
      concurrency: 2,
      onResult: () => {
        if (++calls === 2) throw new Error("disk full");
      },
    }),
    /disk full/,
  );
  assert.ok(started <= 5, `started ${started} of 50`);
});

test("an extractor that throws is reported as an error result, the run goes on", async () => {
  const flaky: FacetExtractor = {
    id: "flaky",
    extract: async (paper) => {
      if (paper.title.endsWith("-1")) throw new Error("bug");
      return { ok: true, facets: facetAnswer(paper.title), truncated: false, model: "flaky" };
    },
  };
  const results: ExtractionResult[] = [];
  const summary = await extractAll(papers(3), flaky, { concurrency: 2, onResult: (_p, r) => void results.push(r) });
  assert.equal(summary.ok, 2);
  assert.equal(summary.error, 1);
  assert.ok(results.some((r) => !r.ok && r.kind === "error" && /extractor flaky threw: Error: bug/.test(r.reason)));
  await assert.rejects(extractAll(papers(1), flaky, { concurrency: 0 }), /concurrency must be a whole number/);
  assert.deepEqual(await extractAll([], flaky, { concurrency: 3 }), {
    total: 0,
    done: 0,
    ok: 0,
    invalid: 0,
    error: 0,
    usage: { promptTokens: 0, completionTokens: 0 },
    aborted: false,
  });
});
