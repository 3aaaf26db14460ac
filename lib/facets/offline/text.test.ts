import assert from "node:assert/strict";
import { test } from "node:test";
import { isMetaDescription } from "../audit/patterns";
import { extractorTokens } from "@/lib/text";
import { finishItem, sentenceSpans, splitList, splitSentences, stripOpener } from "./text";

test("splitSentences keeps abbreviations, initials and decimals inside sentences", () => {
  const text =
    "Prior work (e.g. Smith et al. 2019) uses i.e. rules. We reach 93.5 F1 on 2.1 M tokens vs. 91.2 before! " +
    "Is it robust? J. Smith agrees. Results are in Fig. 3 and Sec. 4.";
  assert.deepEqual(splitSentences(text), [
    "Prior work (e.g. Smith et al. 2019) uses i.e. rules.",
    "We reach 93.5 F1 on 2.1 M tokens vs. 91.2 before!",
    "Is it robust?",
    "J. Smith agrees.",
    "Results are in Fig. 3 and Sec. 4.",
  ]);
});

test("a lone capital before a sentence opener ends the sentence; before a name it is an initial", () => {
  assert.deepEqual(splitSentences("We rank 3rd in subtask B. We then add features. Work by J. Smith helps."), [
    "We rank 3rd in subtask B.",
    "We then add features.",
    "Work by J. Smith helps.",
  ]);
  const text = "Data for task A. The model of R. Walker is used.";
  assert.deepEqual(
    sentenceSpans(text).map((s) => text.slice(s.start, s.end)),
    ["Data for task A.", "The model of R. Walker is used."],
  );
});

test("splitSentences splits at paragraph breaks and ignores empty input", () => {
  assert.deepEqual(splitSentences("First part without period\n\nSecond part."), ["First part without period", "Second part."]);
  assert.deepEqual(splitSentences("  \n "), []);
  assert.deepEqual(splitSentences('He said "Stop." Then left.'), ['He said "Stop."', "Then left."]);
});

test("stripOpener removes content-free openers and capitalises", () => {
  assert.equal(stripOpener("In this paper, we propose a novel parser for Hindi."), "A novel parser for Hindi.");
  assert.equal(stripOpener("This paper presents a corpus of 10k annotated tweets."), "A corpus of 10k annotated tweets.");
  assert.equal(stripOpener("Experimental results show that our model outperforms BERT."), "Our model outperforms BERT.");
  assert.equal(stripOpener("However, annotated data for low-resource languages is scarce."), "Annotated data for low-resource languages is scarce.");
  assert.equal(stripOpener("Here, we first introduce a benchmark for entity linking."), "A benchmark for entity linking.");
  assert.equal(stripOpener("In the paper we presented a new Russian wordnet, RuWordNet."), "A new Russian wordnet, RuWordNet.");
  assert.equal(stripOpener("Here we present a language-agnostic framework for MA&D."), "A language-agnostic framework for MA&D.");
  assert.equal(stripOpener("It is argued that the prototype could serve a practical system."), "The prototype could serve a practical system.");
  // Nothing to strip: unchanged.
  assert.equal(stripOpener("Neural models need large training sets."), "Neural models need large training sets.");
  // Never reduced to a fragment.
  assert.equal(stripOpener("We propose X."), "We propose X.");
});

test("splitList splits long parallel clauses but keeps short lists together", () => {
  assert.deepEqual(splitList("We build a large multilingual corpus of news; we train a strong baseline parser on it"), [
    "We build a large multilingual corpus of news",
    "We train a strong baseline parser on it",
  ]);
  assert.deepEqual(splitList("We evaluate on English, German and French."), ["We evaluate on English, German and French."]);
  assert.deepEqual(splitList("A; B"), ["A, B"]);
  assert.deepEqual(splitList("We collect dialogues from three online forums, and we show that models trained on them transfer well"), [
    "We collect dialogues from three online forums",
    "We show that models trained on them transfer well",
  ]);
});

test("finishItem, extractorTokens and meta-description detection", () => {
  assert.equal(finishItem("  a parser for Hindi;"), "A parser for Hindi.");
  assert.equal(finishItem("Done?"), "Done?");
  assert.deepEqual(extractorTokens("BERT-based models' F1 = 93.5"), ["bert-based", "models", "f1", "93", "5"]);
  assert.equal(isMetaDescription("The authors propose a parser."), true);
  assert.equal(isMetaDescription("A parser for Hindi."), false);
});
