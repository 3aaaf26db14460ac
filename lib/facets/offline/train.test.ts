import assert from "node:assert/strict";
import { test } from "node:test";
import { labelUnits, overlap } from "./label";
import { scoreFeatures } from "./model";
import { DEFAULT_TRAIN, labelPaper, proxyScore, relabel, trainWeights, tuneSelection } from "./train";

const papers = [
  {
    id: "a",
    title: "A parser for Hindi",
    abstract: "Hindi lacks treebanks for parsing. We propose a transition-based parser for Hindi. It improves accuracy by 3 points.",
    facets: {
      problems: ["Hindi lacks treebanks for parsing."],
      methods: ["A transition-based parser for Hindi."],
      results: ["Accuracy improves by 3 points."],
      contributions: ["A Hindi parser."],
    },
  },
  {
    id: "b",
    title: "Tagging tweets",
    abstract: "Tweets are noisy for taggers. We propose a character-level tagger for tweets. It reduces errors by 20%.",
    facets: {
      problems: ["Tweets are noisy for taggers."],
      methods: ["A character-level tagger for tweets."],
      results: ["Errors are reduced by 20%."],
      contributions: ["A tweet tagger."],
    },
  },
];

test("lexical labels mark the source sentence of each item", () => {
  assert.ok(overlap("Hindi lacks treebanks", "Hindi lacks treebanks for parsing.").recall === 1);
  assert.deepEqual(labelUnits(["A transition-based parser for Hindi."], ["Hindi lacks treebanks.", "We propose a transition-based parser for Hindi."]), [
    false,
    true,
  ]);
  const p = labelPaper(papers[0]);
  // Units: title, then three sentences; the problem item comes from sentence 1 (unit 1).
  assert.equal(p.units[0].source, "title");
  assert.equal(p.labels[1][0], true);
  assert.equal(p.labels[2][1], true);
});

test("training is seeded and deterministic, and learns the toy roles", () => {
  const labeled = papers.map(labelPaper);
  const opts = { ...DEFAULT_TRAIN, minCount: 1, epochs: 30 };
  const w1 = trainWeights(labeled, opts);
  const w2 = trainWeights(papers.map(labelPaper), opts);
  assert.deepEqual(w1, w2);
  // The "we propose" sentence scores higher for methods than the problem sentence does.
  const p = labeled[0];
  const methods = (j: number) => scoreFeatures(w1, p.feats[j])[1];
  assert.ok(methods(2) > methods(1));
  const { selection } = tuneSelection(labeled, w1);
  assert.ok(selection.methods.maxItems >= 1);
});

test("relabel uses the given matcher", () => {
  const labeled = papers.map(labelPaper);
  relabel(labeled, () => false);
  assert.ok(labeled.every((p) => p.labels.every((row) => row.every((x) => !x))));
});

test("tuning tries composition for contributions only when a compose matcher is given", () => {
  const labeled = papers.map(labelPaper);
  const w = trainWeights(labeled, { ...DEFAULT_TRAIN, minCount: 1, epochs: 30 });
  const never = tuneSelection(
    labeled,
    w,
    () => false,
    "min",
    () => false,
  );
  assert.equal(never.selection.contributions.compose, undefined, "a composition that never matches is not chosen");
  const always = tuneSelection(
    labeled,
    w,
    () => false,
    "min",
    () => true,
  );
  assert.equal(always.selection.contributions.compose, true);
  assert.deepEqual([always.scores.contributions.precision, always.scores.contributions.recall], [1, 1]);
  assert.equal(always.selection.methods.compose, undefined, "methods never compose");
  const probs = labeled.map((p) => p.feats.map((fs) => scoreFeatures(w, fs)));
  assert.throws(() => proxyScore(labeled, probs, 3, { threshold: 0, maxItems: 1, compose: true }), /needs composeMatch/);
});
