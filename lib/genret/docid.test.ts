import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DOCID_MAX_TOKENS, buildDocIdIndex, docIdStatistics, docIdTokens, leadingTokens, normalizeFacetItem, type DocIdSource } from "./docid";
import { decodeTokens, encodeDocIdTokens } from "@/lib/text";

describe("normalizeFacetItem (paper, Appendix: Document Identifier Construction)", () => {
  test("leading bullet markers are stripped", () => {
    assert.equal(normalizeFacetItem("- Neural parsing"), "neural parsing");
    assert.equal(normalizeFacetItem("* Neural parsing"), "neural parsing");
    assert.equal(normalizeFacetItem("• Neural parsing"), "neural parsing");
    assert.equal(normalizeFacetItem("•Neural parsing"), "neural parsing");
    assert.equal(normalizeFacetItem("◦ ‣ Neural parsing"), "neural parsing");
    assert.equal(normalizeFacetItem("  -\tNeural parsing"), "neural parsing");
  });

  test("ASCII '-' and '*' are markers only before whitespace, so content stays", () => {
    assert.equal(normalizeFacetItem("-0.4 BLEU on WMT"), "-0.4 bleu on wmt");
    assert.equal(normalizeFacetItem("*SEM shared task"), "*sem shared task");
    assert.equal(normalizeFacetItem("+1 BLEU over baselines"), "+1 bleu over baselines");
  });

  test("numbered prefixes are not bullet markers and stay", () => {
    assert.equal(normalizeFacetItem("1. A parser"), "1. a parser");
    assert.equal(normalizeFacetItem("(a) A parser"), "(a) a parser");
  });

  test("leading quotation characters are stripped, closing ones kept", () => {
    assert.equal(normalizeFacetItem('"Divide and conquer" fusion'), 'divide and conquer" fusion');
    assert.equal(normalizeFacetItem("'Routing' works"), "routing' works");
    assert.equal(normalizeFacetItem("“Curly” quotes"), "curly” quotes");
    assert.equal(normalizeFacetItem("‘single’ and «guillemets»"), "single’ and «guillemets»");
  });

  test("markers and quotes combine in any order", () => {
    assert.equal(normalizeFacetItem('- "Quoted bullet"'), 'quoted bullet"');
    assert.equal(normalizeFacetItem('"- not a bullet after a quote? yes, still leading'), "not a bullet after a quote? yes, still leading");
  });

  test("surrounding whitespace is removed, text lowercased", () => {
    assert.equal(normalizeFacetItem("  \tBERT Fine-Tuning \u00a0 "), "bert fine-tuning");
  });

  test("lines are normalised separately, empty lines dropped, joined with one space", () => {
    assert.equal(normalizeFacetItem("First line\n\n- Second line\n   \n• Third"), "first line second line third");
    assert.equal(normalizeFacetItem("A\r\nB\rC"), "a b c");
    assert.equal(normalizeFacetItem("Only\n-\n*"), "only");
    assert.equal(normalizeFacetItem("\n \n- \n"), "");
    assert.equal(normalizeFacetItem(""), "");
  });

  test("nothing further: interior whitespace, punctuation and Unicode forms are kept", () => {
    assert.equal(normalizeFacetItem("Two  spaces\tand a tab."), "two  spaces\tand a tab.");
    assert.equal(normalizeFacetItem("Ends with punctuation!?"), "ends with punctuation!?");
    // Precomposed é (U+00E9) and e + combining acute (U+0301) stay distinct.
    assert.notEqual(normalizeFacetItem("Caf\u00e9"), normalizeFacetItem("Cafe\u0301"));
    assert.equal(normalizeFacetItem("\ufb01ne-grained"), "\ufb01ne-grained");
  });
});

