/**
 * The decoder on onnxruntime-node: one step graph exported by workers/trainer/export.py with
 * a KV cache and the beam reorder inside the graph (the cache never leaves onnxruntime's
 * tensors between steps except as the next call's input).
 *
 * A `tokens` model (config.condition, workers/trainer/model.py) reads the query item's words:
 * prefill.onnx puts the facet slot and the words into the cache and scores the first token,
 * then its step graph runs with a key mask that hides the prefix's PAD words (items of one
 * batch differ in length).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import * as ort from "onnxruntime-node";
import type { DecodeRequest, DecoderSession } from "./beam-search";
import { PAD } from "./vocab";

export interface DecoderConfig {
  vocab: number;
  dim_in: number;
  d: number;
  layers: number;
  heads: number;
  /** What the decoder reads of the query item (absent: "vector", the one prefix vector). */
  condition?: "vector" | "tokens";
  /** With condition "tokens": the most item tokens it was trained on. */
  item_tokens?: number;
}

/** The prefill graph of a `tokens` model, beside decoder.onnx. */
export const PREFILL_FILE = "prefill.onnx";

/** Additive key-mask value of a PAD word (finite: no NaN whatever the row). */
const MASKED = -1e9;

export const isTokenModel = (config: DecoderConfig): boolean => config.condition === "tokens";

export interface OnnxDecoderOptions {
  /** onnxruntime intra-op threads (default 1: the server decodes concurrent queries in parallel). */
  threads?: number;
}

export class OnnxDecoder {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly config: DecoderConfig,
    /** Tied embedding / output table [V, d], then the output bias [V]. */
    readonly table: Float32Array,
    /** A `tokens` model's prefill graph. */
    private readonly prefill: ort.InferenceSession | null,
  ) {}

  /** `file` is decoder.onnx; output.f32 (the tied table) and a `tokens` model's prefill.onnx sit beside it. */
  static async load(file: string, config: DecoderConfig, options: OnnxDecoderOptions = {}): Promise<OnnxDecoder> {
    const raw = readFileSync(path.join(path.dirname(file), "output.f32"));
    const expected = config.vocab * (config.d + 1) * 4;
    if (raw.byteLength !== expected) throw new Error(`${file}: output.f32 has ${raw.byteLength} bytes, expected ${expected}`);
    const table = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    const sessionOptions: ort.InferenceSession.SessionOptions = {
      intraOpNumThreads: options.threads ?? 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: "all",
    };
    const session = await ort.InferenceSession.create(file, sessionOptions);
    const prefill = isTokenModel(config) ? await ort.InferenceSession.create(path.join(path.dirname(file), PREFILL_FILE), sessionOptions) : null;
    return new OnnxDecoder(session, config, table, prefill);
  }

  /** A decoding session for one batch of requests (it holds the batch's KV cache). */
  open(): OnnxSession {
    if (this.prefill) return new OnnxTokenSession(this.prefill, this.session, this.config, this.table);
    return new OnnxStepSession(this.session, this.config, this.table);
  }

  async close(): Promise<void> {
    await this.session.release();
    await this.prefill?.release();
  }
}

/** A session on onnxruntime; hiddenState shows a row's final hidden state (export checks). */
export interface OnnxSession extends DecoderSession {
  hiddenState(row: number): Float32Array;
}

/** The output layer over a step's hidden states, restricted to the tokens asked for. */
function tiedLogits(hidden: Float32Array, table: Float32Array, d: number, biasAt: number, row: number, tokens: ArrayLike<number>, out: Float64Array): void {
  const h = row * d;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const w = t * d;
    let s = table[biasAt + t];
    for (let k = 0; k < d; k++) s += hidden[h + k] * table[w + k];
    out[i] = s;
  }
}

class OnnxStepSession implements OnnxSession {
  private query: Float32Array = new Float32Array(0);
  private facet: BigInt64Array = new BigInt64Array(0);
  private past: ort.Tensor | null = null;
  private hidden: Float32Array = new Float32Array(0);
  private readonly d: number;
  private readonly biasAt: number;

  constructor(
    private readonly session: ort.InferenceSession,
    private readonly config: DecoderConfig,
    private readonly table: Float32Array,
  ) {
    this.d = config.d;
    this.biasAt = config.vocab * config.d;
  }

  private async run(
    query: Float32Array,
    facet: BigInt64Array,
    tokenEmb: Float32Array,
    beam: BigInt64Array,
    past: ort.Tensor,
    isPrefix: boolean,
  ): Promise<void> {
    const n = facet.length;
    const out = await this.session.run({
      query: new ort.Tensor("float32", query, [n, this.config.dim_in]),
      facet: new ort.Tensor("int64", facet, [n]),
      token_emb: new ort.Tensor("float32", tokenEmb, [n, this.d]),
      past,
      beam: new ort.Tensor("int64", beam, [n]),
      is_prefix: new ort.Tensor("float32", Float32Array.of(isPrefix ? 1 : 0), [1]),
    });
    this.query = query;
    this.facet = facet;
    this.past = out.present as ort.Tensor;
    this.hidden = (out.hidden as ort.Tensor).data as Float32Array;
  }

