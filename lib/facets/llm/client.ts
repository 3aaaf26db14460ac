/**
 * A minimal OpenAI-compatible chat-completions client: POST {baseUrl}/chat/completions.
 *
 * Each attempt has its own timeout. Transport failures, timeouts, HTTP 408, 429 and 5xx are
 * retried with exponential backoff and jitter (a server's Retry-After wins over the backoff);
 * any other 4xx fails at once, since repeating a rejected request cannot help and a 400 or
 * 401 in a batch would otherwise burn the whole retry budget on every paper.
 */
import type { TokenUsage } from "../extractor";
import { LLM_ENV, type LlmConfig } from "./config";

export type ChatClientConfig = Pick<LlmConfig, "baseUrl" | "apiKey" | "timeoutMs" | "maxRetries" | "retryBaseDelayMs" | "retryMaxDelayMs">;

export interface ChatCompletion {
  /** choices[0].message.content; null when the server sent none (e.g. a refusal). */
  content: string | null;
  /** choices[0].message.refusal, set by OpenAI when the model declines. */
  refusal: string | null;
  /** "stop", "length", ...: "length" means the answer was cut off. */
  finishReason: string | null;
  /** The model name the server reports (often a dated snapshot of the requested one). */
  model: string | null;
  usage: TokenUsage | undefined;
  /** Requests made, retries included. */
  attempts: number;
}

/** A request that failed for good: not retryable, or out of retries. */
export class LlmRequestError extends Error {
  constructor(
    message: string,
    /** HTTP status of the last answer; null when none arrived (transport error, timeout). */
    readonly status: number | null,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "LlmRequestError";
  }
}

export interface ChatClient {
  /** Rejects with LlmRequestError, or with the signal's reason when `signal` aborts. */
  complete(body: object, opts?: { signal?: AbortSignal }): Promise<ChatCompletion>;
}

/** Longest Retry-After honoured; a server asking for more is waited on this long only. */
export const RETRY_AFTER_CEILING_MS = 10 * 60_000;

export interface ChatClientDeps {
  fetch?: typeof fetch;
  /** Source of jitter in [0, 1); injectable for deterministic tests. */
  random?: () => number;
}

/** One failed attempt, kept to explain the final error. */
interface Failure {
  retryable: boolean;
  status: number | null;
  message: string;
  retryAfterMs: number | null;
  cause?: unknown;
}

