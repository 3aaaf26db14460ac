/**
 * Recall of the generative retriever's snapshots (learning curves, issue "retriever quality"):
 * for each decoder given, R@20/R@50 with plain RRF and graph-RRF over in-corpus queries of a
 * split, against the dense-graph teacher on the same queries.
 *
 *   npx tsx scripts/eval/genret-curve.ts --ids DIR --run RUN_DIR [--split dev] [--queries 200] [--beams 50]
 *     [--length-penalty 1] [--list-order concatenate|interleave|score] [--out curve.json]
 *
 * DIR holds vocab.json and trie-*.bin (scripts/train/genret-pack.ts); RUN_DIR is the trainer's
 * --out (config.json, decoder.onnx, snapshots/<examples>/decoder.onnx; a `tokens` model's
 * prefill.onnx beside each, and the queries' item texts are passed for it).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { sharedDataDir } from "@/lib/paths";
import { FACETS, type Facet } from "@/lib/corpus";
import { denseGraphInCorpus, neighbourGold, paperItems } from "@/lib/eval/dense-graph";
import { recallAtK } from "@/lib/eval/metrics";
import { learningCurveSvg } from "@/lib/eval/svg";
import { csrWeightOf, graphRrf, rrf } from "@/lib/fusion";
import { loadGenretCorpusFiles, newestGraphBuildDir } from "@/lib/genret/corpus-files";
import { generativeFacetLists, loadGenretModel, PAPER_DECODING } from "@/lib/genret/model";
import { mulberry32 } from "@/lib/random";
import { z } from "zod";

const { values } = parseArgs({
  options: {
    ids: { type: "string" },
    run: { type: "string" },
    split: { type: "string", default: "dev" },
    queries: { type: "string", default: "200" },
    beams: { type: "string", default: String(PAPER_DECODING.beams) },
    "length-penalty": { type: "string", default: String(PAPER_DECODING.lengthPenalty) },
    "list-order": { type: "string", default: PAPER_DECODING.listOrder },
    out: { type: "string" },
    build: { type: "string" },
    only: { type: "string" },
    svg: { type: "string" },
  },
});
if (!values.ids || !values.run) throw new Error("--ids DIR and --run RUN_DIR are required");
const decoding = z
  .object({ beams: z.coerce.number().int().min(1), lengthPenalty: z.coerce.number().min(0), listOrder: z.enum(["concatenate", "interleave", "score"]) })
  .parse({ beams: values.beams, lengthPenalty: values["length-penalty"], listOrder: values["list-order"] });
const buildDir = values.build ?? newestGraphBuildDir("acl-citegraph");
const { corpus, data } = await loadGenretCorpusFiles(path.join(sharedDataDir(), "acl-citegraph"), buildDir);
const gold = neighbourGold(corpus.graph);
const rand = mulberry32(7);
const pool = corpus.splits.flatMap((s, i) => (s === values.split && gold[i].size > 0 ? [i] : []));
for (let i = pool.length - 1; i > 0; i--) {
  const j = Math.floor(rand() * (i + 1));
  [pool[i], pool[j]] = [pool[j], pool[i]];
}
const queries = pool.slice(0, Number(values.queries));

// A model directory per decoder: identifiers + config from the run, the snapshot's decoder.
const decoders: { label: string; file: string; seen: number }[] = [];
const snapDir = path.join(values.run, "snapshots");
if (existsSync(snapDir)) for (const s of readdirSync(snapDir).sort()) decoders.push({ label: s, file: path.join(snapDir, s, "decoder.onnx"), seen: Number(s) });
if (existsSync(path.join(values.run, "decoder.onnx"))) {
  const t = existsSync(path.join(values.run, "train.json"))
    ? (JSON.parse(readFileSync(path.join(values.run, "train.json"), "utf8")) as { seen: number })
    : { seen: NaN };
  decoders.push({ label: "final", file: path.join(values.run, "decoder.onnx"), seen: t.seen });
}
// Training wall time at each snapshot, from the trainer's metrics.jsonl (progress records).
const metricsFile = path.join(values.run, "metrics.jsonl");
const progress = existsSync(metricsFile)
  ? readFileSync(metricsFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { seen: number; elapsed: number })
  : [];
const trainSecondsAt = (seen: number): number | null => progress.find((r) => r.seen >= seen)?.elapsed ?? progress.at(-1)?.elapsed ?? null;
const selected = values.only ? decoders.filter((d) => values.only?.split(",").includes(d.label)) : decoders;
const modelDir = path.join("/tmp", `genret-curve-${process.pid}`);
mkdirSync(modelDir, { recursive: true });
for (const f of ["vocab.json", ...FACETS.map((f) => `trie-${f}.bin`)]) copyFileSync(path.join(values.ids, f), path.join(modelDir, f));
copyFileSync(path.join(values.run, "config.json"), path.join(modelDir, "config.json"));
writeFileSync(path.join(modelDir, "papers.json"), JSON.stringify({ externalIds: corpus.ids }));
writeFileSync(path.join(modelDir, "genret.json"), JSON.stringify({ embedder: data.embedderId, variant: "?" }));

const weightOf = csrWeightOf(corpus.graph);
const teacher = queries.map((q) => ({ retrieved: denseGraphInCorpus(corpus.graph, q), gold: gold[q] }));
const rows: Record<string, unknown>[] = [{ label: "dense-graph teacher", "R@20": recallAtK(teacher, 20), "R@50": recallAtK(teacher, 50) }];
console.log(JSON.stringify(rows[0]));
for (const d of selected) {
  writeFileSync(path.join(modelDir, "decoder.onnx"), readFileSync(d.file));
  writeFileSync(path.join(modelDir, "output.f32"), readFileSync(path.join(path.dirname(d.file), "output.f32")));
  // A tokens model's prefill graph sits beside its step graph.
  const prefill = path.join(path.dirname(d.file), "prefill.onnx");
  if (existsSync(prefill)) copyFileSync(prefill, path.join(modelDir, "prefill.onnx"));
  const model = await loadGenretModel(modelDir, { threads: 2 });
  const runsRrf = [];
  const runsGraph = [];
  const t0 = performance.now();
  for (const q of queries) {
    const items = paperItems(data.items, q) as Partial<Record<Facet, Float32Array[]>>;
    const lists = await generativeFacetLists(model, { items, texts: corpus.facets[q], exclude: q }, decoding);
    runsRrf.push({ retrieved: rrf(lists, { exclude: q }).map((r) => r.paper), gold: gold[q] });
    runsGraph.push({ retrieved: graphRrf(lists, { query: q, weightOf }).map((r) => r.paper), gold: gold[q] });
  }
  const ms = (performance.now() - t0) / queries.length;
  await model.decoder.close();
  const row = {
    label: d.label,
    seen: d.seen,
    trainSeconds: Number.isFinite(d.seen) ? trainSecondsAt(d.seen) : null,
    "rrf R@20": recallAtK(runsRrf, 20),
    "rrf R@50": recallAtK(runsRrf, 50),
    "graph-rrf R@20": recallAtK(runsGraph, 20),
    "graph-rrf R@50": recallAtK(runsGraph, 50),
    msPerQuery: ms,
  };
  rows.push(row);
  console.log(JSON.stringify(row));
}
if (values.out) writeFileSync(values.out, JSON.stringify({ split: values.split, queries: queries.length, decoding, buildDir, rows }, null, 1));
if (values.svg) {
  const points = rows.slice(1).filter((r) => Number.isFinite(r.seen as number)) as Record<string, number>[];
  const series = (key: string, label: string) => ({ label, points: points.map((r) => [r.seen, r[key]] as const) });
  writeFileSync(
    values.svg,
    learningCurveSvg([series("graph-rrf R@20", "Graft lists + graph-RRF, R@20"), series("rrf R@20", "Graft lists + plain RRF, R@20")], {
      title: `Generative retriever learning curve (${values.split}, ${queries.length} queries)`,
      xLabel: "training examples seen",
      yLabel: "recall@20 (micro)",
      reference: { label: "dense-graph teacher R@20", y: rows[0]["R@20"] as number },
    }),
  );
}
