/**
 * Trains the offline facet extractor's model and writes lib/facets/offline/model/model.json.
 *
 *   npx tsx scripts/train/offline-extractor.ts [--corpus <dir>] [--out <file>]
 *       [--labels best|embed|lexical] [--tune embed|lexical]
 *
 * Uses only train and dev papers of the citegraph corpus (test is kept for the evaluation):
 * weights are fitted on train, selection settings tuned on dev, then the weights are refitted
 * on train+dev with the same settings. Seeded, so a rerun writes the same file.
 *
 * embed (the default for both): labels and/or tuning use the evaluation's own
 * notion of a match, USE-lite cosine between an LLM item and the item a unit becomes, at a
 * threshold calibrated on dev (calibrate.ts). It embeds ~27k train/dev texts once (~10 min on
 * 2 cores; cached under GRAFT_DATA_ROOT or the OS temp dir, so a rerun takes seconds).
 * lexical for both needs no embedder: content-token overlap labels and tuning (label.ts).
 * --labels best (default) fits both label sources and keeps, per facet, the one that scores
 * better on dev.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { readCorpus } from "@/lib/corpus/read";
import { FACETS, type Facet } from "@/lib/corpus";
import { isSet } from "@/lib/config";
import { sharedDataDir } from "@/lib/paths";
import { dataRoot } from "@/lib/paths";
import { embedWithCache, createEmbedder, dot } from "@/lib/embed";
import { calibrateThreshold } from "@/lib/facets/offline/calibrate";
import { composeItem, unitToItem } from "@/lib/facets/offline/extractor";
import { type FacetSelection, MODEL_FORMAT, MODEL_PATH, MODEL_VERSION, type OfflineModel } from "@/lib/facets/offline/model";
import { splitSentences } from "@/lib/facets/offline/text";
import {
  DEFAULT_TRAIN,
  type LabeledPaper,
  labelPaper,
  lexicalMatcher,
  type Matcher,
  PROXY_MATCH_F1,
  type ProxyScore,
  relabel,
  trainWeights,
  tuneSelection,
} from "@/lib/facets/offline/train";

const { values } = parseArgs({
  options: {
    corpus: { type: "string" },
    out: { type: "string" },
    labels: { type: "string", default: "best" },
    tune: { type: "string", default: "embed" },
  },
});
if (!["embed", "lexical", "best"].includes(values.labels)) throw new Error(`--labels must be embed, lexical or best, got "${values.labels}"`);
if (!["embed", "lexical"].includes(values.tune)) throw new Error(`--tune must be embed or lexical, got "${values.tune}"`);
if (values.labels !== "lexical" && values.tune !== "embed") throw new Error("--labels embed/best needs --tune embed");
const corpusDir = values.corpus ?? path.join(sharedDataDir(), "acl-citegraph");
const outFile = values.out ?? MODEL_PATH;

const t0 = Date.now();
const corpus = await readCorpus(corpusDir);
const usable = corpus.papers.filter((p) => p.facets && p.abstract.trim());
const label = (split: string) =>
  usable.filter((p) => p.split === split).map((p) => labelPaper({ id: p.externalId, title: p.title, abstract: p.abstract, facets: p.facets ?? {} }));
const train = label("train");
const dev = label("dev");
// Kept before any relabelling (relabel assigns new arrays), for --labels best.
const lexicalLabels = [...train, ...dev].map((p) => p.labels);

let matcher: Matcher = lexicalMatcher;
/** Set with embedding tuning: composition is judged by the evaluation's own notion of a match. */
let composeMatcher: Matcher | undefined;
let tuning: Record<string, unknown> = { labels: "lexical", tune: "lexical", matchF1: PROXY_MATCH_F1, objective: "f1" };
if (values.labels !== "lexical" || values.tune === "embed") {
  // Every text compared: LLM items, unit items, and dev abstract sentences (calibration).
  // Train texts are needed only for embedding labels; tuning compares on dev alone.
  const compared = values.labels !== "lexical" ? [...train, ...dev] : dev;
  const unitItems = new Map<LabeledPaper, string[]>(compared.map((p) => [p, p.units.map((u) => unitToItem(u.text))]));
  const devSentences = dev.map((p) => splitSentences(p.abstract));
  // Composed items ("<title>: <unit>") of dev papers, for tuning composition (model.ts COMPOSE_FACETS).
  const composed = new Map<LabeledPaper, (string | null)[]>(
    dev.map((p) => {
      const title = p.units.find((u) => u.source === "title");
      return [p, p.units.map((u) => (title && u.source !== "title" ? composeItem(title.text, u.text) : null))];
    }),
  );
  const texts = new Set<string>();
  for (const [p, items] of unitItems) {
    FACETS.forEach((f) => p.facets[f].forEach((t) => texts.add(t)));
    items.forEach((t) => texts.add(t));
  }
  devSentences.flat().forEach((t) => texts.add(t));
  for (const list of composed.values()) for (const t of list) if (t) texts.add(t);
  const list = [...texts];
  const embedder = await createEmbedder("use-lite");
  // The cache scripts/eval/offline-extractor*.ts read too: under GRAFT_DATA_ROOT when it is set, else the OS temp dir.
  const dir = path.join(isSet("GRAFT_DATA_ROOT") ? dataRoot() : os.tmpdir(), "graft-offline-eval-cache");
  let last = 0;
  const vecs = await embedWithCache(embedder, list, {
    dir,
    chunkSize: 512,
    onProgress(done, total) {
      if (total > 0 && (done === total || Date.now() - last > 30000)) {
        last = Date.now();
        console.error(`embedding ${done}/${total} new texts`);
      }
    },
  });
  await embedder.close?.();
  const vec = new Map(list.map((t, i) => [t, vecs[i]]));
  const cos = (a: string, b: string) => dot(vec.get(a) as Float32Array, vec.get(b) as Float32Array);
  const cal = calibrateThreshold(
    dev.map((p, i) => ({ items: FACETS.flatMap((f) => p.facets[f]), sentences: devSentences[i] })),
    cos,
  );
  const embedMatcher: Matcher = (gold, p, j) => cos(gold, (unitItems.get(p) as string[])[j]) >= cal.threshold;
  composeMatcher = (gold, p, j) => {
    const t = composed.get(p)?.[j];
    return t ? cos(gold, t) >= cal.threshold : false;
  };
  if (values.labels !== "lexical") {
    relabel(train, embedMatcher);
    relabel(dev, embedMatcher);
  }
  if (values.tune === "embed") matcher = embedMatcher;
  tuning = {
    labels: values.labels,
    tune: values.tune,
    embedder: embedder.id,
    threshold: cal.threshold,
    equalErrorRate: cal.equalErrorRate,
    objective: values.tune === "embed" ? "min" : "f1",
  };
  console.log(`dev calibration: match threshold ${cal.threshold} (equal error rate ${cal.equalErrorRate.toFixed(3)})`);
}

