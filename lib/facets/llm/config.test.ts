import assert from "node:assert/strict";
import { test } from "node:test";
import { inspect } from "node:util";
import { parseConfig } from "@/lib/config";
import { ApiKey, LLM_DEFAULTS, LlmConfigError, isLlmConfigured, llmConfig, loadLlmConfig, MIN_INPUT_TOKENS } from "./config";

test("defaults apply when only the model is set", () => {
  const c = loadLlmConfig({ GRAFT_LLM_MODEL: "gpt-5-mini" });
  assert.equal(c.model, "gpt-5-mini");
  assert.equal(c.baseUrl, "https://api.openai.com/v1");
  assert.equal(c.apiKey, null);
  assert.equal(c.maxInputTokens, 100_000);
  assert.equal(c.concurrency, 4);
  assert.equal(c.timeoutMs, 120_000);
  assert.equal(c.maxRetries, 5);
  assert.equal(c.reasoningEffort, null);
  assert.equal(c.retryBaseDelayMs, LLM_DEFAULTS.retryBaseDelayMs);
});

test("reads every variable; trailing slashes leave the base URL; blank counts as unset", () => {
  const c = loadLlmConfig({
    GRAFT_LLM_MODEL: " llama3.1:8b ",
    GRAFT_LLM_BASE_URL: "http://127.0.0.1:11434/v1/",
    GRAFT_LLM_MAX_INPUT_TOKENS: "8000",
    GRAFT_LLM_CONCURRENCY: "2",
    GRAFT_LLM_TIMEOUT_MS: "5000",
    GRAFT_LLM_MAX_RETRIES: "0",
    GRAFT_LLM_REASONING_EFFORT: "minimal",
    GRAFT_LLM_API_KEY: "",
  });
  assert.deepEqual(c, {
    baseUrl: "http://127.0.0.1:11434/v1",
    model: "llama3.1:8b",
    apiKey: null,
    maxInputTokens: 8000,
    concurrency: 2,
    timeoutMs: 5000,
    maxRetries: 0,
    reasoningEffort: "minimal",
    retryBaseDelayMs: LLM_DEFAULTS.retryBaseDelayMs,
    retryMaxDelayMs: LLM_DEFAULTS.retryMaxDelayMs,
  });
});

test("API key: GRAFT_LLM_API_KEY wins over OPENAI_API_KEY, which is the fallback", () => {
  assert.equal(loadLlmConfig({ GRAFT_LLM_MODEL: "m", OPENAI_API_KEY: "sk-b" }).apiKey?.reveal(), "sk-b");
  assert.equal(loadLlmConfig({ GRAFT_LLM_MODEL: "m", GRAFT_LLM_API_KEY: "sk-a", OPENAI_API_KEY: "sk-b" }).apiKey?.reveal(), "sk-a");
});

test("a missing model is a clear error naming GRAFT_LLM_MODEL", () => {
  assert.equal(isLlmConfigured({}), false);
  assert.equal(isLlmConfigured({ GRAFT_LLM_MODEL: "m" }), true);
  assert.throws(
    () => loadLlmConfig({ GRAFT_LLM_MODEL: "  " }),
    (e: Error) => {
      assert.ok(e instanceof LlmConfigError);
      assert.match(e.message, /GRAFT_LLM_MODEL is not set/);
      return true;
    },
  );
});

test("bad values name their variable and all problems at once", () => {
  assert.throws(
    () =>
      loadLlmConfig({
        GRAFT_LLM_MODEL: "m",
        GRAFT_LLM_CONCURRENCY: "0",
        GRAFT_LLM_TIMEOUT_MS: "fast",
        GRAFT_LLM_BASE_URL: "localhost:8080",
        GRAFT_LLM_MAX_INPUT_TOKENS: "10",
      }),
    (e: Error) => {
      assert.match(e.message, /GRAFT_LLM_CONCURRENCY="0": expected a whole number ≥ 1/);
      assert.match(e.message, /GRAFT_LLM_TIMEOUT_MS="fast": expected a whole number ≥ 1/);
      assert.match(e.message, /GRAFT_LLM_BASE_URL="localhost:8080": expected an http\(s\) URL/);
      assert.match(e.message, /GRAFT_LLM_MAX_INPUT_TOKENS="10": expected a whole number ≥ 32/);
      return true;
    },
  );
  assert.throws(() => llmConfig({ model: "m", concurrency: 0 }), /concurrency must be a whole number ≥ 1/);
});

test("the environment's floor of GRAFT_LLM_MAX_INPUT_TOKENS is the prompt's MIN_INPUT_TOKENS", () => {
  assert.equal(parseConfig({ GRAFT_LLM_MAX_INPUT_TOKENS: String(MIN_INPUT_TOKENS) }).GRAFT_LLM_MAX_INPUT_TOKENS, MIN_INPUT_TOKENS);
  assert.throws(() => parseConfig({ GRAFT_LLM_MAX_INPUT_TOKENS: String(MIN_INPUT_TOKENS - 1) }), /GRAFT_LLM_MAX_INPUT_TOKENS/);
  assert.throws(() => llmConfig({ model: "m", maxInputTokens: MIN_INPUT_TOKENS - 1 }), /maxInputTokens/);
});

test("the API key never renders: String, JSON, inspect, template literals", () => {
  const c = loadLlmConfig({ GRAFT_LLM_MODEL: "m", GRAFT_LLM_API_KEY: "sk-secret-123" });
  assert.ok(c.apiKey instanceof ApiKey);
  for (const rendered of [String(c.apiKey), `${c.apiKey}`, JSON.stringify(c), inspect(c, { depth: 5, showHidden: true })]) {
    assert.doesNotMatch(rendered, /sk-secret-123/);
  }
  assert.match(JSON.stringify(c), /"apiKey":"\[redacted\]"/);
  assert.equal(c.apiKey.reveal(), "sk-secret-123");
  // Spreading a config (how callers override fields) keeps the key.
  assert.equal({ ...c, timeoutMs: 1 }.apiKey?.reveal(), "sk-secret-123");
});
