import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiKey, llmConfig, type LlmConfig } from "./config";
import { createLlmExtractor, parseFacetAnswer, stripCodeFence } from "./extract";
import { FACET_JSON_SCHEMA, SYSTEM_PROMPT, TRUNCATION_MARKER } from "./prompt";
import { completion, facetAnswer, sequence, stubServerStarter } from "./stub-server";

const stub = stubServerStarter();

function cfg(baseUrl: string, over: Partial<LlmConfig> = {}): LlmConfig {
  return llmConfig({ model: "test-model", baseUrl, timeoutMs: 3000, maxRetries: 2, retryBaseDelayMs: 5, retryMaxDelayMs: 20, ...over });
}

const PAPER = {
  title: "Graph-Distilled Retrieval",
  abstract: "We distil a typed paper graph into a generative retriever.",
  body: "1 Introduction\nRelated-paper retrieval matters.",
};

interface SentBody {
  model: string;
  messages: { role: string; content: string }[];
  response_format: unknown;
}

test("valid answer: facets kept verbatim, usage and the server's model recorded, request as specified", async () => {
  const answer = facetAnswer("P1");
  answer.methods[0] = "  Keeps   spacing as returned. ";
  const s = await stub(() => completion(JSON.stringify(answer), { usage: { prompt_tokens: 900, completion_tokens: 120 }, model: "test-model-2025-08-07" }));
  const ex = createLlmExtractor(cfg(s.baseUrl, { apiKey: new ApiKey("sk-x") }));
  assert.equal(ex.id, "llm");
  const r = await ex.extract(PAPER);
  assert.deepEqual(r, {
    ok: true,
    facets: answer,
    usage: { promptTokens: 900, completionTokens: 120 },
    truncated: false,
    model: "test-model-2025-08-07",
  });

  assert.equal(s.requests.length, 1);
  const req = s.requests[0];
  assert.equal(req.headers.authorization, "Bearer sk-x");
  const body = req.body as SentBody;
  assert.equal(body.model, "test-model");
  assert.deepEqual(
    body.messages.map((m) => m.role),
    ["system", "user"],
  );
  assert.equal(body.messages[0].content, SYSTEM_PROMPT);
  const user = body.messages[1].content;
  assert.match(user, /^Analyse this academic paper and extract the following facets\./);
  for (const part of [PAPER.title, PAPER.abstract, PAPER.body]) assert.ok(user.includes(part), part);
  assert.ok(!user.includes(TRUNCATION_MARKER));
  assert.deepEqual(body.response_format, {
    type: "json_schema",
    json_schema: { name: "paper_facets", strict: true, schema: FACET_JSON_SCHEMA },
  });
});

test("no key: no Authorization header; over the budget: marker sent and truncated reported", async () => {
  const s = await stub(() => completion(JSON.stringify(facetAnswer("P2"))));
  const long = { ...PAPER, body: "Section text with many words. ".repeat(500) + "THE VERY END" };
  const r = await createLlmExtractor(cfg(s.baseUrl, { maxInputTokens: 200 })).extract(long);
  assert.equal(r.ok && r.truncated, true);
  assert.equal(s.requests[0].headers.authorization, undefined);
  const user = (s.requests[0].body as SentBody).messages[1].content;
  assert.ok(user.includes(PAPER.title) && user.includes(PAPER.abstract), "the head (title, abstract) is kept");
  assert.ok(user.endsWith(`\n\n${TRUNCATION_MARKER}`));
  assert.ok(!user.includes("THE VERY END"));
});

test("a ```json fence around the answer is accepted", async () => {
  const s = await stub(() => completion("```json\n" + JSON.stringify(facetAnswer("P3")) + "\n```"));
  const r = await createLlmExtractor(cfg(s.baseUrl)).extract(PAPER);
  assert.equal(r.ok, true);
});

test("malformed JSON: discarded as invalid, with usage, and not retried", async () => {
  const s = await stub(() => completion('{"problems": ["a", '));
  const r = await createLlmExtractor(cfg(s.baseUrl)).extract(PAPER);
  assert.equal(r.ok, false);
  assert.ok(!r.ok && r.kind === "invalid");
  assert.match(r.reason, /answer is not valid JSON/);
  assert.deepEqual(r.usage, { promptTokens: 1200, completionTokens: 150 });
  assert.equal(r.model, "stub-model-2025-01-01");
  assert.equal(s.requests.length, 1, "no silent retry for an invalid answer");
});

