/**
 * Smaller copies of a fitted LSA / contrastive model folder, to measure what trimming costs
 * (scripts/eval/encoder-retrieval.ts scores them):
 *   <out>/fp16      the projection rounded to float16 precision (still stored as float32: the
 *                   quality an fp16 file would give, at half the bytes);
 *   <out>/df<N>     only the terms in at least N fitting documents (rows of the rest dropped).
 *
 *   npx tsx scripts/eval/encoder-size-variants.ts --model <folder> --out <folder> [--min-df 5]
 */
import path from "node:path";
import { loadLsaModel, saveLsaModel, type LsaModel } from "@/lib/embed";
import { smoothIdf } from "@/lib/text";

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};
const source = flag("--model");
const out = flag("--out");
const minDf = Number(flag("--min-df") ?? 5);
if (!source || !out) throw new Error("--model <folder> and --out <folder> are required");

/** x rounded to the nearest float16 (10 stored significand bits, subnormal below 2^-14). */
function toHalfPrecision(x: number): number {
  if (x === 0) return 0;
  const exponent = Math.max(Math.floor(Math.log2(Math.abs(x))), -14);
  const ulp = 2 ** (exponent - 10);
  return Math.round(x / ulp) * ulp;
}

// The df a stored idf stands for is recovered by its threshold (smoothIdf, as lsa.ts weighs).
function trimmed(model: LsaModel, df: number): LsaModel {
  // idf falls as df grows: df ≥ N ⇔ idf below the midpoint between idf(N) and idf(N − 1).
  const limit = (smoothIdf(model.docs, df) + smoothIdf(model.docs, df - 1)) / 2;
  const keep = [...model.idf.keys()].filter((t) => model.idf[t] < limit);
  const projection = new Float32Array(keep.length * model.dims);
  keep.forEach((t, i) => projection.set(model.projection.subarray(t * model.dims, (t + 1) * model.dims), i * model.dims));
  return { ...model, vocabulary: keep.map((t) => model.vocabulary[t]), idf: Float32Array.from(keep, (t) => model.idf[t]), projection };
}

const model = loadLsaModel(source);
const half = { ...model, projection: model.projection.map(toHalfPrecision) };
const variants: [string, LsaModel][] = [
  ["fp16", half],
  [`df${minDf}`, trimmed(model, minDf)],
];
for (const [name, m] of variants) {
  const folder = path.join(out, name);
  const fingerprint = saveLsaModel(folder, m);
  const bytes = (m.vocabulary.length * m.dims * (name === "fp16" ? 2 : 4)) / 2 ** 20;
  console.log(
    `${folder}: ${m.vocabulary.length} terms × ${m.dims} → ${bytes.toFixed(1)} MiB${name === "fp16" ? " as float16" : ""} (fingerprint ${fingerprint})`,
  );
}
