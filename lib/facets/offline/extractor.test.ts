import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { readCorpus } from "@/lib/corpus/read";
import { FACETS } from "@/lib/corpus";
import { sharedDataDir } from "@/lib/paths";
import { composeItem, createOfflineExtractor, extractFacets } from "./extractor";
import { overlap } from "./label";
import { composeUnit, loadModel, MODEL_PATH, type OfflineModel, scoreUnit, selectUnits, TITLE_FACETS } from "./model";
import { rng } from "./train";
import { splitSentences } from "./text";
import { paperUnits } from "./units";

const CORPUS = path.join(sharedDataDir(), "acl-citegraph");
const haveCorpus = existsSync(path.join(CORPUS, "papers.jsonl"));

const ABSTRACT =
  "Word embeddings are increasingly used for the automatic detection of semantic change; yet, a robust evaluation and " +
  "systematic comparison of the choices involved has been lacking. We propose a new evaluation framework for semantic " +
  "change detection and find that using the whole time series is preferable over only comparing between the first and " +
  "last time points. We also present an analysis of the changes detected on a large Twitter dataset spanning 5.5 years.";

test("the committed model loads, is small, and scores deterministically", () => {
  assert.ok(statSync(MODEL_PATH).size < 2 * 1024 * 1024, "model file must stay under 2 MB");
  const model = loadModel();
  assert.deepEqual(model.facets, [...FACETS]);
  for (const f of FACETS) {
    assert.ok(model.selection[f].maxItems >= 1 && model.selection[f].maxItems <= 5);
  }
  const units = paperUnits({ title: "T", abstract: ABSTRACT });
  const a = units.map((u) => scoreUnit(model, u));
  const b = units.map((u) => scoreUnit(loadModel(MODEL_PATH), u));
  assert.deepEqual(a, b);
  for (const row of a) for (const p of row) assert.ok(p >= 0 && p < 1);
  // The title (unit 0) competes for contributions only.
  assert.equal(units[0].source, "title");
  FACETS.forEach((f, k) => assert.equal(a[0][k] > 0, TITLE_FACETS.includes(f), f));
  assert.deepEqual(extractFacets({ title: "T", abstract: ABSTRACT }), extractFacets({ title: "T", abstract: ABSTRACT }));
});

test("selectUnits takes the best above threshold, capped, or the single best", () => {
  assert.deepEqual(selectUnits([0.2, 0.9, 0.6, 0.7], { threshold: 0.5, maxItems: 2 }), [1, 3]);
  assert.deepEqual(selectUnits([0.2, 0.1], { threshold: 0.5, maxItems: 3 }), [0]);
});

test("extract returns four non-empty facets of at most 5 items, within the audit's bounds", async () => {
  const ex = createOfflineExtractor();
  assert.equal(ex.id, "offline");
  const r = await ex.extract({ title: "Evaluating semantic change detection", abstract: ABSTRACT });
  assert.ok(r.ok);
  for (const f of FACETS) {
    assert.ok(r.facets[f].length >= 1 && r.facets[f].length <= 5, `${f}: ${r.facets[f].length} items`);
    for (const item of r.facets[f]) assert.ok(item.length >= 10 && item.length <= 500, item);
    assert.equal(new Set(r.facets[f]).size, r.facets[f].length, "no duplicates within a facet");
  }
  // Openers are rewritten away.
  assert.ok(
    Object.values(r.facets)
      .flat()
      .every((s) => !/^we (propose|present)\b/i.test(s)),
  );
});

test("extract handles empty input and abort", async () => {
  const ex = createOfflineExtractor();
  const empty = await ex.extract({ title: "", abstract: "" });
  assert.equal(empty.ok, false);
  const titleOnly = await ex.extract({ title: "A neural parser for Hindi-English code-mixed text", abstract: "" });
  assert.ok(titleOnly.ok);
  const ac = new AbortController();
  ac.abort(new Error("stop"));
  await assert.rejects(ex.extract({ title: "T", abstract: ABSTRACT }, { signal: ac.signal }), /stop/);
});

