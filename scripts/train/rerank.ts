/**
 * Fits the default retriever's second stage (lib/retrieve/rerank.ts):
 *   npm run train:rerank [-- --train 1200 --write]
 * Train-split papers of acl-citegraph related to other train-split papers are queried as unseen
 * papers through relatedPapers (LLM facets, with their records' year and authors) with the test and
 * dev splits hidden, gold = the train-split papers they cite and the train-split papers citing them
 * (related work in both directions; train → train citations only); the tuning halves of sets 2
 * (earlier work) and 3 (later work) are queried with both facet sources. Their fused heads' feature rows go to a file (--dump, default in the temp folder;
 * --from re-reads one instead of querying). The pairwise neural ranker (--hidden units, 0: the pairwise
 * logistic model for each depth and L2 penalty) is fitted on the training rows, its shift on "newer"
 * chosen by R@20 on the tuning rows (never the report half or set 1); --write stores it in
 * models/rerank-default/model.json (read by lib/retrieve/rerank-model.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { writeFileAtomic } from "@/lib/atomic-write";
import { format, resolveConfig } from "prettier";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { getDb } from "@/lib/db";
import { sharedDataDir } from "@/lib/paths";
import { createExtractor } from "@/lib/facets/provider";
import { runUserPapers, userPaperQueries, userPaperQuery, type FacetSource, type PaperLine, type UserPaperQuery } from "@/lib/eval/user-papers";
import { HYBRID, hybridRerankRows, hybridRetriever } from "@/lib/retrieve/hybrid";
import { fitRerankModel, NEWER_OF, rerankScore, RERANK_FEATURES, withNewerInteractions, type RerankModel } from "@/lib/retrieve/rerank";
import { registerRetriever } from "@/lib/retrieve";
import { fitRerankMlp } from "@/lib/retrieve/rerank-mlp";
import { parseRerankModel, RERANK_FORMAT, RERANK_MODEL_FILE, RERANK_VERSION } from "@/lib/retrieve/rerank-model";
import { foldOf, parseFold } from "@/lib/embed/contrastive";

const { values } = parseArgs({
  options: {
    train: { type: "string", default: "800" },
    tune: { type: "string" },
    depth: { type: "string", default: "200" },
    corpus: { type: "string", default: "acl-citegraph" },
    /**
     * The same corpus imported without its citations (graft import <dir> --corpus <name> with an empty
     * citations.tsv): its training and tuning queries are captured too, so the model also learns how
     * to rank when the text is all there is (gold still the data set's train → train citations).
     */
    "without-citations": { type: "string" },
    /** Fit on the training rows of --corpus only ("corpus"), or also on those of --without-citations' copy ("both", default). */
    "train-on": { type: "string", default: "both" },
    dir: { type: "string", default: path.join(sharedDataDir(), "acl-citegraph") },
    write: { type: "boolean", default: false },
    /** Where the captured rows go (the trainer's input). */
    dump: { type: "string", default: path.join(os.tmpdir(), "graft-rerank-rows.json") },
    /** Read captured rows from a --dump file instead of running the pipeline (columns matched by feature name). */
    from: { type: "string" },
    /** Comma-separated features to leave out of the fit (their column set to 0): ablations from one dump. */
    drop: { type: "string", default: "" },
    /** The first stage's later-work weight (HybridSettings.laterWeight) the rows are captured with. */
    later: { type: "string", default: String(HYBRID.laterWeight ?? 0) },
    held: { type: "string" },
    /**
     * Cross-fitting ("k/K"): capture only the training and prior-tune queries of fold k (foldOf, as
     * `graft fit-encoder --holdout-fold k/K` holds them out), run with GRAFT_TEXT_ENCODER set to that
     * fold's encoder, so their encoder cosines are of pairs it never trained on; --from a,b,… merges
     * the folds' dumps (and one of the tuning sets captured with the served encoder).
     */
    fold: { type: "string" },
    /** Stop once the rows are written to --dump (captures to merge later with --from). */
    "capture-only": { type: "boolean", default: false },
    /** Capture only these tuning sets (comma-separated). */
    "only-tune": { type: "string" },
    /** Hidden tanh units per member of the neural second stage (lib/retrieve/rerank-mlp.ts); 0 fits the linear model. */
    hidden: { type: "string", default: "16" },
    /** The members' seeds (their logits averaged) and their epochs. */
    seeds: { type: "string", default: "7,11,23" },
    epochs: { type: "string", default: "8" },
  },
});
const MAX_DEPTH = Number(values.depth);
const FOLD = values.fold ? parseFold(values.fold) : null;
/** Whether a train paper is among this run's queries (all of them without --fold). */
const inFold = (id: string) => !FOLD || foldOf(id, FOLD.of, 0) === FOLD.index;
const onlyTune = values["only-tune"] ? (values["only-tune"] as string).split(",") : null;

