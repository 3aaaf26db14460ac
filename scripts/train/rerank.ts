/**
 * Fits the default retriever's second stage (lib/retrieve/rerank.ts):
 *   npm run train:rerank [-- --train 1200 --write]
 * Train-split papers of acl-citegraph with corpus references are queried as unseen papers through
 * relatedPapers (LLM facets, with their records' year and authors), gold = the corpus papers they
 * cite (train-split citations only); the tuning half of the unseen test papers is queried with both
 * facet sources. Their fused heads' feature rows go to a file (--dump, default in the temp folder;
 * --from re-reads one instead of querying). The pairwise logistic model is fitted on the training
 * rows for each depth and L2 penalty, chosen by R@20 on the tuning rows (never the report half or
 * set 1); --write stores it in lib/retrieve/rerank-model.ts.
 */
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { sharedDataDir } from "@/lib/paths";
import { createExtractor } from "@/lib/facets/provider";
import { runUserPapers, userPaperQueries, userPaperQuery, type FacetSource, type PaperLine, type UserPaperQuery } from "@/lib/eval/user-papers";
import { HYBRID, hybridRerankRows, hybridRetriever } from "@/lib/retrieve/hybrid";
import { fitRerankModel, rerankScore, RERANK_FEATURES, type RerankModel } from "@/lib/retrieve/rerank";
import { registerRetriever } from "@/lib/retrieve/retriever";

const { values } = parseArgs({
  options: {
    train: { type: "string", default: "800" },
    tune: { type: "string" },
    depth: { type: "string", default: "200" },
    corpus: { type: "string", default: "acl-citegraph" },
    dir: { type: "string", default: path.join(sharedDataDir(), "acl-citegraph") },
    write: { type: "boolean", default: false },
    /** Where the captured rows go (the trainer's input). */
    dump: { type: "string", default: path.join(os.tmpdir(), "graft-rerank-rows.json") },
    /** Read captured rows from a --dump file instead of running the pipeline (columns matched by feature name). */
    from: { type: "string" },
    /** Comma-separated features to leave out of the fit (their column set to 0): ablations from one dump. */
    drop: { type: "string", default: "" },
  },
});
const MAX_DEPTH = Number(values.depth);

/** Train-split papers with corpus references, a fixed hash-ordered sample of `n`. */
function trainQueries(dir: string, n: number): UserPaperQuery[] {
  const lines = readFileSync(path.join(dir, "papers.jsonl"), "utf8").split("\n").filter(Boolean);
  const papers = lines.map((l) => JSON.parse(l) as PaperLine);
  const train = new Set(papers.filter((p) => p.split === "train").map((p) => p.id));
  const refs = new Map<string, string[]>();
  for (const l of readFileSync(path.join(dir, "citations.tsv"), "utf8").split("\n").slice(1)) {
    const [a, b] = l.split("\t");
    if (!b || a === b || !train.has(a)) continue;
    refs.set(a, [...new Set([...(refs.get(a) ?? []), b])]);
  }
  const hash = (id: string) => createHash("md5").update(`rerank:${id}`).digest().readUInt32BE(0);
  return papers
    .filter((p) => refs.has(p.id))
    .sort((x, y) => hash(x.id) - hash(y.id))
    .slice(0, n)
    .map((p) => userPaperQuery(p, refs.get(p.id) as string[]));
}