const units = train.reduce((n, p) => n + p.units.length, 0);

/** Fits on train, tunes on dev, refits on train+dev, with the labels the papers carry now. */
function fit(): {
  devWeights: Record<string, number[]>;
  weights: Record<string, number[]>;
  selection: Record<Facet, FacetSelection>;
  scores: Record<Facet, ProxyScore>;
} {
  const positives = FACETS.map((_, k) => train.reduce((n, p) => n + p.labels.filter((l) => l[k]).length, 0));
  console.log(`train ${train.length} papers (${units} units), dev ${dev.length}; positive units per facet ${positives.join("/")}`);
  const devWeights = trainWeights(train, DEFAULT_TRAIN);
  const tuned = tuneSelection(dev, devWeights, matcher, values.tune === "embed" ? "min" : "f1", composeMatcher);
  for (const f of FACETS) {
    const s = tuned.scores[f];
    console.log(`  dev ${f.padEnd(13)} ${JSON.stringify(tuned.selection[f])}  P ${s.precision.toFixed(3)} R ${s.recall.toFixed(3)}`);
  }
  return { devWeights, weights: trainWeights([...train, ...dev], DEFAULT_TRAIN), ...tuned };
}

let result = fit(); // labels as set above (embedding labels unless --labels lexical)
const labelSource = FACETS.map(() => (values.labels === "best" ? "embed" : values.labels));
if (values.labels === "best") {
  // Per facet, keep whichever label source tunes better on dev: the facets are independent
  // logistic regressions over shared features, so their weight columns can be combined.
  console.log("lexical labels:");
  [...train, ...dev].forEach((p, i) => (p.labels = lexicalLabels[i]));
  const lex = fit();
  const value = (s: ProxyScore) => Math.min(s.precision, s.recall);
  FACETS.forEach((f, k) => {
    if (value(lex.scores[f]) > value(result.scores[f])) labelSource[k] = "lexical";
  });
  const combine = (a: Record<string, number[]>, b: Record<string, number[]>) => {
    const out: Record<string, number[]> = {};
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const row = FACETS.map((_, k) => ((labelSource[k] === "lexical" ? b : a)[key] ?? [0, 0, 0, 0])[k]);
      if (row.some((x) => x !== 0)) out[key] = row;
    }
    return out;
  };
  // Selection mixes facets' probabilities, so it is re-tuned on the combined dev-time model.
  const devWeights = combine(result.devWeights, lex.devWeights);
  const tuned = tuneSelection(dev, devWeights, matcher, "min", composeMatcher);
  result = { devWeights, weights: combine(result.weights, lex.weights), ...tuned };
  console.log(`label source per facet: ${FACETS.map((f, k) => `${f} ${labelSource[k]}`).join(", ")}; combined:`);
  for (const f of FACETS) {
    const sc = tuned.scores[f];
    console.log(`  dev ${f.padEnd(13)} ${JSON.stringify(tuned.selection[f])}  P ${sc.precision.toFixed(3)} R ${sc.recall.toFixed(3)}`);
  }
}
const { weights, selection, scores } = result;

const model: OfflineModel = {
  format: MODEL_FORMAT,
  version: MODEL_VERSION,
  facets: [...FACETS],
  weights,
  selection,
  meta: {
    id: `logreg-${values.labels}-${values.tune}-m${DEFAULT_TRAIN.minCount}-s${DEFAULT_TRAIN.seed}`,
    corpus: path.basename(corpusDir),
    trainPapers: train.length,
    devPapers: dev.length,
    features: Object.keys(weights).length,
    train: DEFAULT_TRAIN,
    tuning: { ...tuning, labelSource: Object.fromEntries(FACETS.map((f, k) => [f, labelSource[k]])) },
    devScores: scores,
  },
};
mkdirSync(path.dirname(outFile), { recursive: true });
const json = `${JSON.stringify(model)}\n`;
writeFileSync(outFile, json);
console.log(`wrote ${outFile}: ${Object.keys(weights).length} features, ${(json.length / 1024).toFixed(0)} KiB, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
