import assert from "node:assert/strict";
import { test } from "node:test";
import { FACETS, type Facet } from "@/lib/corpus";
import { charLength, groundingScores, paperPassages, paragraphSpans, redundancyFlags, sentenceCount, specificityScore, structuralChecks } from "./checks";
import { boilerplateMatches, isMetaDescription, specificTokens } from "./patterns";

const facets = (over: Partial<Record<Facet, string[]>> = {}): Record<Facet, string[]> => ({
  problems: ["Parsing Hindi is hard without treebanks."],
  methods: ["A transition parser with BERT features."],
  results: ["LAS improves by 2.1 points."],
  contributions: ["A new Hindi treebank of 5,000 sentences."],
  ...over,
});

/** A unit vector at angle acos(c) from [1, 0, 0] in the x-y plane. */
const at = (c: number) => Float32Array.from([c, Math.sqrt(1 - c * c), 0]);
const e1 = Float32Array.from([1, 0, 0]);
const e2 = Float32Array.from([0, 1, 0]);
const e3 = Float32Array.from([0, 0, 1]);

test("structural: a clean paper has no flags", () => {
  const r = structuralChecks(facets());
  assert.equal(r.ok, true);
  assert.equal(r.metaPaper, false);
  for (const f of FACETS) {
    assert.deepEqual(r.facets[f], []);
    assert.deepEqual(r.items[f], [[]]);
  }
});

test("structural: lengths, sentences, empties and exact duplicates", () => {
  const long = `${"word ".repeat(100)}end.`; // 504 characters
  const r = structuralChecks(
    facets({
      problems: ["", "Too short", long],
      methods: ["One. Two. Three. Four sentences here.", "One sentence, e.g. with 3.5 points. Two."],
      results: ["Same result item.", "Same result item.", "  Same result item.  "],
    }),
  );
  assert.deepEqual(r.items.problems, [["empty"], ["too-short"], ["too-long"]]);
  assert.deepEqual(r.items.methods, [["too-many-sentences"], []]);
  assert.deepEqual(r.items.results, [[], ["duplicate"], ["duplicate"]], "exact after trimming; the first occurrence is not a duplicate");
  assert.equal(r.ok, false);
});

test("structural: facet-level flags reach every item of the facet; empty facets", () => {
  const six = Array.from({ length: 6 }, (_, i) => `Method number ${i} of the paper.`);
  const r = structuralChecks(facets({ methods: six, results: [] }));
  assert.deepEqual(r.facets.methods, ["too-many-items"]);
  assert.ok(r.items.methods.every((f) => f.includes("facet-too-many-items")));
  assert.deepEqual(r.facets.results, ["empty-facet"]);
  assert.equal(r.ok, false);
  assert.equal(structuralChecks(facets({ methods: six.slice(0, 5) })).ok, true, "5 items is within the limit");
});

test("structural: meta-descriptions, fully meta facets, and papers over half meta", () => {
  const r = structuralChecks(
    facets({
      problems: ["The paper addresses parsing of Hindi.", "Parsing needs treebanks."],
      contributions: ["The authors release a treebank.", "In this paper, a treebank is built."],
    }),
  );
  assert.deepEqual(r.items.problems, [["meta"], []]);
  assert.deepEqual(r.facets.contributions, ["meta-facet"]);
  assert.deepEqual(r.items.contributions, [
    ["meta", "facet-meta"],
    ["meta", "facet-meta"],
  ]);
  assert.equal(r.metaPaper, false, "3 of 6 items is not more than half");
  assert.equal(r.ok, false, "a fully meta facet is an issue");

  const meta = structuralChecks(facets({ problems: ["The paper studies X."], methods: ["We propose Y."], results: ["The authors find Z."] }));
  assert.equal(meta.metaPaper, true, "3 of 4 items");
  assert.ok(meta.items.contributions[0].includes("paper-meta"), "copied onto every item");
});

test("meta-description patterns: five openers, content-first items pass", () => {
  for (const s of [
    "The paper addresses low-resource MT.",
    "This work proposes a parser.",
    "The authors evaluate on WMT.",
    "In this study, BERT is probed.",
    "We propose a new loss.",
    "Here, we show that X holds.",
    "It is shown that beam search fails.",
  ])
    assert.equal(isMetaDescription(s), true, s);
  for (const s of ["A parser for Hindi.", "Papers with code are rare.", "Authorship attribution with CNNs.", "Weak supervision for NER."])
    assert.equal(isMetaDescription(s), false, s);
});

test("specific tokens: numbers, acronyms, proper nouns (not sentence-initial), technical hyphenations", () => {
  assert.deepEqual(specificTokens("Fine-tuning BERT on SQuAD gives 3.2 F1 and 90% recall."), ["Fine-tuning", "BERT", "SQuAD", "3.2", "F1", "90%"]);
  assert.deepEqual(specificTokens("Results improve. Models of English and GPT-3 help."), ["English", "GPT-3"], "'Results' and 'Models' open sentences");
  assert.deepEqual(specificTokens("a state-of-the-art real-world system"), [], "boilerplate hyphenations are not technical terms");
});

