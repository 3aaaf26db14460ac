/**
 * Settings of the LLM facet extractor, read from the environment and validated with zod.
 *
 * Any OpenAI-compatible chat-completions server works: OpenAI itself (the default base URL),
 * or a local one (Ollama, llama.cpp, vLLM, LM Studio), which usually needs no API key.
 * The API key is held in an {@link ApiKey} that prints as "[redacted]" everywhere (String,
 * JSON, console.log), so logging a config object or an error can never leak it.
 */
import { z } from "zod";

/** The environment variables read, by setting. */
export const LLM_ENV = {
  baseUrl: "GRAFT_LLM_BASE_URL",
  model: "GRAFT_LLM_MODEL",
  apiKey: "GRAFT_LLM_API_KEY",
  apiKeyFallback: "OPENAI_API_KEY",
  maxInputTokens: "GRAFT_LLM_MAX_INPUT_TOKENS",
  concurrency: "GRAFT_LLM_CONCURRENCY",
  timeoutMs: "GRAFT_LLM_TIMEOUT_MS",
  maxRetries: "GRAFT_LLM_MAX_RETRIES",
  reasoningEffort: "GRAFT_LLM_REASONING_EFFORT",
} as const;

/** A secret that never renders itself; call `reveal()` only where the header is built. */
export class ApiKey {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return "[redacted]";
  }
  toJSON(): string {
    return "[redacted]";
  }
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return "ApiKey([redacted])";
  }
}

export interface LlmConfig {
  /** Base URL of the OpenAI-compatible API, without a trailing slash (".../v1"). */
  baseUrl: string;
  model: string;
  /** null: send no Authorization header (local servers). */
  apiKey: ApiKey | null;
  /** Token budget for the paper text (title, authors, abstract, body) in the prompt. */
  maxInputTokens: number;
  /** Requests in flight at once during a batch run. */
  concurrency: number;
  /** Limit for one HTTP attempt, response body included. */
  timeoutMs: number;
  /** Retries after the first attempt (so up to maxRetries + 1 requests per paper). */
  maxRetries: number;
  /**
   * Sent as `reasoning_effort` when set. The paper used "minimal" with gpt-5-mini; it is off by
   * default because models without reasoning (and some local servers) reject the parameter.
   */
  reasoningEffort: string | null;
  /** First backoff delay; doubles per retry, with jitter. Tests shrink it. */
  retryBaseDelayMs: number;
  /** Ceiling of the computed backoff (a server's Retry-After is honoured separately). */
  retryMaxDelayMs: number;
}

export const LLM_DEFAULTS = {
  baseUrl: "https://api.openai.com/v1",
  maxInputTokens: 100_000, // paper: "head-truncated at 100,000 tokens"
  concurrency: 4,
  timeoutMs: 120_000,
  maxRetries: 5,
  reasoningEffort: null,
  retryBaseDelayMs: 1_000,
  retryMaxDelayMs: 60_000,
} as const;

/** Below this the truncation marker alone would not fit beside any paper text. */
export const MIN_INPUT_TOKENS = 32;

export class LlmConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LlmConfigError";
  }
}

type Env = Record<string, string | undefined>;

/** Blank values count as unset: `.env` files and shells often export `VAR=`. */
const blankToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);

const intVar = (min: number) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .regex(/^\d+$/, { message: `expected a whole number ≥ ${min}` })
      .transform(Number)
      .pipe(z.number().int().min(min, { message: `expected a whole number ≥ ${min}` }))
      .optional(),
  );

const textVar = z.preprocess(blankToUndefined, z.string().trim().optional());

