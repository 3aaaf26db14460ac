/** Messages between lib/embed/parallel.ts and its workers (lib/embed/worker.ts). */
export type ToWorker =
  /** Load the embedder: `factoryModule` exports createEmbedder(spec) (normally registry.ts). */
  { type: "init"; spec: string; factoryModule: string } | { type: "embed"; job: number; texts: string[] } | { type: "close" };

export type FromWorker =
  | { type: "ready"; id: string; dim: number; pid: number }
  /** vectors: texts.length x dim floats, row-major. */
  | { type: "result"; job: number; vectors: Float32Array }
  /** An init (no job) or job failure the worker survived. */
  | { type: "failed"; job?: number; message: string };
