import { config } from "@/lib/config";
import { codedResponse } from "./respond";

// An admission gate for the expensive query routes: at most `limit` requests are worked on at
// once in this process; one more is answered 503 with Retry-After at once, instead of queueing
// behind the others until clients time out and reset their connections (issue 28: 32 clients
// on keep-alive saw p95 of 18-51 s and timeouts without it).

export class AdmissionGate {
  private inFlight = 0;

  constructor(
    /** Requests worked on at once; 0 admits everything. */
    readonly limit: number,
    readonly retryAfterSec = 1,
  ) {}

  get busy(): number {
    return this.inFlight;
  }

  /**
   * Runs `work` if there is room, else answers 503 without running it. The place is held until
   * the response is complete: for a streamed body, until it is read to its end or cancelled.
   */
  async run(work: () => Promise<Response>): Promise<Response> {
    if (this.limit > 0 && this.inFlight >= this.limit) return this.refusal();
    this.inFlight++;
    let release = once(() => this.inFlight--);
    try {
      const res = await work();
      if (!res.body || !isStreamed(res)) return res;
      const held = release;
      release = () => {};
      return new Response(releasingAtEnd(res.body, held), res);
    } finally {
      release();
    }
  }

  private refusal(): Response {
    return codedResponse("busy", `The server is answering ${this.limit} queries at once, its limit; try again in ${this.retryAfterSec} s.`, {
      headers: { "retry-after": String(this.retryAfterSec) },
    });
  }
}

const isStreamed = (res: Response) => /ndjson|event-stream/i.test(res.headers.get("content-type") ?? "");

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      fn();
    }
  };
}

/** `body`, calling `release` once it has been read to its end, has failed, or was cancelled. */
function releasingAtEnd(body: ReadableStream<Uint8Array>, release: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        release();
        controller.error(err);
      }
    },
    async cancel(reason) {
      release();
      await reader.cancel(reason);
    },
  });
}

const holder = globalThis as unknown as { graftQueryGate?: AdmissionGate };

/** The gate shared by this process's query routes (GRAFT_MAX_CONCURRENT_QUERIES). */
export function queryGate(): AdmissionGate {
  return (holder.graftQueryGate ??= new AdmissionGate(config().GRAFT_MAX_CONCURRENT_QUERIES));
}
