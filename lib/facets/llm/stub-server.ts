/**
 * Test support: a scriptable OpenAI-compatible chat-completions server on 127.0.0.1 (random
 * port) that records what it receives and how many requests were in flight at once.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { after } from "node:test";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when it was not JSON). */
  body: unknown;
}

export interface StubReply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as-is when `json` is absent. */
  text?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (the client must time out). */
  hang?: boolean;
  /** Send the status line, headers and part of the body, then stall. */
  stallBody?: boolean;
}

export type StubHandler = (req: RecordedRequest, index: number) => StubReply | Promise<StubReply>;

export interface StubServer {
  /** API root, like https://api.openai.com/v1. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Largest number of requests that were open at the same moment. */
  readonly maxInFlight: number;
  close(): Promise<void>;
}

export async function startStubServer(handler: StubHandler): Promise<StubServer> {
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on("close", () => inFlight--);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const recorded: RecordedRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
      const index = requests.push(recorded) - 1;
      void Promise.resolve(handler(recorded, index)).then(async (reply) => {
        if (reply.hang) return;
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (res.destroyed) return;
        const payload = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? "");
        res.writeHead(reply.status ?? 200, {
          "content-type": reply.json !== undefined ? "application/json" : "text/plain",
          ...reply.headers,
        });
        if (reply.stallBody) res.write(payload.slice(0, Math.floor(payload.length / 2)) || "{");
        else res.end(payload);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A starter of stub servers that the test file closes after its tests (register it at the top level). */
export function stubServerStarter(): (handler: StubHandler) => Promise<StubServer> {
  const servers: StubServer[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));
  return async (handler) => {
    const s = await startStubServer(handler);
    servers.push(s);
    return s;
  };
}

/** A chat-completion answer carrying `content`, OpenAI-shaped. */
export function completion(
  content: string | null,
  opts: {
    usage?: { prompt_tokens: number; completion_tokens: number } | null;
    model?: string;
    finishReason?: string;
    refusal?: string;
  } = {},
): StubReply {
  const usage = opts.usage === undefined ? { prompt_tokens: 1200, completion_tokens: 150 } : opts.usage;
  return {
    json: {
      id: "chatcmpl-stub",
      object: "chat.completion",
      model: opts.model ?? "stub-model-2025-01-01",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content, ...(opts.refusal ? { refusal: opts.refusal } : {}) },
          finish_reason: opts.finishReason ?? "stop",
        },
      ],
      ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
    },
  };
}

/** Replies in order, the last one repeating. */
export function sequence(...replies: StubReply[]): StubHandler {
  return (_req, index) => replies[Math.min(index, replies.length - 1)];
}

/** A valid facet answer, each item tagged with `tag` so tests can tell papers apart. */
export function facetAnswer(tag: string, counts: [number, number, number, number] = [2, 3, 1, 4]) {
  const list = (facet: string, n: number) => Array.from({ length: n }, (_, i) => `${tag} ${facet} item ${i + 1}.`);
  return {
    problems: list("problem", counts[0]),
    methods: list("method", counts[1]),
    results: list("result", counts[2]),
    contributions: list("contribution", counts[3]),
  };
}
