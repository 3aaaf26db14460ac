/**
 * The second stage as a small neural ranker: the linear model's terms plus one hidden tanh layer
 * over the same standardised features (RerankModel.hidden), fitted with the same pairwise loss
 * (RankNet) on the same pairs, by Adam on minibatches. Why: one linear scorer must weigh the
 * evidence the same way whether a corpus has citations or not, and whether a candidate is earlier
 * or later work; the hidden units let the weights depend on such regimes (tuning sets of the corpus
 * without citations +0.04 to +0.08 R@20 in session 12; reports/related-both-directions.md).
 * Several members fitted from different seeds are averaged, stored as one wider layer.
 */
import { rankingPairs, RERANK_FEATURES, standardisation, type RerankHidden, type RerankModel, type RerankTrainingQuery } from "./rerank";

export interface MlpOptions {
  depth: number;
  /** Hidden units per member. */
  hidden?: number;
  epochs?: number;
  /** One member per seed (its initial weights and the order of its minibatches); their logits are averaged. */
  seeds?: readonly number[];
  rate?: number;
  l2?: number;
  negatives?: number;
  batch?: number;
}

/** A linear congruential generator in [0, 1): fitted models must be the same on every machine. */
function uniform(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Adam over flat parameter arrays (the members' layers are small: plain arrays are fast enough). */
function adam(params: number[][], rate: number, l2: number) {
  const m = params.map((p) => new Array<number>(p.length).fill(0));
  const v = params.map((p) => new Array<number>(p.length).fill(0));
  let t = 0;
  return (grads: number[][]) => {
    t++;
    const [c1, c2] = [1 - 0.9 ** t, 1 - 0.999 ** t];
    for (let p = 0; p < params.length; p++)
      for (let j = 0; j < params[p].length; j++) {
        const g = grads[p][j] + l2 * params[p][j];
        m[p][j] = 0.9 * m[p][j] + 0.1 * g;
        v[p][j] = 0.999 * v[p][j] + 0.001 * g * g;
        params[p][j] -= (rate * (m[p][j] / c1)) / (Math.sqrt(v[p][j] / c2) + 1e-8);
      }
  };
}

interface Member {
  linear: number[];
  hidden: RerankHidden;
}

/** One member: linear terms and `units` tanh units, pairwise logistic loss on standardised rows. */
function fitMember(
  pairs: readonly [number[], number[]][],
  m: number,
  units: number,
  seed: number,
  o: Required<Omit<MlpOptions, "depth" | "seeds" | "hidden" | "negatives">>,
): Member {
  const rnd = uniform(seed);
  const W = Array.from({ length: units }, () => Array.from({ length: m }, () => ((rnd() - 0.5) * 2) / Math.sqrt(m)));
  const b = new Array<number>(units).fill(0);
  const out = Array.from({ length: units }, () => ((rnd() - 0.5) * 2) / Math.sqrt(units));
  const lin = new Array<number>(m).fill(0);
  const params = [...W, b, out, lin];
  const step = adam(params, o.rate, o.l2);
  const forward = (x: readonly number[]) => {
    const h = W.map((w, k) => {
      let a = b[k];
      for (let j = 0; j < m; j++) a += w[j] * x[j];
      return Math.tanh(a);
    });
    let z = 0;
    for (let k = 0; k < units; k++) z += out[k] * h[k];
    for (let j = 0; j < m; j++) z += lin[j] * x[j];
    return { h, z };
  };
  const order = pairs.map((_, i) => i);
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (let s = 0; s < order.length; s += o.batch) {
      const grads = params.map((p) => new Array<number>(p.length).fill(0));
      const n = Math.min(o.batch, order.length - s);
      for (let u = s; u < s + n; u++) {
        const [pos, neg] = pairs[order[u]];
        const [fp, fn] = [forward(pos), forward(neg)];
        const err = (1 / (1 + Math.exp(-(fp.z - fn.z))) - 1) / n;
        for (const [x, f, sign] of [
          [pos, fp, 1],
          [neg, fn, -1],
        ] as const) {
          for (let k = 0; k < units; k++) {
            grads[units + 1][k] += sign * err * f.h[k];
            const da = sign * err * out[k] * (1 - f.h[k] ** 2);
            grads[units][k] += da;
            const gw = grads[k];
            for (let j = 0; j < m; j++) gw[j] += da * x[j];
          }
          for (let j = 0; j < m; j++) grads[units + 2][j] += sign * err * x[j];
        }
      }
      step(grads);
    }
  }
  return { linear: lin, hidden: { weights: W, bias: b, out } };
}

/** The members fitted on one query set's pairs, averaged into one model (a wider hidden layer). */
export function fitRerankMlp(queries: readonly RerankTrainingQuery[], options: MlpOptions): RerankModel {
  const { depth, hidden = 16, epochs = 8, seeds = [7, 11, 23], rate = 3e-3, l2 = 1e-4, negatives = 30, batch = 256 } = options;
  const m = RERANK_FEATURES.length;
  const { mean, scale } = standardisation(queries);
  const standard = (r: readonly number[]) => r.map((v, j) => (v - mean[j]) / scale[j]);
  const pairs = rankingPairs(queries, negatives, 1).map(([p, o]) => [standard(p), standard(o)] as [number[], number[]]);
  const members = seeds.map((seed) => fitMember(pairs, m, hidden, seed, { epochs, rate, l2, batch }));
  const k = members.length;
  return {
    features: [...RERANK_FEATURES],
    mean,
    scale,
    weights: Array.from({ length: m }, (_, j) => members.reduce((s, x) => s + x.linear[j], 0) / k),
    bias: 0,
    depth,
    hidden: {
      weights: members.flatMap((x) => x.hidden.weights),
      bias: members.flatMap((x) => x.hidden.bias),
      out: members.flatMap((x) => x.hidden.out.map((w) => w / k)),
    },
  };
}
