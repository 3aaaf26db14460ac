/**
 * Entry point of one offline-extraction worker thread (pool.ts): it takes the model on "init",
 * then extracts each chunk of papers it is sent, in arrival order, exactly as the in-process
 * extractor does (offlineResult). The pool ends it with terminate().
 */
import { parentPort } from "node:worker_threads";
import { offlineResult } from "./extractor";
import type { OfflineModel } from "./model";
import type { FromWorker, Outcome, ToWorker } from "./worker-protocol";

if (!parentPort) throw new Error("lib/facets/offline/worker.ts must be started by lib/facets/offline/pool.ts");
const port = parentPort;
const send = (msg: FromWorker) => port.postMessage(msg);
let model: OfflineModel | null = null;

port.on("message", (msg: ToWorker) => {
  if (msg.type === "init") {
    model = msg.model;
    send({ type: "ready" });
  } else if (msg.type === "extract") {
    const outcomes = msg.papers.map((paper): Outcome => {
      try {
        if (!model) throw new Error("worker got papers before the model");
        return { result: offlineResult(paper, model) };
      } catch (err) {
        return { thrown: String(err) };
      }
    });
    send({ type: "done", job: msg.job, outcomes });
  }
});
