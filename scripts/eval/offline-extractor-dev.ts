/**
 * Dev-set experiments behind the offline extractor's settings (test papers are never read):
 *
 *   npx tsx scripts/eval/offline-extractor-dev.ts --min-count 3,20,50,100,200
 *       fits the weights on train only for each minCount (embedding labels for every facet), tunes
 *       the selection on dev as the training script does, and prints dev precision/recall per facet
 *   npx tsx scripts/eval/offline-extractor-dev.ts --exclusive
 *       the committed model's selection over train-only weights (label source per facet as
 *       committed): full extraction of dev papers with sentences shared across facets vs exclusive,
 *       scored like the evaluation, with the share of papers holding a cross-facet pair > 0.90
 *
 * Vectors come from the cache the training script fills (GRAFT_DATA_ROOT or the OS temp dir,
 * graft-offline-eval-cache); run the training script first on a fresh machine.
 */
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { readCorpus } from "@/lib/corpus/read";
import { FACETS } from "@/lib/corpus";
import { isSet } from "@/lib/config";
import { dataRoot, sharedDataDir } from "@/lib/paths";
import { embedWithCache, createEmbedder, dot } from "@/lib/embed";
import { calibrateThreshold } from "@/lib/facets/offline/calibrate";
import { composeItem, extractFacets, unitToItem } from "@/lib/facets/offline/extractor";
import { loadModel } from "@/lib/facets/offline/model";
import { splitSentences } from "@/lib/facets/offline/text";
import { DEFAULT_TRAIN, labelPaper, type LabeledPaper, type Matcher, relabel, trainWeights, tuneSelection } from "@/lib/facets/offline/train";

const { values } = parseArgs({ options: { "min-count": { type: "string" }, exclusive: { type: "boolean", default: false } } });
if (!values["min-count"] && !values.exclusive) throw new Error("give --min-count <list> and/or --exclusive");

const corpus = await readCorpus(path.join(sharedDataDir(), "acl-citegraph"));
const usable = corpus.papers.filter((p) => p.facets && p.abstract.trim());
const label = (split: string) =>
  usable.filter((p) => p.split === split).map((p) => labelPaper({ id: p.externalId, title: p.title, abstract: p.abstract, facets: p.facets ?? {} }));
const train = label("train");
const dev = label("dev");
const devRecords = usable.filter((p) => p.split === "dev");

const unitItems = new Map<LabeledPaper, string[]>([...train, ...dev].map((p) => [p, p.units.map((u) => unitToItem(u.text))]));
const composed = new Map<LabeledPaper, (string | null)[]>(
  dev.map((p) => {
    const title = p.units.find((u) => u.source === "title");
    return [p, p.units.map((u) => (title && u.source !== "title" ? composeItem(title.text, u.text) : null))];
  }),
);
const model = loadModel();
const texts = new Set<string>();
for (const [p, items] of unitItems) {
  FACETS.forEach((f) => p.facets[f].forEach((t) => texts.add(t)));
  items.forEach((t) => texts.add(t));
}
for (const list of composed.values()) for (const t of list) if (t) texts.add(t);
const devSentences = dev.map((p) => splitSentences(p.abstract));
devSentences.flat().forEach((t) => texts.add(t));
const list = [...texts];
const embedder = await createEmbedder("use-lite");
const vecs = await embedWithCache(embedder, list, {
  dir: path.join(isSet("GRAFT_DATA_ROOT") ? dataRoot() : os.tmpdir(), "graft-offline-eval-cache"),
  chunkSize: 512,
});
await embedder.close?.();
const vec = new Map(list.map((t, i) => [t, vecs[i]]));
const cos = (a: string, b: string) => dot(vec.get(a) as Float32Array, vec.get(b) as Float32Array);
const { threshold } = calibrateThreshold(
  dev.map((p, i) => ({ items: FACETS.flatMap((f) => p.facets[f]), sentences: devSentences[i] })),
  cos,
);
console.log(`dev match threshold ${threshold}`);
const match: Matcher = (g, p, j) => cos(g, (unitItems.get(p) as string[])[j]) >= threshold;
const composeMatch: Matcher = (g, p, j) => {
  const t = composed.get(p)?.[j];
  return t ? cos(g, t) >= threshold : false;
};
const lexical = [...train, ...dev].map((p) => p.labels);
relabel(train, match);
relabel(dev, match);
const embedLabels = [...train, ...dev].map((p) => p.labels);
const fmt = (s: { precision: number; recall: number }) => `${s.precision.toFixed(3)}/${s.recall.toFixed(3)}`;

for (const raw of (values["min-count"] ?? "").split(",").filter(Boolean)) {
  const weights = trainWeights(train, { ...DEFAULT_TRAIN, minCount: Number(raw) });
  const tuned = tuneSelection(dev, weights, match, "min", composeMatch);
  console.log(`minCount ${raw.padStart(4)}: ${Object.keys(weights).length} features  ${FACETS.map((f) => `${f} ${fmt(tuned.scores[f])}`).join("  ")}`);
}

if (values.exclusive) {
  // Train-only weights with the committed per-facet label sources and selection.
  const source = (model.meta.tuning as { labelSource?: Record<string, string> } | undefined)?.labelSource ?? {};
  const byLabels = (labels: boolean[][][]) => {
    train.forEach((p, i) => (p.labels = labels[i]));
    return trainWeights(train, DEFAULT_TRAIN);
  };
  const wEmbed = byLabels(embedLabels);
  const wLexical = byLabels(lexical);
  const weights: Record<string, number[]> = {};
  for (const key of new Set([...Object.keys(wEmbed), ...Object.keys(wLexical)])) {
    weights[key] = FACETS.map((f, k) => ((source[f] === "lexical" ? wLexical : wEmbed)[key] ?? [0, 0, 0, 0])[k]);
  }
  const trainOnly = { ...model, weights };
  for (const exclusive of [false, true]) {
    const out = devRecords.map((p) => extractFacets({ title: p.title, abstract: p.abstract }, trainOnly, { exclusive }));
    const missing = out.flatMap((x) => FACETS.flatMap((f) => x?.[f] ?? [])).filter((t) => !vec.has(t));
    if (missing.length) {
      const e = await createEmbedder("use-lite");
      const more = await e.embed([...new Set(missing)]);
      [...new Set(missing)].forEach((t, i) => vec.set(t, more[i]));
      await e.close?.();
    }
    const scores = FACETS.map((f) => {
      let tp = 0;
      let n = 0;
      let hit = 0;
      let g = 0;
      devRecords.forEach((p, i) => {
        const mine = out[i]?.[f] ?? [];
        const ref = p.facets?.[f] ?? [];
        n += mine.length;
        g += ref.length;
        for (const x of mine) if (ref.some((r) => cos(r, x) >= threshold)) tp++;
        for (const r of ref) if (mine.some((x) => cos(r, x) >= threshold)) hit++;
      });
      return `${f} ${fmt({ precision: n ? tp / n : 0, recall: g ? hit / g : 0 })}`;
    });
    const overlapping = out.filter((x) => {
      const all = FACETS.flatMap((f) => (x?.[f] ?? []).map((t) => ({ f, t })));
      return all.some((a, i) => all.some((b, j) => j > i && a.f !== b.f && cos(a.t, b.t) > 0.9));
    }).length;
    console.log(
      `${exclusive ? "exclusive" : "shared   "}: ${scores.join("  ")}  papers with a cross-facet pair > 0.90: ${(overlapping / out.length).toFixed(3)}`,
    );
  }
}
