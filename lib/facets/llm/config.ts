/**
 * Settings of the LLM facet extractor: the GRAFT_LLM_* variables of lib/config.ts (validated and
 * defaulted there) turned into an LlmConfig, plus the checks of settings passed in code.
 *
 * Any OpenAI-compatible chat-completions server works: OpenAI itself (the default base URL),
 * or a local one (Ollama, llama.cpp, vLLM, LM Studio), which usually needs no API key.
 * The API key is held in an {@link ApiKey} that prints as "[redacted]" everywhere (String,
 * JSON, console.log), so logging a config object or an error can never leak it.
 */
import { configFrom, defaultOf, type Env, Secret as ApiKey, type SettingName } from "@/lib/config";

/** The variable of each setting (lib/config.ts), for messages. */
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
} as const satisfies Record<string, SettingName>;

/** The API key: lib/config's Secret, which never renders itself; `reveal()` only where the header is built. */
export { ApiKey };

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

/** Defaults of the settings (the environment's from lib/config.ts; the backoff ones only in code). */
export const LLM_DEFAULTS = {
  baseUrl: defaultOf("GRAFT_LLM_BASE_URL"),
  maxInputTokens: defaultOf("GRAFT_LLM_MAX_INPUT_TOKENS"), // paper: "head-truncated at 100,000 tokens"
  concurrency: defaultOf("GRAFT_LLM_CONCURRENCY"),
  timeoutMs: defaultOf("GRAFT_LLM_TIMEOUT_MS"),
  maxRetries: defaultOf("GRAFT_LLM_MAX_RETRIES"),
  reasoningEffort: null,
  retryBaseDelayMs: 1_000,
  retryMaxDelayMs: 60_000,
} as const;

/** Below this the truncation marker alone would not fit beside any paper text (GRAFT_LLM_MAX_INPUT_TOKENS's floor in lib/config.ts; a test keeps them equal). */
export const MIN_INPUT_TOKENS = 32;

export class LlmConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LlmConfigError";
  }
}

/** True when the provider can be used at all (the model is the one required setting). */
export function isLlmConfigured(env?: Env): boolean {
  return configFrom(env).GRAFT_LLM_MODEL !== undefined;
}

/**
 * The settings of this process (or of `env`). A bad variable is lib/config's ConfigError naming
 * each one (secrets unquoted); a missing model is an LlmConfigError saying what to set.
 */
export function loadLlmConfig(env?: Env): LlmConfig {
  const c = configFrom(env);
  const model = c.GRAFT_LLM_MODEL;
  if (model === undefined) {
    throw new LlmConfigError(
      `${LLM_ENV.model} is not set: name the chat model to extract facets with (e.g. gpt-5-mini, or a local model such as llama3.1:8b), ` +
        `and point ${LLM_ENV.baseUrl} at its server if it is not OpenAI.`,
    );
  }
  return llmConfig({
    model,
    baseUrl: c.GRAFT_LLM_BASE_URL,
    apiKey: c.GRAFT_LLM_API_KEY ?? c.OPENAI_API_KEY ?? null,
    maxInputTokens: c.GRAFT_LLM_MAX_INPUT_TOKENS,
    concurrency: c.GRAFT_LLM_CONCURRENCY,
    timeoutMs: c.GRAFT_LLM_TIMEOUT_MS,
    maxRetries: c.GRAFT_LLM_MAX_RETRIES,
    reasoningEffort: c.GRAFT_LLM_REASONING_EFFORT ?? null,
  });
}

/**
 * A complete config from a model name and any overrides (CLI flags, tests); undefined fields
 * take the defaults. The base URL loses trailing slashes so paths join cleanly.
 */
export function llmConfig(settings: { model: string } & { [K in keyof LlmConfig]?: LlmConfig[K] | undefined }): LlmConfig {
  const pick = <K extends keyof typeof LLM_DEFAULTS>(k: K): LlmConfig[K] => (settings[k] ?? LLM_DEFAULTS[k]) as LlmConfig[K];
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