describe("docIdTokens", () => {
  const item =
    "Lack of systematic, comparable evaluation of post-hoc explainability techniques: existing " +
    "studies focus on narrow setups (single method, task, or architecture).";

  test("keeps the first 12 tokens of the normalised item", () => {
    const full = encodeDocIdTokens(normalizeFacetItem(item));
    const ids = docIdTokens(item);
    assert.equal(DOCID_MAX_TOKENS, 12);
    assert.ok(full.length > 12);
    assert.deepEqual(ids, full.slice(0, 12));
    // The paper's Table of example identifiers gives exactly this one for this item.
    assert.equal(decodeTokens(ids), "lack of systematic, comparable evaluation of post-hoc explainability");
  });

  test("the paper's other example identifiers", () => {
    assert.equal(
      decodeTokens(
        docIdTokens(
          "A comprehensive, practical suite of diagnostic properties for explainability methods " +
            "together with explicit, automated measures (MAP, AUC-TP, SD+LR MAE, Spearman correlations).",
        ),
      ),
      "a comprehensive, practical suite of diagnostic properties for explainability methods",
    );
    // The paper's Table shows one more word ("datasets", "correlations") for these two: it
    // matches tokenising with a leading space, where " empirically" / " rationale" take fewer
    // tokens. Standalone tokenisation (what follows the chat template's "\n\n") splits the
    // first word further, so the 12 tokens end one word earlier.
    assert.equal(
      decodeTokens(docIdTokens("Empirically test these diagnostic measures across three text-classification datasets (e-SNLI, TSE, IMDB).")),
      "empirically test these diagnostic measures across three text-classification",
    );
    assert.equal(
      decodeTokens(docIdTokens("Rationale and dataset consistency measures show low-to-moderate correlations overall.")),
      "rationale and dataset consistency measures show low-to-moderate",
    );
  });

  test("short items are not padded; maxTokens is honoured", () => {
    assert.deepEqual(docIdTokens("- BERT"), encodeDocIdTokens("bert"));
    assert.equal(docIdTokens(item, 3).length, 3);
    assert.deepEqual(docIdTokens(item, 3), docIdTokens(item).slice(0, 3));
    assert.throws(() => docIdTokens(item, 0), RangeError);
  });

  test("items differing only after 12 tokens share an identifier", () => {
    const a = docIdTokens(item + " Extra tail A.");
    const b = docIdTokens(item + " Completely different tail.");
    assert.deepEqual(a, b);
  });
});

describe("leadingTokens (a prefix of the text tokenised)", () => {
  /** The reference: the whole text tokenised, then cut. */
  const whole = (text: string, k: number) => {
    const full = encodeDocIdTokens(text);
    return { tokens: full.slice(0, k), truncated: full.length > k };
  };
  // Texts whose pre-tokenizer pieces depend on what follows them, placed around the first cuts
  // (8 characters per wanted token, then doubling): whitespace runs ("\s+(?!\S)"), digit runs
  // cut in threes, contractions, punctuation runs, an astral letter (a surrogate pair) that a
  // cut can split, and texts shorter than any cut.
  const filler = "the model reads every word of it";
  const tricky = [
    "",
    "bert",
    "a   b",
    `${filler}   ${filler}     ${filler}      end`,
    `${"1234567890".repeat(12)} digits`,
    `it's what they've said they'd do, isn't it? ${filler} we'll see`,
    `${"?!".repeat(40)} ${filler}`,
    `${"x".repeat(90)}\u{1D465}\u{1D466} ${filler}`,
    `${filler.slice(0, 10)}\u{1D465}`.repeat(12),
    "\u{1F600}".repeat(60),
    `${"word ".repeat(19)}w${"\u{1D465}".repeat(10)} tail`,
    // 95 characters of 3-character pieces, then a letter outside the BMP: the first cut for 12
    // tokens (96 characters) splits its surrogate pair, inside the piece it would extend.
    `ab${" ab".repeat(31)}\u{1D465}\u{1D466} tail`,
    // Pieces outside ASCII (several UTF-8 bytes each) among ASCII ones.
    `café naïve résumé «quoted» — ${filler} 日本語のテキスト ${filler} ünïcödé`,
  ];

  test("equals the whole text's first tokens and truncation for every maxTokens", () => {
    for (const text of tricky) {
      for (let k = 1; k <= 14; k++) assert.deepEqual(leadingTokens(text, k), whole(text, k), `${JSON.stringify(text)} at ${k}`);
    }
  });

  test("the cut moves across a text one character at a time", () => {
    // Every prefix length of a mixed text, so a cut lands inside each kind of piece.
    const text = `${filler}  ${"12345"}'s \u{1D465}x -- ${filler}   ${filler}`;
    for (let n = 0; n <= text.length; n++) {
      const t = text.slice(0, n);
      for (const k of [1, 4, 12]) assert.deepEqual(leadingTokens(t, k), whole(t, k), `${JSON.stringify(t)} at ${k}`);
    }
  });
});

