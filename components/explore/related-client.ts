import type { QueryErrorCode, QueryStep, RelatedOptionsShape, RelatedResult, RelatedStreamLine, MultiSeedResult } from "@/lib/query";

// Browser side of POST /api/related: builds the request (JSON for a paper id or pasted text,
// multipart for a file), reads the NDJSON progress stream and returns the result, or throws a
// RelatedError carrying the server's code and message.

export type QueryInput =
  { kind: "paper"; corpus: string; paperId: string } | { kind: "text"; corpus: string; text: string } | { kind: "file"; corpus: string; file: File };

/** The request options the API validates (one shape for client and server). */
export type QueryOptions = RelatedOptionsShape;

export class RelatedError extends Error {
  constructor(
    readonly status: number,
    readonly code: QueryErrorCode | "network",
    message: string,
    /** The server's Retry-After (seconds) on a 503 busy. */
    readonly retryAfterSec?: number,
  ) {
    super(message);
    this.name = "RelatedError";
  }
}

/** A query the server shed as busy (503 + Retry-After) is asked again, twice at most, after the wait it names. */
export const retryWhenBusy = (failures: number, err: Error): boolean => err instanceof RelatedError && err.code === "busy" && failures < 2;
export const busyRetryDelay = (_failures: number, err: Error): number => (err instanceof RelatedError ? (err.retryAfterSec ?? 1) : 1) * 1000;

export interface Progress {
  step: QueryStep;
  message: string;
}

/** A stable cache key for an input: text by content, files by name, size and modification time. */
export function inputKey(input: QueryInput): string {
  if (input.kind === "paper") return `paper:${input.corpus}:${input.paperId}`;
  if (input.kind === "text") return `text:${input.corpus}:${input.text.length}:${hashString(input.text)}`;
  return `file:${input.corpus}:${input.file.name}:${input.file.size}:${input.file.lastModified}`;
}

/** FNV-1a, 32 bits: enough to tell pasted texts apart in a cache key. */
export function hashString(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16);
}

function optionFields(o: QueryOptions): Record<string, string | number | string[]> {
  const out: Record<string, string | number | string[]> = { k: o.k, retriever: o.retriever, fusion: o.fusion, facets: o.facets };
  if (o.yearFrom !== undefined) out.yearFrom = o.yearFrom;
  if (o.yearTo !== undefined) out.yearTo = o.yearTo;
  if (o.venue) out.venue = o.venue;
  if (o.direction && o.direction !== "both") out.direction = o.direction;
  return out;
}

export function requestInit(input: QueryInput, options: QueryOptions): RequestInit {
  if (input.kind === "file") {
    const form = new FormData();
    form.set("corpus", input.corpus);
    for (const [k, v] of Object.entries(optionFields(options))) form.set(k, Array.isArray(v) ? v.join(",") : String(v));
    form.set("file", input.file, input.file.name);
    return { method: "POST", body: form };
  }
  const body = input.kind === "paper" ? { corpus: input.corpus, paperId: input.paperId } : { corpus: input.corpus, text: input.text };
  return { method: "POST", body: JSON.stringify({ ...body, ...optionFields(options) }), headers: { "content-type": "application/json" } };
}

function isErrorLine(v: unknown): v is { error: { code: QueryErrorCode; message: string } } {
  return typeof v === "object" && v !== null && "error" in v && typeof (v as { error: { message?: unknown } }).error?.message === "string";
}

/** Parses complete NDJSON lines out of `buffer`; returns the lines and the unfinished rest. */
export function splitLines(buffer: string): { lines: RelatedStreamLine[]; rest: string } {
  const parts = buffer.split("\n");
  const rest = parts.pop() ?? "";
  const lines = parts.filter((l) => l.trim()).map((l) => JSON.parse(l) as RelatedStreamLine);
  return { lines, rest };
}

export async function fetchRelated(input: QueryInput, options: QueryOptions, onProgress: (p: Progress) => void, signal?: AbortSignal): Promise<RelatedResult> {
  const init = requestInit(input, options);
  let res: Response;
  try {
    res = await fetch("/api/related?stream=1", { ...init, signal, headers: { accept: "application/x-ndjson", ...init.headers } });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new RelatedError(0, "network", "Could not reach the Graft server. Check that it is running.");
  }
  if (!res.ok || !res.body) {
    const body: unknown = await res.json().catch(() => null);
    const retryAfter = Number(res.headers.get("retry-after") ?? NaN);
    if (isErrorLine(body)) throw new RelatedError(res.status, body.error.code, body.error.message, Number.isFinite(retryAfter) ? retryAfter : undefined);
    throw new RelatedError(res.status, "internal", `The server answered ${res.status} ${res.statusText}`.trim());
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += value;
    const { lines, rest } = splitLines(done ? `${buffer}\n` : buffer);
    buffer = rest;
    for (const line of lines) {
      if ("result" in line) return line.result;
      if (isErrorLine(line)) throw new RelatedError(res.status, line.error.code, line.error.message);
      if ("step" in line) onProgress({ step: line.step, message: line.message });
    }
    if (done) break;
  }
  throw new RelatedError(res.status, "internal", "The server closed the connection before sending a result.");
}

/** Whether an error is Graft's retriever lacking a trained model (not a missing graph build). */
export function isGraftNotTrained(err: unknown): err is RelatedError {
  return err instanceof RelatedError && err.code === "not_ready" && /model|generative|retriever "graft"/i.test(err.message);
}

/**
 * Asks Graft's generative retriever first and, when it has no trained model, the dense-graph
 * teacher instead; says which happened.
 */
export async function fetchRelatedPreferGraft(
  input: QueryInput,
  options: Omit<QueryOptions, "retriever">,
  onProgress: (p: Progress) => void = () => {},
  signal?: AbortSignal,
): Promise<{ result: RelatedResult; fallback: string | null }> {
  try {
    return { result: await fetchRelated(input, { ...options, retriever: "graft" }, onProgress, signal), fallback: null };
  } catch (err) {
    if (!isGraftNotTrained(err)) throw err;
    return { result: await fetchRelated(input, { ...options, retriever: "dense-graph" }, onProgress, signal), fallback: err.message };
  }
}

/** The request body of a several-seeds query: the corpus papers' ids and the options. */
export function seedsRequestInit(corpus: string, seeds: string[], options: QueryOptions): RequestInit {
  return {
    method: "POST",
    body: JSON.stringify({ corpus, seeds, ...optionFields(options) }),
    headers: { "content-type": "application/json", accept: "application/json" },
  };
}

/** Papers related to all of `seeds` at once (POST /api/related { seeds }; no progress stream). */
export async function fetchMultiSeed(corpus: string, seeds: string[], options: QueryOptions, signal?: AbortSignal): Promise<MultiSeedResult> {
  let res: Response;
  try {
    res = await fetch("/api/related", { ...seedsRequestInit(corpus, seeds, options), signal });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new RelatedError(0, "network", "Could not reach the Graft server. Check that it is running.");
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const retryAfter = Number(res.headers.get("retry-after") ?? NaN);
    if (isErrorLine(body)) throw new RelatedError(res.status, body.error.code, body.error.message, Number.isFinite(retryAfter) ? retryAfter : undefined);
    throw new RelatedError(res.status, "internal", `The server answered ${res.status} ${res.statusText}`.trim());
  }
  return body as MultiSeedResult;
}