test("specificity: the paper's weights, caps and clamp", () => {
  const meta = specificityScore("The paper proposes a novel approach.");
  assert.deepEqual([meta.meta, meta.boilerplate, meta.specificTokens], [true, 1, 0]);
  assert.equal(meta.genericness, 0.5);
  assert.equal(meta.specificity, 0.5);
  const two = specificityScore("Extensive experiments show state-of-the-art results.");
  assert.equal(two.boilerplate, 2);
  assert.equal(two.specificity, 0.6);
  const capped = specificityScore("Extensive experiments show state-of-the-art results, significantly improving over existing methods with promising results.");
  assert.ok(capped.boilerplate >= 3);
  assert.equal(capped.genericness, 0.5, "boilerplate capped at 0.5");
  const credited = specificityScore("Extensive experiments on WMT14 and IWSLT show state-of-the-art BLEU.");
  assert.equal(credited.specificTokens, 3);
  assert.equal(credited.specificity, Math.round((1 - (0.4 - 0.18)) * 10_000) / 10_000);
  const specific = specificityScore("BERT improves F1 by 3.2 points on SQuAD.");
  assert.equal(specific.specificity, 1, "negative genericness is clamped");
  assert.ok(specific.genericness < 0);
  const many = specificityScore("A B1 C2 D3 E4 F5 G6 H7 I8 the paper.");
  assert.equal(many.genericness, -0.3, "specific-token credit capped at 0.3");
  assert.equal(boilerplateMatches("state of the art and a wide range of tasks"), 2);
});

test("charLength counts code points; sentenceCount follows the sentence splitter", () => {
  assert.equal(charLength("  héllo 😀  "), 7);
  assert.equal(sentenceCount("We use e.g. BERT. It gets 3.5 points! Done"), 3);
  assert.equal(sentenceCount(""), 0);
});

test("passages: title and abstract sentences with offsets into the raw text", () => {
  const abstract = "  Parsing  is hard.\nWe build a\n treebank (e.g. 5k sentences). Accuracy rises by 2.1 points.\n\nA second paragraph. ";
  const ps = paperPassages({ title: " Hindi Parsing ", abstract });
  assert.deepEqual(
    ps.map((p) => [p.source, p.text]),
    [
      ["title", "Hindi Parsing"],
      ["abstract", "Parsing is hard."],
      ["abstract", "We build a treebank (e.g. 5k sentences)."],
      ["abstract", "Accuracy rises by 2.1 points."],
      ["abstract", "A second paragraph."],
    ],
  );
  for (const p of ps.slice(1)) assert.equal(abstract.slice(p.start, p.end).replace(/\s+/g, " "), p.text);
  assert.equal(" Hindi Parsing ".slice(ps[0].start, ps[0].end), "Hindi Parsing");
  const full = "Intro para one.\n\n  Method para two.  \n\n\n";
  const withBody = paperPassages({ title: "T", abstract: "", fullText: full });
  assert.deepEqual(
    withBody.map((p) => [p.source, p.source === "title" ? p.text : full.slice(p.start, p.end)]),
    [
      ["title", "T"],
      ["fullText", "Intro para one."],
      ["fullText", "Method para two."],
    ],
  );
  assert.deepEqual(paragraphSpans("\n\n"), []);
});

test("grounding: max cosine, top-3 evidence best first, ties by position, no passages → null", () => {
  const passages = ["t", "a", "b", "c"].map((text, i) => ({ source: "abstract" as const, start: i * 10, end: i * 10 + 5, text }));
  const vectors = [e2, at(0.8), at(0.95), at(0.8)];
  const [g] = groundingScores([e1], passages, vectors);
  assert.equal(g.grounding, 0.95);
  assert.deepEqual(
    g.evidence.map((e) => [e.text, e.score, e.start, e.end]),
    [
      ["b", 0.95, 20, 25],
      ["a", 0.8, 10, 15],
      ["c", 0.8, 30, 35],
    ],
  );
  assert.deepEqual(groundingScores([e1], [], []), [{ grounding: null, evidence: [] }]);
  assert.throws(() => groundingScores([e1], passages, [e1]), /4 passages but 1 vectors/);
});

test("redundancy: intra-facet above 0.92, cross-facet above 0.90; both items of a pair flagged", () => {
  const s = Math.sqrt(1 - 0.91 ** 2);
  const items = [
    { facet: "methods" as const, index: 0, vector: e1 },
    { facet: "methods" as const, index: 1, vector: at(0.93) },
    { facet: "results" as const, index: 0, vector: e3 },
    { facet: "contributions" as const, index: 0, vector: Float32Array.from([0, s, 0.91]) },
    { facet: "problems" as const, index: 0, vector: Float32Array.from([0, -1, 0]) },
  ];
  const r = redundancyFlags(items);
  assert.deepEqual(
    r.pairs.map((p) => [p.a.facet, p.a.index, p.b.facet, p.b.index, p.kind]),
    [
      ["methods", 0, "methods", 1, "near-duplicate"],
      ["results", 0, "contributions", 0, "cross-facet-overlap"],
    ],
  );
  assert.deepEqual(r.flags, [["near-duplicate"], ["near-duplicate"], ["cross-facet-overlap"], ["cross-facet-overlap"], []]);
  // Between the two thresholds: an overlap across facets, not a near-duplicate within one.
  assert.deepEqual(
    redundancyFlags([
      { facet: "methods", index: 0, vector: e1 },
      { facet: "methods", index: 1, vector: at(0.915) },
    ]).pairs,
    [],
  );
  assert.deepEqual(
    redundancyFlags([
      { facet: "methods", index: 0, vector: e1 },
      { facet: "results", index: 0, vector: at(0.915) },
    ]).pairs.map((p) => p.kind),
    ["cross-facet-overlap"],
  );
  assert.deepEqual(
    redundancyFlags([
      { facet: "methods", index: 0, vector: e1 },
      { facet: "results", index: 0, vector: at(0.895) },
    ]).pairs,
    [],
  );
  void e2;
});