describe("buildDocIdIndex / docIdStatistics", () => {
  const shared = "Low-resource machine translation lacks parallel data for most language pairs of the world.";
  const papers: DocIdSource[] = [
    { externalId: "P1", facets: { problems: [shared, "Noisy web text."], methods: ["Back-translation."] } },
    { externalId: "P2", facets: { problems: ["Noisy web text is hard."], results: ["+2 BLEU."] } },
    // Same first 12 tokens as P1's item, differs later: a collision.
    { externalId: "P3", facets: { problems: [`- ${shared.replace("world", "globe")}`] } },
    // Lists one item twice and has an item that normalises to nothing.
    { externalId: "P4", facets: { problems: [shared, shared, "  - "], contributions: [] } },
  ];
  const index = buildDocIdIndex(papers);

  test("identifiers are distinct, in first-seen order", () => {
    const p = index.facets.problems;
    assert.deepEqual(index.paperIds, ["P1", "P2", "P3", "P4"]);
    assert.equal(p.identifiers.length, 3);
    assert.deepEqual(p.identifiers[0], docIdTokens(shared));
    assert.deepEqual(p.identifiers[1], docIdTokens("Noisy web text."));
    assert.deepEqual(p.identifiers[2], docIdTokens("Noisy web text is hard."));
  });

  test("collisions keep every paper, in corpus order, each once", () => {
    assert.deepEqual(index.facets.problems.papersOf, [[0, 2, 3], [0], [1]]);
  });

  test("per paper, per facet: identifier index of each item, -1 for empty items", () => {
    assert.deepEqual(index.facets.problems.itemIdentifiers, [[0, 1], [2], [0], [0, 0, -1]]);
    assert.deepEqual(index.facets.methods.itemIdentifiers, [[0], [], [], []]);
    assert.deepEqual(index.facets.contributions.itemIdentifiers, [[], [], [], []]);
    assert.equal(index.facets.problems.emptyItemCount, 1);
    assert.equal(index.facets.problems.itemCount, 7);
  });

  test("statistics", () => {
    const s = docIdStatistics(index);
    assert.equal(s.papers, 4);
    assert.deepEqual(s.facets.problems, {
      facet: "problems",
      items: 7,
      emptyItems: 1,
      truncatedItems: 4,
      distinctDocIds: 3,
      collisions: 1,
      meanPapersPerDocId: 5 / 3,
      maxPapersPerDocId: 3,
      papersWithDocIds: 4,
      docIdsPerPaper: 3 / 4,
    });
    assert.equal(s.facets.contributions.distinctDocIds, 0);
    assert.equal(s.facets.contributions.meanPapersPerDocId, 0);
    assert.equal(s.total.distinctDocIds, 3 + 1 + 1 + 0);
    assert.equal(s.total.collisions, 1);
    assert.equal(s.total.meanPapersPerDocId, (5 + 1 + 1) / 5);
    assert.equal(s.total.maxPapersPerDocId, 3);
    assert.equal(s.total.papersWithDocIds, 4);
  });

  test("reports progress per facet up to papers × facets, and the same index with it", () => {
    const seen: [number, number][] = [];
    const again = buildDocIdIndex(papers, DOCID_MAX_TOKENS, { onProgress: (done, total) => seen.push([done, total]) });
    assert.deepEqual(again, index);
    // Four papers report once per facet, at its end.
    assert.deepEqual(seen, [
      [4, 16],
      [8, 16],
      [12, 16],
      [16, 16],
    ]);
  });

  test("duplicate externalIds are rejected", () => {
    assert.throws(() => buildDocIdIndex([papers[0], papers[0]]), /duplicate externalId P1/);
  });
});
