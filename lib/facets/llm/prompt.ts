/**
 * The facet-extraction request: the paper's prompt, the paper text cut to a token budget, and
 * the structured-output schema (paper, Appendix "Facet Extraction and Validation").
 */
import { FACETS } from "@/lib/corpus";
import { decodeTokens, encodeDocIdTokens } from "@/lib/text";
import type { PaperInput } from "../extractor";
import type { LlmConfig } from "./config";

/** System prompt, verbatim from the paper's "Facet extraction prompt" box. */
export const SYSTEM_PROMPT =
  "You are an expert at analysing academic papers. Extract the requested facets accurately and concisely. Always respond with valid JSON.";

/** User prompt, verbatim from the paper; `{paper_text}` is replaced by the paper. */
export const USER_PROMPT_TEMPLATE = `Analyse this academic paper and extract the following facets.
For each facet, provide 1-5 distinct items (1-2 sentences each).

1. **Problems**: What problems or research questions does this paper address?
2. **Methods**: What approaches, methods, or techniques does the paper propose or use?
3. **Results**: What are the main results or findings?
4. **Contributions**: What are the contributions or novelties of this work?

Paper:
{paper_text}`;

/** Appended where the paper text was cut, so the model knows the end is missing. */
export const TRUNCATION_MARKER = "[… truncated …]";
const MARKER_SEPARATOR = "\n\n";

/**
 * The paper as one text: title, authors, then each part under its heading, as in the paper
 * ("title, authors, and every parsed section under its heading"). The body is expected to
 * carry its own section headings already.
 */
export function paperText(paper: PaperInput): string {
  const parts = [`Title: ${paper.title.trim()}`];
  const authors = (paper.authors ?? []).map((a) => a.trim()).filter((a) => a !== "");
  if (authors.length > 0) parts[0] += `\nAuthors: ${authors.join(", ")}`;
  const abstract = paper.abstract.trim();
  if (abstract !== "") parts.push(`Abstract\n${abstract}`);
  const body = paper.body?.trim() ?? "";
  if (body !== "") parts.push(body);
  return parts.join("\n\n");
}

export interface TruncatedText {
  text: string;
  truncated: boolean;
}

/**
 * Keeps the head of `text` within `maxTokens` tokens, marker included (the paper
 * head-truncates at 100,000 tokens "with an explicit truncation marker").
 *
 * Tokens are counted with the Llama-3 tokenizer. That only approximates the provider's own
 * tokenizer (OpenAI's o200k, or whatever a local model uses): counts differ by a few percent
 * either way, so the budget is a content limit with margin, not an exact context-window fit.
 */
export function truncateToTokens(text: string, maxTokens: number): TruncatedText {
  // A token is at least one UTF-8 byte, so short texts need no tokenizer (which costs ~2 s
  // and ~100 MB to load).
  if (Buffer.byteLength(text, "utf8") <= maxTokens) return { text, truncated: false };
  // Encode only a generous prefix: a Llama-3 token rarely spans more than 16 characters, and
  // if this prefix still fits, the full text is encoded below, so the result is exact.
  const cutEarly = text.length > maxTokens * 16;
  let ids = encodeDocIdTokens(cutEarly ? text.slice(0, maxTokens * 16) : text);
  if (ids.length <= maxTokens && cutEarly) ids = encodeDocIdTokens(text);
  if (ids.length <= maxTokens) return { text, truncated: false };

  const markerTokens = encodeDocIdTokens(MARKER_SEPARATOR + TRUNCATION_MARKER).length;
  let head = decodeTokens(ids.slice(0, Math.max(0, maxTokens - markerTokens)));
  // A cut inside a multi-byte character decodes it as U+FFFD; drop such a partial tail so
  // the kept text is a true prefix of the paper.
  while (head.length > 0 && !text.startsWith(head)) head = head.slice(0, -1);
  return { text: head.trimEnd() + MARKER_SEPARATOR + TRUNCATION_MARKER, truncated: true };
}

/**
 * The structured-output schema: four required string lists, nothing else. Like the paper's
 * ("The schema enforces types only ... no item count restrictions"), it states no 1-5 item
 * bounds: minItems/maxItems lie outside the JSON-Schema subset that some servers' strict mode
 * accepts, so the bounds live in the prompt and are checked on our side (extract.ts).
 */
export const FACET_JSON_SCHEMA = {
  type: "object",
  properties: Object.fromEntries(FACETS.map((f) => [f, { type: "array", items: { type: "string" } }])),
  required: [...FACETS],
  additionalProperties: false,
} as const;

export const RESPONSE_FORMAT = {
  type: "json_schema",
  json_schema: { name: "paper_facets", strict: true, schema: FACET_JSON_SCHEMA },
} as const;

export interface ChatMessage {
  role: "system" | "user";
  content: string;
}

export interface FacetRequest {
  /** The JSON body for POST /chat/completions. */
  body: {
    model: string;
    messages: ChatMessage[];
    response_format: typeof RESPONSE_FORMAT;
    reasoning_effort?: string;
  };
  /** Whether the paper text was cut to fit `maxInputTokens`. */
  truncated: boolean;
}

/**
 * The chat-completions request for one paper. No temperature or seed is sent: the paper's
 * gpt-5 models accept neither, and other servers' defaults are left alone.
 */
export function buildFacetRequest(paper: PaperInput, config: Pick<LlmConfig, "model" | "maxInputTokens" | "reasoningEffort">): FacetRequest {
  const { text, truncated } = truncateToTokens(paperText(paper), config.maxInputTokens);
  // split/join rather than String.replace: a replacement string would expand "$&" or "$'"
  // occurring in the paper text.
  const user = USER_PROMPT_TEMPLATE.split("{paper_text}").join(text);
  return {
    body: {
      model: config.model,
      messages: [
        { role: "system", content: SYSTEM_PROMPT },
        { role: "user", content: user },
      ],
      response_format: RESPONSE_FORMAT,
      ...(config.reasoningEffort ? { reasoning_effort: config.reasoningEffort } : {}),
    },
    truncated,
  };
}
