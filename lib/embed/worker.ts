/**
 * Entry point of one embedding worker (lib/embed/parallel.ts), as a forked child process or a
 * worker thread. It loads its embedder once, on "init", then answers "embed" jobs one at a time.
 */
import { parentPort } from "node:worker_threads";
import type { Embedder } from "./types";
import type { FromWorker, ToWorker } from "./worker-protocol";

type Send = (msg: FromWorker, transfer?: ArrayBuffer[]) => void;

const send: Send = parentPort
  ? (msg, transfer) => parentPort!.postMessage(msg, transfer ?? [])
  : (msg) => {
      process.send!(msg);
    };

let embedder: Embedder | null = null;
// Jobs run strictly in arrival order: the parent sends one at a time, but a chain keeps that
// true even if it did not.
let chain: Promise<void> = Promise.resolve();

async function handle(msg: ToWorker): Promise<void> {
  if (msg.type === "init") {
    try {
      const factory = (await import(msg.factoryModule)) as { createEmbedder(spec: string): Promise<Embedder> };
      embedder = await factory.createEmbedder(msg.spec);
      send({ type: "ready", id: embedder.id, dim: embedder.dim, pid: process.pid });
    } catch (err) {
      send({ type: "failed", message: (err as Error).message });
    }
    return;
  }
  if (msg.type === "embed") {
    try {
      if (!embedder) throw new Error("worker got a job before init");
      const rows = await embedder.embed(msg.texts);
      const flat = new Float32Array(rows.length * embedder.dim);
      rows.forEach((r, i) => flat.set(r, i * embedder!.dim));
      send({ type: "result", job: msg.job, vectors: flat }, [flat.buffer]);
    } catch (err) {
      send({ type: "failed", job: msg.job, message: (err as Error).message });
    }
    return;
  }
  if (msg.type === "close") {
    await embedder?.close?.();
    // Ends this worker only (in a worker thread, process.exit stops just the thread); exiting
    // beats waiting for tfjs/onnxruntime handles that may keep the event loop alive.
    process.exit(0);
  }
}

function onMessage(msg: ToWorker): void {
  chain = chain.then(() => handle(msg));
}

if (parentPort) parentPort.on("message", onMessage);
else if (process.send) {
  process.on("message", (m) => onMessage(m as ToWorker));
  // The parent is gone (killed, crashed): nobody will read our results, so do not linger.
  process.on("disconnect", () => process.exit(0));
} else throw new Error("lib/embed/worker.ts must be started by lib/embed/parallel.ts");