test("schema violations are discarded as invalid, each named, never retried", async () => {
  const good = facetAnswer("P4");
  const cases: [unknown, RegExp][] = [
    [{ ...good, results: Array.from({ length: 7 }, (_, i) => `r${i}`) }, /results: expected 1-5 items, got 7/],
    [{ problems: good.problems, methods: good.methods, results: good.results }, /contributions: missing/],
    [{ ...good, methods: ["fine", 42] }, /methods\[1\]: expected a string, got number 42/],
    [{ ...good, problems: [] }, /problems: expected 1-5 items, got 0/],
    [{ ...good, contributions: ["  "] }, /contributions\[0\]: empty item/],
    [{ ...good, problems: "one string" }, /problems: expected a list, got string/],
    [[good], /expected a JSON object, got a list/],
  ];
  const s = await stub((_req, i) => completion(JSON.stringify(cases[i][0])));
  const ex = createLlmExtractor(cfg(s.baseUrl));
  for (const [, pattern] of cases) {
    const r = await ex.extract(PAPER);
    assert.ok(!r.ok && r.kind === "invalid", JSON.stringify(r));
    assert.match(r.reason, /answer violates the facet schema/);
    assert.match(r.reason, pattern);
  }
  assert.equal(s.requests.length, cases.length);
});

test("extra keys are ignored; facets come back in the paper's order", async () => {
  const good = facetAnswer("P5");
  const content = JSON.stringify({
    summary: "extra",
    contributions: good.contributions,
    results: good.results,
    methods: good.methods,
    problems: good.problems,
  });
  const s = await stub(() => completion(content));
  const r = await createLlmExtractor(cfg(s.baseUrl)).extract(PAPER);
  assert.ok(r.ok);
  assert.deepEqual(Object.keys(r.facets), ["problems", "methods", "results", "contributions"]);
  assert.equal("summary" in r.facets, false);
});

test("refusal, empty content and a cut-off answer are invalid with a reason", async () => {
  const s = await stub(
    sequence(completion(null, { refusal: "I can't help with that." }), completion(""), completion('{"problems": ["a"', { finishReason: "length" })),
  );
  const ex = createLlmExtractor(cfg(s.baseUrl));
  const [a, b, c] = [await ex.extract(PAPER), await ex.extract(PAPER), await ex.extract(PAPER)];
  assert.ok(!a.ok && a.kind === "invalid" && /model refused: I can't help with that\./.test(a.reason));
  assert.ok(!b.ok && b.kind === "invalid" && /answer has no content/.test(b.reason));
  assert.ok(!c.ok && c.kind === "invalid" && /not valid JSON.*finish_reason "length"/.test(c.reason), !c.ok ? c.reason : "");
});

test("transport trouble is retried and then succeeds: 429, 500, timeout", async () => {
  const answer = JSON.stringify(facetAnswer("P6"));
  const s = await stub(sequence({ status: 429, headers: { "retry-after": "0" }, text: "" }, { status: 500, text: "oops" }, { hang: true }, completion(answer)));
  const r = await createLlmExtractor(cfg(s.baseUrl, { maxRetries: 3, timeoutMs: 150 })).extract(PAPER);
  assert.equal(r.ok, true);
  assert.equal(s.requests.length, 4);
});

test('errors after retries, and 4xx at once, are kind "error" with the configured model', async () => {
  const s = await stub(() => ({ status: 500, json: { error: { message: "overloaded" } } }));
  const r = await createLlmExtractor(cfg(s.baseUrl, { maxRetries: 1 })).extract(PAPER);
  assert.deepEqual(r, {
    ok: false,
    kind: "error",
    reason: "LLM request failed after 2 attempts: HTTP 500 Internal Server Error: overloaded",
    model: "test-model",
  });

  const s401 = await stub(() => ({ status: 401, json: { error: { message: "Invalid token" } } }));
  const r401 = await createLlmExtractor(cfg(s401.baseUrl)).extract(PAPER);
  assert.ok(!r401.ok && r401.kind === "error");
  assert.match(r401.reason, /HTTP 401 Unauthorized: Invalid token \(check GRAFT_LLM_API_KEY/);
  assert.equal(s401.requests.length, 1);
});

test("an aborted extraction rejects instead of reporting a failure", async () => {
  const s = await stub(() => ({ hang: true }));
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 30);
  await assert.rejects(createLlmExtractor(cfg(s.baseUrl, { timeoutMs: 5000 })).extract(PAPER, { signal: ac.signal }), {
    name: "AbortError",
  });
});

test("parseFacetAnswer / stripCodeFence on their own", () => {
  assert.equal(stripCodeFence("```\n{}\n```"), "{}");
  assert.equal(stripCodeFence("  ```JSON\n[1]\n```  \n"), "[1]");
  assert.equal(stripCodeFence('{"a": "```"}'), '{"a": "```"}');
  const ok = parseFacetAnswer(JSON.stringify(facetAnswer("x", [1, 5, 1, 1])));
  assert.ok(ok.ok && ok.facets.methods.length === 5);
});
