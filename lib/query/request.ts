/**
 * The HTTP side of POST /api/related, framework-free (web Request/Response only) so it can be
 * tested without a server: body reading under the upload limit, JSON or multipart parsing and
 * validation, and the NDJSON progress stream.
 */
import { corpusName, DEFAULT_CORPUS, requireCorpus } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { errorAnswer, errorResponse, json } from "@/lib/http";
import { resolveLimits, type InputLimits, formatBytes } from "@/lib/input";
import { QueryError } from "./errors";
import { relatedFormFields, relatedRequestBody, type RelatedOptions } from "./options";
import { NoGraphBuildError } from "@/lib/retrieve";
import { relatedPapers, type RelatedHooks, type RelatedInput } from "./related";
import { multiSeedRequestBody, relatedToSeeds, type MultiSeedRequestBody, type MultiSeedResult } from "./multi-seed";
import type { RelatedResult, RelatedStreamLine } from "./types";

/**
 * relatedPapers, where a corpus that does not exist is a NotFoundError (404 not_found) rather
 * than "no graph build yet" (409 not_ready, "run build"): the graph store finds no build either
 * way, so the corpus is looked up only when that happens.
 */
export async function relatedPapersOf(db: Db, input: RelatedInput, options: RelatedOptions, hooks?: RelatedHooks): Promise<RelatedResult> {
  try {
    return await relatedPapers(db, input, options, hooks);
  } catch (err) {
    if (err instanceof NoGraphBuildError) {
      const name = corpusName.safeParse(input.corpus ?? DEFAULT_CORPUS);
      if (name.success) await requireCorpus(db, name.data);
    }
    throw err;
  }
}

/** relatedToSeeds, with the same 404-before-409 rule as relatedPapersOf. */
export async function relatedToSeedsOf(db: Db, body: MultiSeedRequestBody, hooks?: RelatedHooks): Promise<MultiSeedResult> {
  try {
    return await relatedToSeeds(db, body.corpus, body.seeds, body.options, hooks);
  } catch (err) {
    if (err instanceof NoGraphBuildError) await requireCorpus(db, body.corpus);
    throw err;
  }
}

/** Room for multipart boundaries, headers and option fields around the file itself. */
const ENVELOPE_BYTES = 256 * 1024;

export interface ParsedRelatedRequest {
  input: RelatedInput;
  options: RelatedOptions;
  /** Bytes of the uploaded file, for the progress message. */
  fileBytes?: number;
}

/** A JSON body with `seeds` (several papers at once): lib/query/multi-seed.ts. */
export interface ParsedMultiSeedRequest {
  multi: MultiSeedRequestBody;
}

function tooLarge(limits: InputLimits): QueryError {
  return new QueryError(
    "too_large",
    `The request is larger than the ${formatBytes(limits.maxBytes)} upload limit; upload a smaller file or paste only the paper's text.`,
  );
}

/** The body's bytes, refused as soon as they pass the limit (a lying Content-Length changes nothing). */
export async function readBodyCapped(req: Request, maxBytes: number, limits: InputLimits): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(limits);
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      throw new QueryError("invalid_request", "The request body ended before it was complete (the upload was interrupted).");
    });
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limits);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** Content type without parameters, lower-cased. */
function mediaType(req: Request): string {
  return (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
}

/** 415 before anything is read: the two body kinds the endpoint takes. */
export function checkMediaType(req: Request): "json" | "multipart" {
  const type = mediaType(req);
  if (type === "application/json") return "json";
  if (type === "multipart/form-data") return "multipart";
  throw new QueryError(
    "unsupported_media_type",
    `Send the paper as application/json ({ paperId | text | paper, …options }) or as multipart/form-data with a "file" field (PDF, .txt or .json); got ${type ? `"${type}"` : "no content type"}.`,
  );
}

/** Reads and validates a POST /api/related request into relatedPapers' input and options. */
export async function parseRelatedRequest(req: Request, limitOverrides: Partial<InputLimits> = {}): Promise<ParsedRelatedRequest | ParsedMultiSeedRequest> {
  const kind = checkMediaType(req);
  const limits = resolveLimits(limitOverrides);
  const bytes = await readBodyCapped(req, limits.maxBytes + ENVELOPE_BYTES, limits);
  if (kind === "json") {
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder().decode(bytes));
    } catch (err) {
      throw new QueryError("invalid_json", `The request body is not valid JSON (${(err as Error).message}).`);
    }
    if (typeof value === "object" && value !== null && !Array.isArray(value) && "seeds" in value) return { multi: multiSeedRequestBody.parse(value) };
    const body = relatedRequestBody.parse(value);
    const { corpus, paperId, text, paper, ...options } = body;
    const input: RelatedInput = paperId !== undefined ? { corpus, paperId } : text !== undefined ? { corpus, text } : { corpus, paper };
    return { input, options };
  }

  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { "content-type": req.headers.get("content-type") ?? "" } }).formData();
  } catch {
    throw new QueryError("invalid_request", 'The multipart body could not be read; send the paper in a "file" field of a multipart/form-data request.');
  }
  const file = form.get("file");
  const fields: Record<string, string> = {};
  for (const [key, value] of form) {
    if (key === "file") continue;
    if (typeof value !== "string") throw new QueryError("invalid_request", `Only "file" may hold a file; "${key}" does too.`);
    // Empty form fields mean "not set", as in query strings.
    if (value.trim() !== "" && !(key in fields)) fields[key] = value;
  }
  const { corpus, text, ...options } = relatedFormFields.parse(fields);
  if (file !== null && typeof file !== "string") {
    if (text !== undefined) throw new QueryError("invalid_request", 'Give either a "file" or a "text" field, not both.');
    const data = new Uint8Array(await file.arrayBuffer());
    return { input: { corpus, file: { name: file.name || "upload", bytes: data } }, options, fileBytes: data.byteLength };
  }
  if (text !== undefined) return { input: { corpus, text }, options };
  throw new QueryError("invalid_request", 'The form has no "file" field: attach the paper as a PDF, .txt or .json file (or send a "text" field).');
}