const YEAR = new Map(
  readFileSync(path.join(values.dir as string, "papers.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; year?: number })
    .map((p) => [p.id, p.year ?? 0] as const),
);

interface Captured {
  id: string;
  /** The query's year and its candidates' (the trainer leaves candidates newer than the query out of the fit). */
  year: number;
  years: number[];
  papers: string[];
  rows: number[][];
  gold: Set<string>;
  /** Gold papers in the whole answer, for the micro-recall denominator. */
  goldCount: number;
}

let captures: { papers: string[]; rows: number[][] }[] = [];
registerRetriever({
  ...hybridRetriever({ ...HYBRID, rerank: null }, "hybrid-capture"),
  async rerank(ctx, fused) {
    const rows = await hybridRerankRows(ctx, fused, MAX_DEPTH);
    captures.push({ papers: fused.slice(0, MAX_DEPTH).map((r) => ctx.graph.papers[r.paper].externalId), rows });
    return [...fused];
  },
});

async function capture(queries: UserPaperQuery[], source: FacetSource): Promise<Captured[]> {
  captures = [];
  const extractor = source === "offline" ? createExtractor("offline").extractor : undefined;
  const runs = await runUserPapers(getDb(), values.corpus as string, queries, { retriever: "hybrid-capture" }, source, extractor, {
    onProgress: (d, t) => d % 100 === 0 && console.error(`  ${source}: ${d}/${t}`),
  });
  // A query the pipeline answered with an error (no facets) never reached the second stage.
  let next = 0;
  return runs.map((r) => {
    const c = r.error ? { papers: [], rows: [] } : captures[next++];
    const years = c.papers.map((p) => YEAR.get(p) ?? 0);
    return { ...c, id: r.id, year: YEAR.get(r.id) ?? 0, years, gold: new Set(r.gold), goldCount: r.gold.length };
  });
}

function recallAt20(qs: readonly Captured[], model: RerankModel | null): number {
  const depth = model?.depth ?? 0;

  let hit = 0;
  let gold = 0;
  for (const q of qs) {
    const order = q.papers.map((p, i) => ({ p, i, z: model && i < depth ? rerankScore(model, q.rows[i]) : -Infinity }));
    if (model) order.sort((a, b) => (a.i < depth && b.i < depth ? b.z - a.z || a.i - b.i : a.i - b.i));
    hit += order.slice(0, 20).filter((o) => q.gold.has(o.p)).length;
    gold += q.goldCount;
  }
  return hit / gold;
}

const t0 = performance.now();
// Both facet sources, so the model also learns from the offline extractor's noisier facets (a pasted paper's).
const trainSet = trainQueries(values.dir as string, Number(values.train));
type Capture = { train: Captured[]; tune: { llm: Captured[]; offline: Captured[] } };
const dropped = new Set((values.drop as string).split(",").filter(Boolean));
for (const f of dropped)
  if (!(RERANK_FEATURES as readonly string[]).includes(f)) throw new Error(`--drop: no feature "${f}" (features: ${RERANK_FEATURES.join(", ")})`);
async function captureAll(): Promise<Capture> {
  if (values.from) {
    const c = JSON.parse(readFileSync(values.from, "utf8")) as Capture & { features: string[] };
    // A dump's columns follow its own feature list: re-ordered to today's, so features removed since still read.
    const column = RERANK_FEATURES.map((f) => c.features.indexOf(f));
    const missing = RERANK_FEATURES.filter((_, j) => column[j] < 0);
    if (missing.length > 0) throw new Error(`${values.from} has no column for ${missing.join(", ")}: capture again without --from`);
    const revive = (qs: Captured[]) => qs.map((q) => ({ ...q, rows: q.rows.map((r) => column.map((k) => r[k])), gold: new Set(q.gold) }));
    return { train: revive(c.train), tune: { llm: revive(c.tune.llm), offline: revive(c.tune.offline) } };
  }
  const train = await capture(trainSet, "llm");
  const tuneQueries = userPaperQueries(values.dir as string, "unseen-tune").slice(0, values.tune ? Number(values.tune) : undefined);
  return { train, tune: { llm: await capture(tuneQueries, "llm"), offline: await capture(tuneQueries, "offline") } };
}
const captured = await captureAll();
const withoutDropped = (qs: Captured[]) => qs.map((q) => ({ ...q, rows: q.rows.map((r) => r.map((v, j) => (dropped.has(RERANK_FEATURES[j]) ? 0 : v))) }));
const [train, tune] = [withoutDropped(captured.train), { llm: withoutDropped(captured.tune.llm), offline: withoutDropped(captured.tune.offline) }];
if (!values.from) {
  const plain = (qs: Captured[]) => qs.map((q) => ({ ...q, gold: [...q.gold] }));
  writeFileSync(
    values.dump,
    JSON.stringify({ features: RERANK_FEATURES, train: plain(captured.train), tune: { llm: plain(captured.tune.llm), offline: plain(captured.tune.offline) } }),
  );
}
console.log(`captured ${train.length} train and ${tune.llm.length} tuning papers in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
const report = (label: string, model: RerankModel | null) =>
  console.log(
    `${label} R@20: train ${recallAt20(train, model).toFixed(4)}  tune llm ${recallAt20(tune.llm, model).toFixed(4)}  offline ${recallAt20(tune.offline, model).toFixed(4)}`,
  );
report("fused order", null);

/**
 * Each training query's head. Candidates published after the query cannot be its references: for
 * a 2012 train paper they are half the pool, easy negatives that a 2020 query does not have, so
 * they are left out of the fit (they stay in the recall figures).
 */
function trainingSet(qs: readonly Captured[], depth: number) {
  return qs.map((q) => {
    const keep = q.papers.slice(0, depth).flatMap((_, i) => (q.years[i] <= q.year ? [i] : []));
    return { rows: keep.map((i) => q.rows[i]), labels: keep.map((i) => (q.gold.has(q.papers[i]) ? 1 : 0)) };
  });
}

let best: { model: RerankModel; score: number } | null = null;
for (const depth of [50, 100, 200].filter((d) => d <= MAX_DEPTH)) {
  for (const l2 of [1e-3, 1e-2]) {
    const model = fitRerankModel(trainingSet(train, depth), { depth, l2 });
    report(`depth ${depth} l2 ${l2}:`, model);
    const score = (recallAt20(tune.llm, model) + recallAt20(tune.offline, model)) / 2;
    if (!best || score > best.score) best = { model, score };
  }
}
const chosen = (best as { model: RerankModel }).model;
console.log(`chosen depth ${chosen.depth}; standardised weights:`, RERANK_FEATURES.map((f, j) => `${f} ${chosen.weights[j].toFixed(3)}`).join(", "));
if (values.write) {
  const round = (xs: number[]) => xs.map((x) => Number(x.toPrecision(6)));
  const model = { ...chosen, mean: round(chosen.mean), scale: round(chosen.scale), weights: round(chosen.weights), bias: Number(chosen.bias.toPrecision(6)) };
  const file = path.join(process.cwd(), "lib/retrieve/rerank-model.ts");
  writeFileSync(
    file,
    `/**
 * The default retriever's second stage (lib/retrieve/rerank.ts), written by \`npm run train:rerank -- --train ${values.train} --write\`:
 * pairwise logistic regression fitted on ${train.length} train-split papers of acl-citegraph queried as unseen papers
 * (LLM facets, their records' authors; gold: their corpus references), depth and L2 chosen on the tuning half of the unseen test papers.
 */
import type { RerankModel } from "./rerank";

export const RERANK_MODEL: RerankModel | null = ${JSON.stringify(model, null, 2)};
`,
  );
  console.log(`wrote ${file}`);
}
process.exit(0);
