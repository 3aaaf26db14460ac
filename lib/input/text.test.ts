import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { InputError } from "./errors";
import { paperFromText } from "./text";
import { STATUS_OF_CODE } from "@/lib/http";

function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InputError, `expected InputError, got ${String(err)}`);
    return err;
  }
  assert.fail("expected an InputError");
}

/** `text` wrapped at spaces into lines of at most `width` characters. */
function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let cur = "";
  for (const w of text.split(" ")) {
    if (cur && cur.length + 1 + w.length > width) {
      lines.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  return [...lines, cur].join("\n");
}

const ABSTRACT =
  "The dominant sequence transduction models are based on complex recurrent or convolutional neural networks. " +
  "We propose a new simple network architecture, the Transformer, based solely on attention mechanisms.";

/** A whole paper as copied out of a PDF viewer: hard-wrapped lines, hyphenation, [n] references. */
const WHOLE_PAPER = `Graph Retrieval for Scientific Papers
Ada Lovelace, Alan Turing
University of Somewhere

Abstract
We study how to find related work for a paper using its facets. We propose a
graph retrieval method that fuses rankings from several retrievers. Our results
show large gains on a citation recommendation benchmark.

1 Introduction
Finding related work is hard because papers use different words for the same
idea, so keyword search misses many relevant papers. We address this with
facets [1]. The approach is state-of-the-
art and the meth-
od is simple enough to explain.
Facets also make results easier to justify to a reader.

2 Method
We count the facets of each paper and compare papers facet by facet, and
3 Methods were compared in a pilot study with ten papers and two annotators
before the main study.

2.1 Data
We use the ACL anthology.

3 Results
Our method finds more cited papers than the baselines.

References
[1] A. Author and B. Author. Faceted search for papers. In Proc. of the
Workshop on Retrieval, pages 1–10, 2019.
[2] C. Writer, D. Writer, and E. Writer. Graph-based retrieval revisited.
Journal of Retrieval, 2020.
[3] F. Person. 2021. Dense retrieval at scale. In NeurIPS.
`;

describe("paperFromText", () => {
  test("title and abstract only", () => {
    const p = paperFromText(`Attention Is All You Need\n\n${ABSTRACT}\n`);
    assert.equal(p.title, "Attention Is All You Need");
    assert.equal(p.abstract, ABSTRACT);
    assert.equal(p.body, "");
    assert.deepEqual(p.sections, []);
    assert.deepEqual(p.references, []);
    assert.equal(p.facets, null);
    assert.equal(p.source, "text");
    assert.equal(p.pages, undefined);
  });

  test('"Title:" and "Abstract:" labels', () => {
    const p = paperFromText(`Title: Attention Is All You Need\nAbstract: ${ABSTRACT}`);
    assert.equal(p.title, "Attention Is All You Need");
    assert.equal(p.abstract, ABSTRACT);
  });

  test("a hard-wrapped abstract alone gets no title from its first line", () => {
    const p = paperFromText(wrap(ABSTRACT, 70));
    assert.ok(p.abstract.length > 0);
    assert.equal(p.title, "");
    assert.equal(p.abstract, ABSTRACT);
  });

  test("a first line that reads as a sentence is not a title", () => {
    const p = paperFromText(`We propose a new method for retrieval.\n${ABSTRACT}`);
    assert.equal(p.title, "");
    assert.equal(p.abstract, `We propose a new method for retrieval.\n\n${ABSTRACT}`);
  });

  describe("a whole pasted paper", () => {
    const p = paperFromText(WHOLE_PAPER);

    test("title, and the abstract without authors and affiliation", () => {
      assert.equal(p.title, "Graph Retrieval for Scientific Papers");
      assert.equal(
        p.abstract,
        "We study how to find related work for a paper using its facets. We propose a graph retrieval method that fuses rankings from several retrievers. Our results show large gains on a citation recommendation benchmark.",
      );
    });

    test("sections by numbered headings; a wrapped line starting with a number is no heading", () => {
      assert.deepEqual(
        p.sections.map((s) => s.heading),
        ["1 Introduction", "2 Method", "2.1 Data", "3 Results"],
      );
      assert.match(p.sections[1].text, /facet by facet, and 3 Methods were compared in a pilot study/);
    });

    test("wrapped lines are joined, syllable hyphens removed, compound hyphens kept", () => {
      assert.equal(
        p.sections[0].text,
        "Finding related work is hard because papers use different words for the same idea, so keyword search misses many relevant papers. " +
          "We address this with facets [1]. The approach is state-of-the-art and the method is simple enough to explain.\n\n" +
          "Facets also make results easier to justify to a reader.",
      );
    });

    test("the body holds the sections with their headings and stops before References", () => {
      assert.ok(p.body.startsWith("1 Introduction\n\nFinding related work"));
      assert.ok(p.body.endsWith("3 Results\n\nOur method finds more cited papers than the baselines."));
      assert.ok(!/References|Faceted search/.test(p.body));
      assert.ok(!p.body.includes("We study how"), "the body repeats the abstract");
    });

    test("the reference list becomes reference titles", () => {
      assert.deepEqual(p.references, ["Faceted search for papers", "Graph-based retrieval revisited", "Dense retrieval at scale"]);
    });
  });

  test("soft-wrapped text (one paragraph per line), markdown headings", () => {
    const para = "Sentence of a long paragraph that a web page did not wrap. ".repeat(4).trim();
    const p = paperFromText(
      `# A Paper From a Web Page\n\n${para}\n## Introduction\n${para}\n${para}\n## References\nSmith, J. (2018). Why facets matter. Journal of Z, 3(2), 1-9.\n`,
    );
    assert.equal(p.title, "A Paper From a Web Page");
    assert.equal(p.abstract, para);
    assert.deepEqual(p.sections, [{ heading: "Introduction", text: `${para}\n\n${para}` }]);
    assert.deepEqual(p.references, ["Why facets matter"]);
  });

  test("a long text without any heading: first paragraph is the abstract, the rest is body", () => {
    const para = "This paragraph is part of a long paper without headings and it goes on. ".repeat(10).trim();
    const p = paperFromText(`A Headingless Paper\n\n${para}\n\n${para}\n\n${para}\n\n${para}\n\n${para}`);
    assert.equal(p.abstract, para);
    assert.equal(p.sections.length, 1);
    assert.equal(p.sections[0].heading, "");
    assert.equal(p.body, [para, para, para, para].join("\n\n"));
  });

  test("CRLF line ends and a byte order mark are accepted", () => {
    const p = paperFromText(`\ufeffAttention Is All You Need\r\n\r\n${ABSTRACT}\r\n`);
    assert.equal(p.title, "Attention Is All You Need");
    assert.equal(p.abstract, ABSTRACT);
  });

  test("empty or white space only -> empty (400)", () => {
    for (const text of ["", "  \n\t\n "]) {
      const err = inputError(() => paperFromText(text));
      assert.equal(err.code, "empty");
      assert.equal(STATUS_OF_CODE[err.code], 400);
      assert.match(err.message, /empty; paste/);
    }
  });

  test("shorter than minChars -> too_short (422), counting collapsed white space", () => {
    const err = inputError(() => paperFromText("A Title\n\nToo short to say anything."));
    assert.equal(err.code, "too_short");
    assert.equal(STATUS_OF_CODE[err.code], 422);
    assert.match(err.message, /only 34 characters, fewer than the 100 needed/);
    assert.doesNotThrow(() => paperFromText("x".repeat(20), { minChars: 20 }));
  });

  test("larger than maxBytes -> too_large (413), measured in UTF-8 bytes", () => {
    const err = inputError(() => paperFromText("é".repeat(60), { maxBytes: 100 }));
    assert.equal(err.code, "too_large");
    assert.equal(STATUS_OF_CODE[err.code], 413);
    assert.match(err.message, /120 bytes, more than the 100 bytes limit/);
  });
});
