import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { DocLine } from "./lines";
import { firstSentence, referenceTitle, splitReferenceEntries } from "./references";

const lines = (...texts: string[]): DocLine[] => texts.map((text) => ({ text }));

describe("splitReferenceEntries", () => {
  test("[n] markers start entries; a continuation starting with a bracketed number does not", () => {
    const entries = splitReferenceEntries(
      lines(
        "[1] A. Author. First title. In Proc.",
        "of X, 2019.",
        "[2] B. Author. Second title",
        "[12] is cited here. Journal, 2020.",
        "[3] C. Author. Third.",
      ),
    );
    assert.deepEqual(entries, [
      "[1] A. Author. First title. In Proc. of X, 2019.",
      "[2] B. Author. Second title [12] is cited here. Journal, 2020.",
      "[3] C. Author. Third.",
    ]);
  });

  test('"1." numbering must rise by one, so "12. In ..." stays inside its entry', () => {
    const entries = splitReferenceEntries(lines("1. Smith, J.: A title. Journal 3,", "12. In: Venue (2019)", "2. Doe, J.: Another title. Venue (2020)"));
    assert.deepEqual(entries, ["1. Smith, J.: A title. Journal 3, 12. In: Venue (2019)", "2. Doe, J.: Another title. Venue (2020)"]);
  });

  test("hanging indents: every flush line starts an entry", () => {
    const entries = splitReferenceEntries([
      { text: "Ada Lovelace. 1843. Notes on the analytical", indent: 0 },
      { text: "engine. Taylor's Scientific Memoirs.", indent: 10 },
      { text: "Alan Turing. 1950. Computing machinery and", indent: 0 },
      { text: "intelligence. Mind.", indent: 10 },
    ]);
    assert.deepEqual(entries, [
      "Ada Lovelace. 1843. Notes on the analytical engine. Taylor's Scientific Memoirs.",
      "Alan Turing. 1950. Computing machinery and intelligence. Mind.",
    ]);
  });

  test("no markers or indents: a new author list after a full stop starts an entry, a venue does not", () => {
    const entries = splitReferenceEntries(
      lines(
        "Jacob Devlin, Ming-Wei Chang, Kenton Lee, and Kristina Toutanova. 2019. BERT: Pre-training of",
        "deep bidirectional transformers for language understanding. In Proceedings of NAACL.",
        "Association for Computational Linguistics.",
        "Vaswani, A., Shazeer, N. (2017). Attention is all you need. In NeurIPS.",
        "In Advances in Neural Information Processing Systems.",
        "A. Smith and B. Jones. A third title. Journal, 2020.",
      ),
    );
    assert.equal(entries.length, 3);
    assert.ok(entries[0].endsWith("Association for Computational Linguistics."));
    assert.ok(entries[1].endsWith("In Advances in Neural Information Processing Systems."));
  });
});

describe("referenceTitle", () => {
  const cases: [string, string, string][] = [
    [
      "ACL (author-year)",
      "Ashish Vaswani, Noam Shazeer, and Illia Polosukhin. 2017. Attention is all you need. In Advances in NeurIPS, pages 5998–6008.",
      "Attention is all you need",
    ],
    ["APA", "Smith, J., & Doe, A. B. (2018). Why facets matter? Journal of Z, 3(2), 1-9.", "Why facets matter?"],
    ["IEEE (quoted)", '[4] A. Vaswani et al., "Attention is all you need," in Proc. NeurIPS, 2017, pp. 1–11.', "Attention is all you need"],
    ["IEEE (curly quotes)", "A. Vaswani, “Attention is all you need,” in Proc. NeurIPS, 2017.", "Attention is all you need"],
    ["LNCS", "1. Vaswani, A., Shazeer, N.: Attention is all you need. In: NeurIPS. pp. 1–10 (2017)", "Attention is all you need"],
    [
      "authors, title, venue",
      "[2] C. Writer, D. Writer, and E. Writer. Graph-based retrieval revisited. Journal of Y, 2020.",
      "Graph-based retrieval revisited",
    ],
    [
      "year with letter",
      "Lee, K. 2019a. Latent retrieval for weakly supervised open domain question answering. In ACL.",
      "Latent retrieval for weakly supervised open domain question answering",
    ],
    [
      "colon in the title",
      "J. Devlin, M. Chang. 2019. BERT: Pre-training of deep bidirectional transformers. In NAACL.",
      "BERT: Pre-training of deep bidirectional transformers",
    ],
  ];
  for (const [style, entry, title] of cases) {
    test(style, () => assert.equal(referenceTitle(entry), title));
  }

  test("an entry without a recognisable title is given whole (shortened)", () => {
    assert.equal(referenceTitle("[7] Anonymous"), "Anonymous");
    assert.equal(referenceTitle(`[8] ${"x".repeat(400)}`).length, 300);
  });
});

test("firstSentence: initials and et al. do not end a sentence", () => {
  assert.equal(firstSentence("A. B. Smith et al. wrote it. Then more."), "A. B. Smith et al. wrote it");
  assert.equal(firstSentence("Is it new? Yes."), "Is it new?");
  assert.equal(firstSentence("J.-P. Sartre. Being and nothingness."), "J.-P. Sartre");
});
