/**
 * The decoder on onnxruntime-node: one step graph exported by workers/trainer/export.py with
 * a KV cache and the beam reorder inside the graph (the cache never leaves onnxruntime's
 * tensors between steps except as the next call's input).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import * as ort from "onnxruntime-node";
import type { DecodeRequest, DecoderSession } from "./beam-search";

export interface DecoderConfig {
  vocab: number;
  dim_in: number;
  d: number;
  layers: number;
  heads: number;
}

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
  ) {}

  /** `file` is decoder.onnx; output.f32 (the tied table) sits beside it. */
  static async load(file: string, config: DecoderConfig, options: OnnxDecoderOptions = {}): Promise<OnnxDecoder> {
    const raw = readFileSync(path.join(path.dirname(file), "output.f32"));
    const expected = config.vocab * (config.d + 1) * 4;
    if (raw.byteLength !== expected) throw new Error(`${file}: output.f32 has ${raw.byteLength} bytes, expected ${expected}`);
    const table = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    const session = await ort.InferenceSession.create(file, {
      intraOpNumThreads: options.threads ?? 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: "all",
    });
    return new OnnxDecoder(session, config, table);
  }

  /** A decoding session for one batch of requests (it holds the batch's KV cache). */
  open(): DecoderSession {
    return new OnnxStepSession(this.session, this.config, this.table);
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

class OnnxStepSession implements DecoderSession {
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
    const { d, table, hidden, biasAt } = this;
    const h = row * d;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      const w = t * d;
      let s = table[biasAt + t];
      for (let k = 0; k < d; k++) s += hidden[h + k] * table[w + k];
      out[i] = s;
    }
  }
}
