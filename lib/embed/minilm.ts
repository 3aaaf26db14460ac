/**
 * all-MiniLM-L12-v2, the paper's item encoder, through @huggingface/transformers'
 * feature-extraction pipeline (onnxruntime-node) with mean pooling over the attention mask and
 * L2 normalisation, as sentence-transformers does.
 *
 * Where the model comes from:
 *  - a local folder (absolute path, or one starting with "." or "~"): loaded with remote access
 *    off; it must hold config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx
 *    (or onnx/model_quantized.onnx);
 *  - a Hugging Face hub id (default Xenova/all-MiniLM-L12-v2, the ONNX export of
 *    sentence-transformers/all-MiniLM-L12-v2): first looked up as <models dir>/<id>/, the same
 *    place downloads are cached, otherwise downloaded from huggingface.co unless GRAFT_HF_OFFLINE
 *    is set. The models dir is GRAFT_HF_MODELS_DIR, default <GRAFT_DATA_ROOT or .graft>/models.
 *
 * The library is imported lazily: the USE-lite default never pays for loading onnxruntime.
 */
import { existsSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { configFrom, type Env } from "@/lib/config";
import { dataRoot } from "@/lib/paths";
// Type-only: erased at run time, so the library itself is still loaded lazily below.
import type { FeatureExtractionPipeline as FeatureExtractor, Tensor } from "@huggingface/transformers";
import type { Embedder } from "./types";

/** The transformers.js-ready export of the paper's model (onnx/model.onnx + tokenizer files). */
export const MINILM_DEFAULT_MODEL = "Xenova/all-MiniLM-L12-v2";
/** sentence-transformers' max_seq_length for all-MiniLM-L12-v2; longer inputs are truncated. */
export const MINILM_MAX_TOKENS = 128;
const DEFAULT_BATCH = 32;

const REQUIRED_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json"] as const;
/** Weight files in order of preference, with the transformers.js dtype that selects each. */
const ONNX_FILES = [
  { file: "onnx/model.onnx", dtype: "fp32" },
  { file: "onnx/model_quantized.onnx", dtype: "q8" },
] as const;
export type OnnxDtype = (typeof ONNX_FILES)[number]["dtype"];

// Same pattern transformers.js uses to tell hub ids from paths (utils/hub/constants.js).
const HUB_ID = /^(\b[\w\-.]+\b\/)?\b[\w\-.]{1,96}\b$/;

export interface MiniLmOptions {
  /** Hub id or local folder; default MINILM_DEFAULT_MODEL. */
  model?: string;
  /** Folder holding <hub id>/ copies and the download cache (like transformers' env.localModelPath). */
  modelsDir?: string;
  /** Never download; default: GRAFT_HF_OFFLINE is set (to anything but "", "0", "false", "no", "off"). */
  offline?: boolean;
  /** Weights to use: fp32 (onnx/model.onnx) or q8 (onnx/model_quantized.onnx); default fp32, or q8
   * for a folder that only has the quantised file. */
  dtype?: OnnxDtype;
  /** Word pieces per text, [CLS]/[SEP] included; default 128 (capped by the tokenizer's own limit). */
  maxTokens?: number;
  /** Texts per model call; default 32. */
  batchSize?: number;
}

/** GRAFT_HF_OFFLINE (lib/config.ts), of this process or of `env`. */
export function hfOfflineFromEnv(env?: Env): boolean {
  return configFrom(env).GRAFT_HF_OFFLINE;
}

/** GRAFT_HF_MODELS_DIR, default <data root>/models. */
export function defaultModelsDir(env?: Env): string {
  // turbopackIgnore (here and below): model folders are runtime data, not files for `next build` to trace.
  return path.resolve(/* turbopackIgnore: true */ configFrom(env).GRAFT_HF_MODELS_DIR ?? path.join(dataRoot(), "models"));
}

/** True when `model` names a folder on disk rather than a hub repo. */
export function isLocalModelPath(model: string): boolean {
  return path.isAbsolute(model) || model.startsWith(".") || model.startsWith("~") || !HUB_ID.test(model);
}

function expandHome(p: string): string {
  return p === "~" || p.startsWith("~/") ? path.join(os.homedir(), p.slice(1)) : p;
}

const hubUrl = (id: string) => `https://huggingface.co/${id}`;
const filesToGet = `${REQUIRED_FILES.join(", ")} and onnx/model.onnx`;

/**
 * Checks that `dir` is a loadable model folder and picks its weights file; throws an error that
 * names what is missing and where it should be.
 */
export function inspectModelFolder(dir: string, dtype?: OnnxDtype): { dtype: OnnxDtype; onnxFile: string } {
  if (!existsSync(dir)) throw new Error(`MiniLM model folder not found: ${dir}. It should hold ${filesToGet}.`);
  if (!statSync(dir).isDirectory()) throw new Error(`MiniLM model path is not a folder: ${dir}`);
  const missing = REQUIRED_FILES.filter((f) => !existsSync(/* turbopackIgnore: true */ path.join(/* turbopackIgnore: true */ dir, f)));
  if (missing.length > 0) {
    throw new Error(`MiniLM model folder ${dir} lacks ${missing.join(", ")} (a model folder holds ${filesToGet}).`);
  }
  const candidates = ONNX_FILES.filter((w) => dtype === undefined || w.dtype === dtype);
  const weights = candidates.find((w) => existsSync(path.join(dir, w.file)));
  if (!weights) {
    throw new Error(
      `No ONNX weights in ${path.join(dir, "onnx")}: expected ${candidates.map((w) => w.file).join(" or ")}. ` +
        `Download them from the model's "onnx" folder on the hub (e.g. ${hubUrl(MINILM_DEFAULT_MODEL)}/tree/main/onnx) ` +
        `or export the model with Hugging Face Optimum (optimum-cli export onnx --task feature-extraction).`,
    );
  }
  return { dtype: weights.dtype, onnxFile: path.join(dir, weights.file) };
}

/** Where a model will be loaded from, decided before any loading. */
export type MiniLmSource =
  { kind: "folder"; dir: string; dtype: OnnxDtype; id: string } | { kind: "hub"; hubId: string; modelsDir: string; dtype: OnnxDtype; id: string };

export function resolveMiniLmSource(options: MiniLmOptions = {}): MiniLmSource {
  const model = options.model?.trim() || MINILM_DEFAULT_MODEL;
  const modelsDir = path.resolve(expandHome(options.modelsDir ?? defaultModelsDir()));
  const offline = options.offline ?? hfOfflineFromEnv();
  if (isLocalModelPath(model)) {
    const dir = path.resolve(expandHome(model));
    // The absolute path is the identity: two different folders must never share cached vectors.
    return { kind: "folder", dir, dtype: inspectModelFolder(dir, options.dtype).dtype, id: dir };
  }
  const copy = path.join(/* turbopackIgnore: true */ modelsDir, model);
  if (existsSync(path.join(copy, "config.json"))) {
    // A downloaded or hand-placed copy: same vectors as the hub model, so the hub id is the identity.
    try {
      return { kind: "folder", dir: copy, dtype: inspectModelFolder(copy, options.dtype).dtype, id: model };
    } catch (err) {
      // An interrupted download: online, the hub load below completes it in place.
      if (offline) throw err;
    }
  }
  if (offline) {
    throw new Error(
      `GRAFT_HF_OFFLINE is set and there is no local copy of ${model} in ${copy}. ` +
        `Download ${filesToGet} from ${hubUrl(model)} (keeping the onnx/ subfolder) into ${copy}, ` +
        `or pass a folder path (GRAFT_EMBEDDER=minilm:/path/to/folder), or unset GRAFT_HF_OFFLINE to download it.`,
    );
  }
  return { kind: "hub", hubId: model, modelsDir, dtype: options.dtype ?? "fp32", id: model };
}

type Transformers = typeof import("@huggingface/transformers");

export class MiniLmEmbedder implements Embedder {
  constructor(
    readonly id: string,
    readonly dim: number,
    private readonly extractor: FeatureExtractor,
    private readonly meanPooling: Transformers["mean_pooling"],
    private readonly maxTokens: number,
    private readonly batchSize: number,
  ) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = new Array(texts.length);
    // Length-sorted batches pad less (attention cost grows with the longest text in a batch);
    // masking makes each vector independent of its batch-mates up to float rounding.
    const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length || a - b);
    for (let s = 0; s < order.length; s += this.batchSize) {
      const idx = order.slice(s, s + this.batchSize);
      const rows = await this.embedBatch(idx.map((i) => texts[i]));
      idx.forEach((i, r) => {
        out[i] = rows.slice(r * this.dim, (r + 1) * this.dim);
      });
    }
    return out;
  }

  /**
   * The feature-extraction pipeline's own steps (tokenise with padding and truncation, run the
   * model, mean-pool over the attention mask, L2-normalise), done here because the pipeline
   * truncates only at the tokenizer's model_max_length (512 for MiniLM), while
   * sentence-transformers encodes this model with at most 128 word pieces.
   */
  private async embedBatch(batch: string[]): Promise<Float32Array> {
    const inputs = this.extractor.tokenizer(batch, { padding: true, truncation: true, max_length: this.maxTokens }) as unknown as {
      attention_mask: Tensor;
    } & Record<string, Tensor>;
    const outputs = (await this.extractor.model(inputs)) as Record<string, Tensor | undefined>;
    const hidden = outputs.last_hidden_state ?? outputs.logits ?? outputs.token_embeddings;
    if (!hidden) throw new Error(`Model ${this.id} returned no last_hidden_state`);
    const pooled = this.meanPooling(hidden, inputs.attention_mask).normalize(2, -1);
    const data = pooled.data as Float32Array;
    if (data.length !== batch.length * this.dim) {
      throw new Error(`Model ${this.id} returned ${data.length} values for ${batch.length} texts of dim ${this.dim}`);
    }
    for (const t of [pooled, hidden, ...Object.values(inputs)]) t.dispose();
    return data;
  }

  async close(): Promise<void> {
    await this.extractor.dispose();
  }
}