export function createChatClient(config: ChatClientConfig, deps: ChatClientDeps = {}): ChatClient {
  const doFetch = deps.fetch ?? fetch;
  const random = deps.random ?? Math.random;
  const url = `${config.baseUrl}/chat/completions`;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey.reveal()}`;
  // Servers sometimes echo what they were sent; make sure an error message never carries the key.
  const redact = (s: string): string => {
    const key = config.apiKey?.reveal();
    return key ? s.split(key).join("[redacted]") : s;
  };

  async function attempt(payload: string, signal: AbortSignal | undefined): Promise<Omit<ChatCompletion, "attempts"> | Failure> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, config.timeoutMs);
    const onAbort = () => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    let status: number | null = null;
    try {
      const res = await doFetch(url, { method: "POST", headers, body: payload, signal: controller.signal });
      status = res.status;
      // Read the body under the same timeout: a server can stall after sending headers.
      const text = await res.text();
      if (res.ok) return parseCompletion(text, url);
      const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
      return {
        retryable,
        status: res.status,
        message: `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}: ${serverMessage(text)}`,
        retryAfterMs: retryable ? retryAfterMs(res.headers) : null,
      };
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (timedOut) {
        const phase = status === null ? "" : ` (HTTP ${status} headers arrived, body did not)`;
        return { retryable: true, status: null, message: `no answer within ${config.timeoutMs} ms${phase}`, retryAfterMs: null };
      }
      return {
        retryable: true,
        status: null,
        message: `could not reach ${url}: ${transportDetail(err)}`,
        retryAfterMs: null,
        cause: err,
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  return {
    async complete(body, opts = {}) {
      const { signal } = opts;
      const payload = JSON.stringify(body);
      for (let n = 0; ; n++) {
        if (signal?.aborted) throw signal.reason;
        const outcome = await attempt(payload, signal);
        if (!("retryable" in outcome)) return { ...outcome, attempts: n + 1 };
        const attempts = n + 1;
        if (!outcome.retryable) {
          throw new LlmRequestError(redact(`LLM request failed: ${outcome.message}${hintFor(outcome.status)}`), outcome.status, attempts);
        }
        if (n >= config.maxRetries) {
          throw new LlmRequestError(
            redact(`LLM request failed after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${outcome.message}`),
            outcome.status,
            attempts,
            { cause: outcome.cause },
          );
        }
        const delay =
          outcome.retryAfterMs !== null
            ? Math.min(outcome.retryAfterMs, RETRY_AFTER_CEILING_MS)
            : backoffMs(n, config.retryBaseDelayMs, config.retryMaxDelayMs, random);
        await sleep(delay, signal);
      }
    },
  };
}

/**
 * Exponential backoff with "equal jitter": half the exponential delay is kept, half is random,
 * so concurrent workers that failed together spread out but none retries immediately.
 */
export function backoffMs(retry: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** retry);
  return exp / 2 + random() * (exp / 2);
}

/**
 * Milliseconds a server asked us to wait: `retry-after-ms` (sent by OpenAI), else
 * `Retry-After` as delta-seconds or an HTTP date. null when absent or unreadable.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | null {
  const ms = headers.get("retry-after-ms")?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const value = headers.get("retry-after")?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Reads a 200 answer. Not retried when malformed: that points at a wrong URL, not a blip. */
function parseCompletion(text: string, url: string): Omit<ChatCompletion, "attempts"> | Failure {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const choice = (json as { choices?: unknown } | undefined)?.choices;
  const first = Array.isArray(choice) ? (choice[0] as Record<string, unknown> | undefined) : undefined;
  const message = first?.message as Record<string, unknown> | undefined;
  if (typeof message !== "object" || message === null) {
    return {
      retryable: false,
      status: 200,
      message:
        `${url} answered 200 without a chat completion (is ${LLM_ENV.baseUrl} an OpenAI-compatible ` +
        `API root such as https://api.openai.com/v1?): ${clip(text) || "(empty body)"}`,
      retryAfterMs: null,
    };
  }
  const j = json as { model?: unknown; usage?: Record<string, unknown> };
  const prompt = j.usage?.prompt_tokens;
  const completion = j.usage?.completion_tokens;
  return {
    content: typeof message.content === "string" ? message.content : null,
    refusal: typeof message.refusal === "string" ? message.refusal : null,
    finishReason: typeof first?.finish_reason === "string" ? first.finish_reason : null,
    model: typeof j.model === "string" && j.model !== "" ? j.model : null,
    usage: typeof prompt === "number" && typeof completion === "number" ? { promptTokens: prompt, completionTokens: completion } : undefined,
  };
}

/** The server's own error text: OpenAI's {error:{message}}, Ollama's {error}, FastAPI's {detail}. */
function serverMessage(text: string): string {
  try {
    const j = JSON.parse(text) as Record<string, unknown>;
    const e = j.error;
    if (typeof e === "object" && e !== null && typeof (e as { message?: unknown }).message === "string") {
      return clip((e as { message: string }).message);
    }
    for (const v of [e, j.message, j.detail]) if (typeof v === "string") return clip(v);
    if (j.detail !== undefined) return clip(JSON.stringify(j.detail));
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.trim() === "" ? "(empty body)" : clip(text);
}

function hintFor(status: number | null): string {
  if (status === 401 || status === 403) return ` (check ${LLM_ENV.apiKey} or ${LLM_ENV.apiKeyFallback})`;
  if (status === 404) return ` (check ${LLM_ENV.baseUrl} and ${LLM_ENV.model})`;
  return "";
}

/** undici reports "fetch failed" with the useful part (ECONNREFUSED, ENOTFOUND ...) in `cause`. */
function transportDetail(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return err instanceof Error ? err.message : String(err);
}

function clip(s: string, max = 500): string {
  const t = s.trim().replace(/\s+/g, " ");
  return t.length > max ? `${t.slice(0, max)}…` : t;
}