test("body text supplements a missing or short abstract only", () => {
  const body =
    "Neural taggers degrade badly on noisy social media text.\n\nWe propose a character-level tagger trained on 2M tweets. " +
    "Our tagger reduces the error rate by 40% on three benchmarks.";
  const noAbstract = extractFacets({ title: "Tagging tweets", abstract: "", body });
  assert.ok(noAbstract);
  const all = Object.values(noAbstract).flat().join(" ");
  assert.match(all, /40%/);
  assert.deepEqual(paperUnits({ title: "T", abstract: ABSTRACT, body }), paperUnits({ title: "T", abstract: ABSTRACT }));
  assert.ok(paperUnits({ title: "T", abstract: "Short.", body }).some((u) => u.source === "body"));
});

test("on test papers, problems items overlap the LLM problems more than a random sentence", { skip: !haveCorpus }, async () => {
  const corpus = await readCorpus(CORPUS);
  const test50 = corpus.papers.filter((p) => p.split === "test" && p.facets?.problems?.length).slice(0, 50);
  assert.equal(test50.length, 50);
  const ex = createOfflineExtractor();
  const rand = rng(3);
  let ours = 0;
  let chance = 0;
  for (const p of test50) {
    const gold = p.facets?.problems ?? [];
    const r = await ex.extract({ title: p.title, abstract: p.abstract });
    assert.ok(r.ok);
    const best = (cands: string[]) => Math.max(...gold.flatMap((g) => cands.map((c) => overlap(g, c).f1)));
    ours += best(r.facets.problems);
    const sents = splitSentences(p.abstract);
    chance += best([sents[Math.floor(rand() * sents.length)]]);
  }
  assert.ok(ours > chance * 1.2, `offline ${(ours / 50).toFixed(3)} vs random sentence ${(chance / 50).toFixed(3)}`);
});

test("composeItem: title, colon, the unit as an item; names and acronyms keep their case; 500-character cap", () => {
  assert.equal(composeItem("Tagging Tweets", "We propose a character-level tagger."), "Tagging Tweets: a character-level tagger.");
  assert.equal(composeItem("Tagging Tweets.", "BERT taggers are robust."), "Tagging Tweets: BERT taggers are robust.");
  assert.equal(composeItem("LaSyn", "LaSyn models latent syntax."), "LaSyn: LaSyn models latent syntax.");
  const long = composeItem("A title", `We propose ${"a very long method description ".repeat(30)}`);
  assert.ok(long.length <= 500 && long.endsWith("…"));
});

test("composeUnit picks the best non-title unit, or none without a title", () => {
  const units = paperUnits({ title: "A parser for Hindi", abstract: "Hindi lacks treebanks. We build one." });
  assert.equal(composeUnit(units, [0.9, 0.2, 0.5]), 2, "the title's own score does not count");
  assert.equal(composeUnit(units.slice(1), [0.2, 0.5]), null);
});

test("a compose selection yields one item: the title joined with the best unit", () => {
  const base = loadModel();
  const model: OfflineModel = { ...base, selection: { ...base.selection, contributions: { threshold: 0, maxItems: 1, compose: true } } };
  const facets = extractFacets({ title: "Evaluating semantic change detection", abstract: ABSTRACT }, model);
  assert.ok(facets);
  assert.equal(facets.contributions.length, 1);
  assert.match(facets.contributions[0], /^Evaluating semantic change detection: /);
  // Without a usable title the facet falls back to ordinary selection.
  const untitled = extractFacets({ title: "", abstract: ABSTRACT }, model);
  assert.ok(untitled && untitled.contributions.every((i) => !i.includes(": ")));
});

test("by default a sentence is an item of one facet only; exclusive: false shares it", () => {
  const base = loadModel();
  const all = { threshold: 0, maxItems: 5 };
  const model: OfflineModel = { ...base, selection: { problems: all, methods: all, results: all, contributions: all } };
  const paper = { title: "Evaluating semantic change detection", abstract: ABSTRACT };
  const shared = extractFacets(paper, model, { exclusive: false });
  const exclusive = extractFacets(paper, model);
  assert.ok(shared && exclusive);
  const count = (f: Record<string, string[]>) => Object.values(f).flat().length;
  const distinct = (f: Record<string, string[]>) => new Set(Object.values(f).flat()).size;
  assert.ok(count(shared) > distinct(shared), "with sharing, sentences repeat across facets");
  for (const f of FACETS) assert.ok(exclusive[f].length >= 1, `${f} keeps an item`);
  // Each sentence now sits in one facet, except where a facet had to keep its only one.
  assert.ok(count(exclusive) < count(shared));
  assert.ok(count(exclusive) - distinct(exclusive) <= FACETS.length);
});