export async function createMiniLmEmbedder(options: MiniLmOptions = {}): Promise<MiniLmEmbedder> {
  const source = resolveMiniLmSource(options);
  const { env, pipeline, mean_pooling } = await import("@huggingface/transformers");
  let extractor: FeatureExtractor;
  const dtype = source.dtype;
  if (source.kind === "folder") {
    // A folder is never completed from the network: a missing file must fail, not download.
    env.allowRemoteModels = false;
    try {
      // An absolute path is not a valid hub id, so transformers.js reads the folder itself.
      extractor = await pipeline("feature-extraction", source.dir, { dtype, local_files_only: true });
    } catch (err) {
      throw new Error(`Could not load the MiniLM model folder ${source.dir}: ${(err as Error).message}`);
    }
  } else {
    env.allowRemoteModels = true;
    // Downloads land in <modelsDir>/<hub id>/, exactly where the offline lookup above finds them.
    env.cacheDir = source.modelsDir;
    try {
      extractor = await pipeline("feature-extraction", source.hubId, { dtype });
    } catch (err) {
      throw new Error(
        `Could not load ${source.hubId} from ${hubUrl(source.hubId)}: ${(err as Error).message}. ` +
          `Without internet access, download ${filesToGet.replace("model.onnx", dtype === "q8" ? "model_quantized.onnx" : "model.onnx")} into ${path.join(source.modelsDir, source.hubId)} ` +
          `and set GRAFT_HF_OFFLINE=1.`,
      );
    }
  }
  const config = extractor.model.config as unknown as { hidden_size?: number };
  const dim = config.hidden_size;
  if (typeof dim !== "number" || !Number.isInteger(dim) || dim <= 0) {
    await extractor.dispose();
    throw new Error(`Model ${source.id} has no integer hidden_size in its config.json; cannot tell its vector size.`);
  }
  const maxTokens = options.maxTokens ?? MINILM_MAX_TOKENS;

  const suffix = (dtype === "fp32" ? "" : `;${dtype}`) + (maxTokens === MINILM_MAX_TOKENS ? "" : `;max=${maxTokens}`);
  return new MiniLmEmbedder(`minilm:${source.id}${suffix}`, dim, extractor, mean_pooling, maxTokens, options.batchSize ?? DEFAULT_BATCH);
}