  async start(requests: readonly DecodeRequest[]): Promise<void> {
    const { dim_in, layers, heads, d } = this.config;
    const n = requests.length;
    const query = new Float32Array(n * dim_in);
    requests.forEach((r, i) => {
      if (r.query.length !== dim_in) throw new Error(`decoder expects ${dim_in}-d query vectors, got ${r.query.length}`);
      query.set(r.query, i * dim_in);
    });
    const facet = BigInt64Array.from(requests, (r) => BigInt(r.facet));
    const empty = new ort.Tensor("float32", new Float32Array(0), [layers, 2, n, heads, 0, d / heads]);
    const beam = BigInt64Array.from({ length: n }, (_, i) => BigInt(i));
    await this.run(query, facet, new Float32Array(n * d), beam, empty, true);
  }

  async next(parents: Int32Array, tokens: Int32Array): Promise<void> {
    if (!this.past) throw new Error("next() before start()");
    const dim = this.config.dim_in;
    const d = this.d;
    const n = parents.length;
    const query = new Float32Array(n * dim);
    const facet = new BigInt64Array(n);
    const beam = new BigInt64Array(n);
    const tokenEmb = new Float32Array(n * d);
    for (let i = 0; i < n; i++) {
      const p = parents[i];
      query.set(this.query.subarray(p * dim, (p + 1) * dim), i * dim);
      facet[i] = this.facet[p];
      beam[i] = BigInt(p);
      tokenEmb.set(this.table.subarray(tokens[i] * d, (tokens[i] + 1) * d), i * d);
    }
    const past = this.past;
    await this.run(query, facet, tokenEmb, beam, past, false);
    past.dispose?.();
  }

  logits(row: number, tokens: ArrayLike<number>, out: Float64Array): void {
    tiedLogits(this.hidden, this.table, this.d, this.biasAt, row, tokens, out);
  }

  hiddenState(row: number): Float32Array {
    return this.hidden.slice(row * this.d, (row + 1) * this.d);
  }
}

/** A `tokens` model mid-decoding: the prefill graph, then the step graph with a per-row key mask. */
class OnnxTokenSession implements OnnxSession {
  private past: ort.Tensor | null = null;
  private hidden: Float32Array = new Float32Array(0);
  /** Per row, the additive mask over the cache's keys (the facet slot, the words, the tokens so far). */
  private mask: Float32Array = new Float32Array(0);
  private keys = 0;
  private step = 0;
  private readonly d: number;
  private readonly biasAt: number;

  constructor(
    private readonly prefill: ort.InferenceSession,
    private readonly session: ort.InferenceSession,
    private readonly config: DecoderConfig,
    private readonly table: Float32Array,
  ) {
    this.d = config.d;
    this.biasAt = config.vocab * config.d;
  }

  async start(requests: readonly DecodeRequest[]): Promise<void> {
    const n = requests.length;
    const limit = this.config.item_tokens ?? 0;
    // At least one word column (all PAD, masked) so no tensor has a zero-length axis.
    const width = Math.max(1, ...requests.map((r) => Math.min(limit, r.words?.length ?? 0)));
    const words = new BigInt64Array(n * width).fill(BigInt(PAD));
    const keys = 1 + width;
    const mask = new Float32Array(n * keys);
    requests.forEach((r, i) => {
      if (!r.words) throw new Error("this decoder reads the query item's tokens: the request has none");
      for (let k = 0; k < width; k++) {
        const t = k < Math.min(limit, r.words.length) ? r.words[k] : PAD;
        words[i * width + k] = BigInt(t);
        if (t === PAD) mask[i * keys + 1 + k] = MASKED;
      }
    });
    const out = await this.prefill.run({
      facet: new ort.Tensor(
        "int64",
        BigInt64Array.from(requests, (r) => BigInt(r.facet)),
        [n],
      ),
      words: new ort.Tensor("int64", words, [n, width]),
    });
    this.past = out.present as ort.Tensor;
    this.hidden = (out.hidden as ort.Tensor).data as Float32Array;
    this.mask = mask;
    this.keys = keys;
    this.step = 0;
  }

  async next(parents: Int32Array, tokens: Int32Array): Promise<void> {
    if (!this.past) throw new Error("next() before start()");
    const { d, keys } = this;
    const n = parents.length;
    const tokenEmb = new Float32Array(n * d);
    // The new key (this step's token) is visible: its column stays 0.
    const mask = new Float32Array(n * (keys + 1));
    const beam = new BigInt64Array(n);
    for (let i = 0; i < n; i++) {
      const p = parents[i];
      beam[i] = BigInt(p);
      mask.set(this.mask.subarray(p * keys, (p + 1) * keys), i * (keys + 1));
      tokenEmb.set(this.table.subarray(tokens[i] * d, (tokens[i] + 1) * d), i * d);
    }
    const past = this.past;
    const out = await this.session.run({
      token_emb: new ort.Tensor("float32", tokenEmb, [n, d]),
      past,
      beam: new ort.Tensor("int64", beam, [n]),
      key_mask: new ort.Tensor("float32", mask, [n, keys + 1]),
      step: new ort.Tensor("int64", BigInt64Array.of(BigInt(this.step)), [1]),
    });
    past.dispose?.();
    this.past = out.present as ort.Tensor;
    this.hidden = (out.hidden as ort.Tensor).data as Float32Array;
    this.mask = mask;
    this.keys = keys + 1;
    this.step += 1;
  }

  logits(row: number, tokens: ArrayLike<number>, out: Float64Array): void {
    tiedLogits(this.hidden, this.table, this.d, this.biasAt, row, tokens, out);
  }

  hiddenState(row: number): Float32Array {
    return this.hidden.slice(row * this.d, (row + 1) * this.d);
  }
}