/** A whole POST /api/related request: JSON in, JSON out, or the NDJSON stream with `?stream=1`. */
export async function handleRelatedRequest(db: Db, req: Request, limitOverrides: Partial<InputLimits> = {}): Promise<Response> {
  const context = "POST /api/related";
  const streaming = ["1", "true"].includes(new URL(req.url).searchParams.get("stream") ?? "");
  if (!streaming) {
    try {
      const parsed = await parseRelatedRequest(req, limitOverrides);
      if ("multi" in parsed) return json(await relatedToSeedsOf(db, parsed.multi, { limits: limitOverrides, signal: req.signal }));
      return json(await relatedPapersOf(db, parsed.input, parsed.options, { limits: limitOverrides, signal: req.signal }));
    } catch (err) {
      return errorResponse(err, context);
    }
  }
  // What can be refused without reading the body is refused with its status; after that the
  // stream has begun (200) and errors arrive as its last line.
  try {
    checkMediaType(req);
    const limits = resolveLimits(limitOverrides);
    const declared = Number(req.headers.get("content-length") ?? NaN);
    if (Number.isFinite(declared) && declared > limits.maxBytes + ENVELOPE_BYTES) throw tooLarge(limits);
  } catch (err) {
    return errorResponse(err, context);
  }
  return ndjsonResponse(async (send, signal) => {
    send({ step: "upload", message: "Receiving the paper" });
    const parsed = await parseRelatedRequest(req, limitOverrides);
    if ("multi" in parsed) throw new QueryError("invalid_request", "?stream=1 answers one paper at a time; send several seeds without it.");
    const { input, options, fileBytes } = parsed;
    if (fileBytes !== undefined) send({ step: "upload", message: `Received ${formatBytes(fileBytes)}` });
    const hooks: RelatedHooks = { limits: limitOverrides, signal, onStep: (step, message) => send({ step, message }) };
    return relatedPapersOf(db, input, options, hooks);
  }, context);
}

/**
 * An NDJSON response: `run` sends progress lines, then its result (or its error) is the last
 * line. A client that goes away aborts `signal`.
 */
export function ndjsonResponse(run: (send: (line: RelatedStreamLine) => void, signal: AbortSignal) => Promise<RelatedResult>, context: string): Response {
  const encoder = new TextEncoder();
  const abort = new AbortController();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      // After the client went away the stream is cancelled and enqueue would throw, possibly from
      // a progress callback outside any awaited chain: lines are then dropped instead.
      const send = (line: RelatedStreamLine) => {
        if (open && !abort.signal.aborted) controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`));
      };
      try {
        send({ result: await run(send, abort.signal) });
      } catch (err) {
        if (!abort.signal.aborted) send(errorAnswer(err, context).body);
      } finally {
        open = false;
        if (!abort.signal.aborted) controller.close();
      }
    },
    cancel() {
      abort.abort(new Error("the client closed the stream"));
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "cache-control": "no-store",
      // Proxies (nginx) must pass lines through as they come.
      "x-accel-buffering": "no",
    },
  });
}