const envSchema = z.object({
  [LLM_ENV.baseUrl]: z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .refine((s) => /^https?:\/\/[^/]/i.test(s) && URL.canParse(s), {
        message: "expected an http(s) URL such as https://api.openai.com/v1 or http://127.0.0.1:11434/v1",
      })
      .optional(),
  ),
  [LLM_ENV.model]: textVar,
  [LLM_ENV.apiKey]: textVar,
  [LLM_ENV.apiKeyFallback]: textVar,
  [LLM_ENV.maxInputTokens]: intVar(MIN_INPUT_TOKENS),
  [LLM_ENV.concurrency]: intVar(1),
  [LLM_ENV.timeoutMs]: intVar(1),
  [LLM_ENV.maxRetries]: intVar(0),
  [LLM_ENV.reasoningEffort]: z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .regex(/^[a-z]+$/, { message: "expected a single lower-case word such as minimal, low, medium or high" })
      .optional(),
  ),
});

/** True when the provider can be used at all (the model is the one required setting). */
export function isLlmConfigured(env: Env = process.env): boolean {
  return (env[LLM_ENV.model] ?? "").trim() !== "";
}

/**
 * Reads and validates the settings. Throws an LlmConfigError whose message names each bad
 * variable; values are quoted only for non-secret variables.
 */
export function loadLlmConfig(env: Env = process.env): LlmConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      const secret = name === LLM_ENV.apiKey || name === LLM_ENV.apiKeyFallback;
      const value = env[name];
      return secret || value === undefined ? `${name}: ${issue.message}` : `${name}=${JSON.stringify(value)}: ${issue.message}`;
    });
    throw new LlmConfigError(`Invalid LLM settings:\n  ${lines.join("\n  ")}`);
  }
  const v = parsed.data;
  const model = v[LLM_ENV.model];
  if (model === undefined) {
    throw new LlmConfigError(
      `${LLM_ENV.model} is not set: name the chat model to extract facets with (e.g. gpt-5-mini, or a local model such as llama3.1:8b), ` +
        `and point ${LLM_ENV.baseUrl} at its server if it is not OpenAI.`,
    );
  }
  const key = v[LLM_ENV.apiKey] ?? v[LLM_ENV.apiKeyFallback];
  return llmConfig({
    model,
    baseUrl: v[LLM_ENV.baseUrl],
    apiKey: key === undefined ? null : new ApiKey(key),
    maxInputTokens: v[LLM_ENV.maxInputTokens],
    concurrency: v[LLM_ENV.concurrency],
    timeoutMs: v[LLM_ENV.timeoutMs],
    maxRetries: v[LLM_ENV.maxRetries],
    reasoningEffort: v[LLM_ENV.reasoningEffort] ?? null,
  });
}

/**
 * A complete config from a model name and any overrides (CLI flags, tests); undefined fields
 * take the defaults. The base URL loses trailing slashes so paths join cleanly.
 */
export function llmConfig(settings: { model: string } & { [K in keyof LlmConfig]?: LlmConfig[K] | undefined }): LlmConfig {
  const pick = <K extends keyof typeof LLM_DEFAULTS>(k: K): LlmConfig[K] =>
    (settings[k] ?? LLM_DEFAULTS[k]) as LlmConfig[K];
  const atLeast = (k: keyof typeof LLM_DEFAULTS, min: number): void => {
    const value = pick(k);
    if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
      throw new LlmConfigError(`LLM setting ${k} must be a whole number ≥ ${min}, got ${String(value)}`);
    }
  };
  if (settings.model.trim() === "") throw new LlmConfigError("LLM setting model must not be empty");
  atLeast("maxInputTokens", MIN_INPUT_TOKENS);
  atLeast("concurrency", 1);
  atLeast("timeoutMs", 1);
  atLeast("maxRetries", 0);
  atLeast("retryBaseDelayMs", 0);
  atLeast("retryMaxDelayMs", 0);
  return {
    baseUrl: pick("baseUrl").replace(/\/+$/, ""),
    model: settings.model,
    apiKey: settings.apiKey ?? null,
    maxInputTokens: pick("maxInputTokens"),
    concurrency: pick("concurrency"),
    timeoutMs: pick("timeoutMs"),
    maxRetries: pick("maxRetries"),
    reasoningEffort: pick("reasoningEffort"),
    retryBaseDelayMs: pick("retryBaseDelayMs"),
    retryMaxDelayMs: pick("retryMaxDelayMs"),
  };
}