/** Train-split papers related to train-split papers (citing or cited), a fixed hash-ordered sample of `n`. */
function trainQueries(dir: string, n: number, gold: "both" | "cites" = "both"): UserPaperQuery[] {
  const papers = PAPERS;
  const train = new Set(papers.filter((p) => p.split === "train").map((p) => p.id));
  const refs = new Map<string, string[]>();
  const add = (from: string, to: string) => refs.set(from, [...new Set([...(refs.get(from) ?? []), to])]);
  for (const l of readFileSync(path.join(dir, "citations.tsv"), "utf8").split("\n").slice(1)) {
    const [a, b] = l.split("\t");
    if (!b || a === b || !train.has(a) || !train.has(b)) continue;
    add(a, b);
    if (gold === "both") add(b, a);
  }
  const hash = (id: string) => createHash("md5").update(`rerank:${id}`).digest().readUInt32BE(0);
  return papers
    .filter((p) => refs.has(p.id))
    .sort((x, y) => hash(x.id) - hash(y.id))
    .slice(0, n)
    .map((p) => userPaperQuery(p, refs.get(p.id) as string[]));
}

const PAPERS = readFileSync(path.join(values.dir as string, "papers.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as PaperLine);
const YEAR = new Map(PAPERS.map((p) => [p.id, p.year ?? 0] as const));
/** Training queries see the train split only: every other paper is hidden (never a seed, a voter or a candidate). */
const NOT_TRAIN = PAPERS.filter((p) => p.split !== "train").map((p) => p.id);

interface Captured {
  id: string;
  /** The corpus it was captured on (--corpus, or --without-citations' copy). */
  corpus?: string;
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
  ...hybridRetriever({ ...HYBRID, laterWeight: Number(values.later), rerank: null }, "hybrid-capture"),
  // Every feature is captured, "dense" too (it reads the query's item vectors).
  readsItemVectors: true,
  async rerank(ctx, fused) {
    const rows = await hybridRerankRows(ctx, fused, MAX_DEPTH);
    captures.push({ papers: fused.slice(0, MAX_DEPTH).map((r) => ctx.graph.papers[r.paper].externalId), rows });
    return [...fused];
  },
});

async function capture(queries: UserPaperQuery[], source: FacetSource, hidden?: readonly string[], corpus = values.corpus as string): Promise<Captured[]> {
  captures = [];
  const extractor = source === "offline" ? createExtractor("offline").extractor : undefined;
  const runs = await runUserPapers(getDb(), corpus, queries, { retriever: "hybrid-capture" }, source, extractor, {
    onProgress: (d, t) => d % 100 === 0 && console.error(`  ${source}: ${d}/${t}`),
    ...(hidden ? { hidden } : {}),
  });
  // A query the pipeline answered with an error (no facets) never reached the second stage.
  let next = 0;
  return runs.map((r) => {
    const c = r.error ? { papers: [], rows: [] } : captures[next++];
    const years = c.papers.map((p) => YEAR.get(p) ?? 0);
    return { ...c, id: r.id, corpus, year: YEAR.get(r.id) ?? 0, years, gold: new Set(r.gold), goldCount: r.gold.length };
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
/** prior-tune's papers in every fold: kept out of the training queries. */
const PRIOR_TUNE = new Set(priorTuneQueries().map((q) => q.id));
// Never a prior-tune paper (with --held below --train, the papers past the held ones are both).
const trainSet = trainQueries(values.dir as string, Number(values.train)).filter((q) => inFold(q.id) && !PRIOR_TUNE.has(q.id));
/** Tuning rows: the tuning halves of set 2 (earlier work) and set 3 (later work), in both facet sources. */
/**
 * "prior-tune": earlier work for papers that have later work in the corpus (as set 1's 2017–2019
 * papers do, unlike set 2's 2019 ones): train-split papers from 2017 on with train-split
 * references, queried with every paper visible, gold their train-split references (train → train
 * citations only). Without it, tuning never sees what later work costs a query's earlier work.
 */
const TUNE_SETS = ["unseen-tune", "later-tune", "prior-tune"] as const;
function tuneQueries(set: (typeof TUNE_SETS)[number]): UserPaperQuery[] {
  const n = values.tune ? Number(values.tune) : undefined;
  if (set !== "prior-tune") return userPaperQueries(values.dir as string, set).slice(0, n);
  return priorTuneQueries().filter((q) => inFold(q.id));
}
/** prior-tune before the fold split: train papers from 2017 on past the first --held of the training order (default --train). */
function priorTuneQueries(): UserPaperQuery[] {
  const held = new Set(trainQueries(values.dir as string, Number(values.held ?? values.train)).map((q) => q.id));
  const n = values.tune ? Number(values.tune) : undefined;
  return trainQueries(values.dir as string, PAPERS.length, "cites")
    .filter((q) => (q.year ?? 0) >= 2017 && !held.has(q.id))
    .slice(0, n);
}
type TuneKey = `${(typeof TUNE_SETS)[number]}|${FacetSource}` | `${(typeof TUNE_SETS)[number]}|${FacetSource}|without-citations`;
type Capture = { train: Captured[]; tune: Partial<Record<TuneKey, Captured[]>> };
const dropped = new Set((values.drop as string).split(",").filter(Boolean));
for (const f of dropped)
  if (!(RERANK_FEATURES as readonly string[]).includes(f)) throw new Error(`--drop: no feature "${f}" (features: ${RERANK_FEATURES.join(", ")})`);
async function captureAll(): Promise<Capture> {
  if (values.from) {
    // Several dumps (the folds of a cross-fitted capture): their training queries and tuning sets joined,
    // each dump's columns re-ordered to today's from its own feature list (features removed since still read;
    // interaction columns, NEWER_OF, derived when a dump predates them).
    const revived = values.from.split(",").map((file) => {
      const dump = JSON.parse(readFileSync(file, "utf8")) as Capture & { features: string[] };
      const missing = RERANK_FEATURES.filter((f) => !dump.features.includes(f) && !(f in NEWER_OF));
      if (missing.length > 0) throw new Error(`${file} has no column for ${missing.join(", ")}: capture again without --from`);
      const byName = (r: number[]) => withNewerInteractions(Object.fromEntries(dump.features.map((f, k) => [f, r[k]])));
      const revive = (qs: Captured[]) =>
        qs.map((q) => ({ ...q, rows: q.rows.map((r) => ((named) => RERANK_FEATURES.map((f) => named[f]))(byName(r))), gold: new Set(q.gold) }));
      return { train: revive(dump.train), tune: Object.fromEntries(Object.entries(dump.tune).map(([k, qs]) => [k, revive(qs)])) as Capture["tune"] };
    });
    return revived.reduce((a, b) => {
      const tune = { ...a.tune };
      for (const [k, qs] of Object.entries(b.tune) as [TuneKey, Captured[]][]) tune[k] = [...(tune[k] ?? []), ...qs];
      return { train: [...a.train, ...b.train], tune };
    });
  }
  const bare = values["without-citations"];
  const train = [...(await capture(trainSet, "llm", NOT_TRAIN)), ...(bare ? await capture(trainSet, "llm", NOT_TRAIN, bare) : [])];
  const tune: Capture["tune"] = {};
  for (const set of TUNE_SETS) {
    if (onlyTune && !onlyTune.includes(set)) continue;
    const queries = tuneQueries(set);
    for (const source of ["llm", "offline"] as const) {
      tune[`${set}|${source}`] = await capture(queries, source);
      // prior-tune's gold is the corpus's own citations: on a corpus without them it still holds.
      if (bare) tune[`${set}|${source}|without-citations`] = await capture(queries, source, undefined, bare);
    }
  }
  return { train, tune };
}
const captured = await captureAll();
const withoutDropped = (qs: Captured[]) => qs.map((q) => ({ ...q, rows: q.rows.map((r) => r.map((v, j) => (dropped.has(RERANK_FEATURES[j]) ? 0 : v))) }));
const train = withoutDropped(values["train-on"] === "corpus" ? captured.train.filter((q) => (q.corpus ?? values.corpus) === values.corpus) : captured.train);
const tune = Object.fromEntries(Object.entries(captured.tune).map(([k, qs]) => [k, withoutDropped(qs)])) as Record<TuneKey, Captured[]>;
if (!values.from) {
  const plain = (qs: Captured[]) => qs.map((q) => ({ ...q, gold: [...q.gold] }));
  writeFileSync(
    values.dump,
    JSON.stringify({
      features: RERANK_FEATURES,
      train: plain(captured.train),
      tune: Object.fromEntries(Object.entries(captured.tune).map(([k, qs]) => [k, plain(qs)])),
    }),
  );
}
if (values["capture-only"]) {
  console.log(`wrote ${values.dump}`);
  process.exit(0);
}
console.log(`captured ${train.length} train papers and ${Object.keys(tune).length} tuning sets in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
/** The tuning score: the mean R@20 over both directions and both facet sources. */
const tuneScore = (model: RerankModel | null) => {
  const r = Object.values(tune).map((qs) => recallAt20(qs, model));
  return r.reduce((a, b) => a + b, 0) / r.length;
};
const report = (label: string, model: RerankModel | null) =>
  console.log(
    `${label} R@20: train ${recallAt20(train, model).toFixed(4)}  ${Object.entries(tune)
      .map(([k, qs]) => `${k} ${recallAt20(qs, model).toFixed(4)}`)
      .join("  ")}  mean ${tuneScore(model).toFixed(4)}`,
  );
report("fused order", null);

/** Each training query's head: its earlier and later work are both gold. */
function trainingSet(qs: readonly Captured[], depth: number) {
  return qs.map((q) => {
    const head = q.papers.slice(0, depth);
    return { rows: q.rows.slice(0, depth), labels: head.map((p) => (q.gold.has(p) ? 1 : 0)) };
  });
}

const HIDDEN = Number(values.hidden);
let best: { model: RerankModel; score: number } | null = null;
if (HIDDEN > 0) {
  // The neural stage at the deepest head only: each member takes a minute on 2 cores.
  const seeds = (values.seeds as string).split(",").map(Number);
  const model = fitRerankMlp(trainingSet(train, MAX_DEPTH), { depth: MAX_DEPTH, hidden: HIDDEN, seeds, epochs: Number(values.epochs) });
  report(`depth ${MAX_DEPTH}, ${seeds.length} × ${HIDDEN} hidden units:`, model);
  best = { model, score: tuneScore(model) };
} else
  for (const depth of [50, 100, 200].filter((d) => d <= MAX_DEPTH)) {
    for (const l2 of [1e-3, 1e-2]) {
      const model = fitRerankModel(trainingSet(train, depth), { depth, l2 });
      report(`depth ${depth} l2 ${l2}:`, model);
      const score = tuneScore(model);
      if (!best || score > best.score) best = { model, score };
    }
  }
/**
 * The balance of earlier and later work, one logit on "newer" chosen on the tuning sets: the fit's
 * training queries see later work only among train papers, and the tuning sets say what a place
 * given to later work costs a paper's earlier work (prior-tune) and buys its later work (later-tune).
 */
const fitted = (best as { model: RerankModel }).model;
const NEWER = fitted.features.indexOf("newer");
const shifted = (shift: number): RerankModel => ({
  ...fitted,
  weights: fitted.weights.map((w, j) => (j === NEWER ? w + shift * fitted.scale[j] : w)),
});
// The smallest shift within NOISE of the best mean: on 250-query tuning sets a difference that small
// is noise, and every logit moved to earlier work is taken from later work (and back).
const NOISE = 0.002;
const shifts = [0, -0.25, -0.5, -0.75, -1, -1.25, -1.5, -2, 0.25, 0.5].map((shift) => ({ shift, model: shifted(shift) }));
for (const { shift, model } of shifts.slice(1)) report(`newer ${shift > 0 ? "+" : ""}${shift} logit:`, model);
const bestMean = Math.max(...shifts.map((s) => tuneScore(s.model)));
const picked = shifts.filter((s) => tuneScore(s.model) >= bestMean - NOISE).sort((a, b) => Math.abs(a.shift) - Math.abs(b.shift))[0];
const chosen = picked.model;
console.log(`newer shift chosen: ${picked.shift} (mean ${tuneScore(chosen).toFixed(4)}; best ${bestMean.toFixed(4)})`);
console.log(`chosen depth ${chosen.depth}; standardised linear weights:`, RERANK_FEATURES.map((f, j) => `${f} ${chosen.weights[j].toFixed(3)}`).join(", "));
if (values.write) {
  const round = (xs: number[]) => xs.map((x) => Number(x.toPrecision(6)));
  // A dropped feature is left out of the written model (its weight is 0): the served second stage never computes it.
  const kept = chosen.features.map((f, j) => (dropped.has(f) ? -1 : j)).filter((j) => j >= 0);
  const pick = (xs: number[]) => round(kept.map((j) => xs[j]));
  const model = {
    ...chosen,
    features: kept.map((j) => chosen.features[j]),
    mean: pick(chosen.mean),
    scale: pick(chosen.scale),
    weights: pick(chosen.weights),
    bias: Number(chosen.bias.toPrecision(6)),
    ...(chosen.hidden ? { hidden: { weights: chosen.hidden.weights.map(pick), bias: round(chosen.hidden.bias), out: round(chosen.hidden.out) } } : {}),
  };
  const training = [
    `${values.from ? "from captured rows (see reports/related-both-directions.md for the capture commands)" : "one capture"}:`,
    `${chosen.hidden ? `pairwise (RankNet) neural ranker, ${values.seeds.split(",").length} members of ${HIDDEN} tanh units beside linear terms (lib/retrieve/rerank-mlp.ts), ${values.epochs} epochs,` : "pairwise logistic regression"} fitted on ${train.length} training queries: train-split papers of acl-citegraph${values["without-citations"] || values.from ? " (and of its copy without citations)" : ""}`,
    `queried as unseen papers with the other splits hidden (LLM facets, their records' year and authors; gold: the train papers`,
    `they cite and those citing them)${values.fold || values.from ? ", their text-encoder cosines cross-fitted (encoders trained with the query's fold held out)" : ""};`,
    `first-stage later-work weight ${values.later}${dropped.size ? `; left out: ${[...dropped].join(", ")}` : ""}; ${chosen.hidden ? "" : "depth, L2 and "}the shift on "newer" (${picked.shift} logit)`,
    `chosen on the tuning halves of sets 2 and 3 and on prior-tune (both facet sources).`,
  ].join(" ");
  const saved = { format: RERANK_FORMAT, version: RERANK_VERSION, command: `npm run train:rerank -- --train ${values.train} --write`, training, ...model };
  // Read back through the served reader's schema before anything is replaced: a model it would refuse is never written.
  parseRerankModel(saved, "the fitted model");
  const file = path.join(process.cwd(), RERANK_MODEL_FILE);
  // Formatted as Prettier would (number arrays filled to the line width): models/ is data, but a diff of it stays readable.
  writeFileAtomic(file, await format(JSON.stringify(saved), { ...(await resolveConfig(file)), filepath: file }));
  console.log(`wrote ${file}`);
}
process.exit(0);
