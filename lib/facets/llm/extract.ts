/**
 * The LLM facet extractor: one structured-output request per paper, answer validated, and
 * either kept verbatim or discarded (paper: "Returned strings are stored verbatim. A response
 * that fails schema validation is discarded and the paper left unprocessed").
 *
 * An invalid answer is NOT retried here: as in the paper, the first answer is the only one,
 * so results and costs stay comparable. Only transport-level failures are retried (client.ts).
 */
import { z } from "zod";
import { FACETS, type Facet } from "@/lib/corpus";
import type { ExtractionResult, FacetExtractor, PaperInput } from "../extractor";
import { createChatClient, LlmRequestError, type ChatClientDeps } from "./client";
import type { LlmConfig } from "./config";
import { buildFacetRequest } from "./prompt";

/** The prompt asks for 1-5 items per facet; the sent schema cannot enforce it, so we do. */
export const MIN_ITEMS = 1;
export const MAX_ITEMS = 5;

const item = z.string({ error: (iss) => `expected a string, got ${describe(iss.input)}` }).refine((s) => s.trim() !== "", { message: "empty item" });

const itemList = z.array(item, { error: (iss) => (iss.input === undefined ? "missing" : `expected a list, got ${describe(iss.input)}`) }).check((ctx) => {
  const n = ctx.value.length;
  if (n < MIN_ITEMS || n > MAX_ITEMS) {
    ctx.issues.push({ code: "custom", input: ctx.value, message: `expected ${MIN_ITEMS}-${MAX_ITEMS} items, got ${n}` });
  }
});

/**
 * The answer's shape. Keys other than the four facets are ignored, not rejected: the facets
 * themselves are intact, and local servers that do not enforce `additionalProperties: false`
 * sometimes add a summary or title; discarding a paid, otherwise good answer for that would
 * only lose data. (OpenAI's strict mode never sends extra keys in the first place.)
 */
export const facetAnswerSchema = z.object(Object.fromEntries(FACETS.map((f) => [f, itemList])) as Record<Facet, typeof itemList>, {
  error: (iss) => `expected a JSON object, got ${describe(iss.input)}`,
});

/** Strips one surrounding Markdown code fence (```json ... ```), which chat models often add. */
export function stripCodeFence(content: string): string {
  const m = /^\s*```[\w-]*[^\S\n]*\n([\s\S]*?)\n?[^\S\n]*```\s*$/.exec(content);
  return m ? m[1] : content;
}

/** Validates an answer's text: the facets, or a one-line reason naming every problem. */
export function parseFacetAnswer(content: string): { ok: true; facets: Record<Facet, string[]> } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(stripCodeFence(content));
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { ok: false, reason: `answer is not valid JSON (${detail}): ${clip(content)}` };
  }
  const parsed = facetAnswerSchema.safeParse(json);
  if (!parsed.success) {
    const where = (path: PropertyKey[]) => path.map((k, i) => (typeof k === "number" ? `[${k}]` : `${i ? "." : ""}${String(k)}`)).join("");
    const problems = parsed.error.issues.map((i) => (i.path.length ? `${where(i.path)}: ${i.message}` : i.message));
    return { ok: false, reason: `answer violates the facet schema: ${problems.join("; ")}` };
  }
  // Rebuild in FACETS order with only the four facets.
  const facets = Object.fromEntries(FACETS.map((f) => [f, parsed.data[f]])) as Record<Facet, string[]>;
  return { ok: true, facets };
}

export function createLlmExtractor(config: LlmConfig, deps: ChatClientDeps = {}): FacetExtractor {
  const client = createChatClient(config, deps);
  return {
    id: "llm",
    async extract(paper: PaperInput, opts = {}): Promise<ExtractionResult> {
      const { signal } = opts;
      let request;
      try {
        request = buildFacetRequest(paper, config);
      } catch (err) {
        return { ok: false, kind: "error", reason: `could not build the prompt: ${message(err)}`, model: config.model };
      }
      let answer;
      try {
        answer = await client.complete(request.body, { signal });
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        const reason = err instanceof LlmRequestError ? err.message : `LLM request failed: ${message(err)}`;
        return { ok: false, kind: "error", reason, model: config.model };
      }
      const model = answer.model ?? config.model;
      const usage = answer.usage;
      const cutOff = answer.finishReason === "length" ? ' (the answer hit the output-token limit: finish_reason "length")' : "";
      if (answer.content === null || answer.content.trim() === "") {
        const reason = answer.refusal !== null ? `model refused: ${clip(answer.refusal)}` : `answer has no content${cutOff}`;
        return { ok: false, kind: "invalid", reason, usage, model };
      }
      const parsed = parseFacetAnswer(answer.content);
      if (!parsed.ok) return { ok: false, kind: "invalid", reason: parsed.reason + cutOff, usage, model };
      return { ok: true, facets: parsed.facets, usage, truncated: request.truncated, model };
    },
  };
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  return typeof v === "object" ? "an object" : `${typeof v} ${clip(JSON.stringify(v), 40)}`;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function clip(s: string, max = 200): string {
  const t = s.trim().replace(/\s+/g, " ");
  return t.length > max ? `${t.slice(0, max)}…` : t;
}
