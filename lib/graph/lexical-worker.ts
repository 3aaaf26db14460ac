/**
 * Entry point of one lexical all-pairs worker thread (lexical-pool.ts): it rebuilds the facet's
 * LexicalIndex from the shared arrays it is sent ("index"), then ranks each row range it is
 * sent ("rows") exactly as LexicalIndex.rowsTopK does in the calling thread. The pool ends it
 * with terminate().
 */
import { parentPort } from "node:worker_threads";
import { LexicalIndex, type LexicalTopKOptions } from "./lexical";
import type { FromLexicalWorker, ToLexicalWorker } from "./lexical-pool";

if (!parentPort) throw new Error("lib/graph/lexical-worker.ts must be started by lib/graph/lexical-pool.ts");
const port = parentPort;
const send = (msg: FromLexicalWorker, transfer: ArrayBuffer[] = []) => port.postMessage(msg, transfer);
let current: { id: number; index: LexicalIndex; k: number; options: LexicalTopKOptions } | null = null;

port.on("message", (msg: ToLexicalWorker) => {
  try {
    if (msg.type === "index") {
      const { items, full, truncated } = msg.arrays;
      current = {
        id: msg.id,
        index: new LexicalIndex(items, { full, truncated }),
        k: msg.k,
        options: { maxPostings: msg.maxPostings, candidates: msg.candidates },
      };
    } else if (msg.type === "rows") {
      if (current?.id !== msg.id) throw new Error(`rows of index ${msg.id} before that index`);
      const lists = current.index.rowsTopK(msg.from, msg.to, current.k, current.options);
      send({ type: "rows", job: msg.job, lists }, [lists.offsets.buffer, lists.targets.buffer, lists.scores.buffer] as ArrayBuffer[]);
    }
  } catch (err) {
    send({ type: "error", message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
