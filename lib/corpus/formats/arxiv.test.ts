import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { readCorpus } from "../read";
import { arxivAuthorNames, yearOfArxivId } from "./arxiv";
import { located, rejected, useFixtureDir } from "./testing";

// Lines of the arXiv metadata snapshot (arxiv-metadata-oai-snapshot.json) as published:
// LaTeX in titles, names and abstracts, wrapped lines, versions with RFC 2822 dates.

const RECORD = {
  id: "0704.0001",
  submitter: "Pavel Nadolsky",
  authors: "C. Bal\\'azs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan",
  title: "Calculation of prompt diphoton production cross sections at Tevatron and\n  LHC energies",
  comments: "37 pages, 15 figures; published version",
  "journal-ref": "Phys.Rev.D76:013009,2007",
  doi: "10.1103/PhysRevD.76.013009",
  "report-no": "ANL-HEP-PR-07-12",
  categories: "hep-ph",
  license: null,
  abstract:
    "  A fully differential calculation in perturbative quantum chromodynamics is\npresented for the production of massive photon pairs at hadron colliders.\n",
  versions: [
    { version: "v1", created: "Mon, 2 Apr 2007 19:18:42 GMT" },
    { version: "v2", created: "Tue, 24 Jul 2007 20:10:27 GMT" },
  ],
  update_date: "2008-11-13",
  authors_parsed: [
    ["Bal\\'azs", "C.", ""],
    ["Berger", "E. L.", ""],
    ["Nadolsky", "P. M.", ""],
    ["Yuan", "C. -P.", ""],
  ],
};

const jsonl = (...values: unknown[]) => values.map((v) => JSON.stringify(v)).join("\n") + "\n";

describe("arXiv metadata snapshot", () => {
  const dir = useFixtureDir("graft-arxiv-");

  test("ids, LaTeX decoded, year of the first version, primary category as venue", async () => {
    const file = dir.write(
      "arxiv-metadata-oai-snapshot.json",
      jsonl(
        RECORD,
        {
          ...RECORD,
          id: "math/0611234",
          title: 'On the Schr\\"odinger equation for $\\alpha$-stable processes with $O(n \\log n)$ terms',
          abstract: "  We improve on 95% of cases ~10 times. \\emph{Keywords}: $\\mathbb{R}^2$\n",
          categories: "math.PR math.AP",
          versions: [],
          update_date: "2007-05-23",
          authors_parsed: undefined,
          authors: 'J. M\\"uller (Universit\\"at Bonn) and A. Garc\\\'ia',
        },
        { ...RECORD, id: "2101.00001", abstract: "", versions: [{ version: "v1", created: "garbled" }], update_date: null, categories: "cs.CL cs.LG" },
      ),
    );
    const corpus = await readCorpus(file);
    assert.equal(corpus.format, "arxiv");
    assert.deepEqual(
      corpus.papers.map((p) => [p.externalId, p.title, p.year, p.venue, p.authors]),
      [
        [
          "0704.0001",
          "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies",
          2007,
          "arXiv hep-ph",
          ["C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C. -P. Yuan"],
        ],
        ["math/0611234", "On the Schrödinger equation for α-stable processes with O(n log n) terms", 2007, "arXiv math.PR", ["J. Müller", "A. García"]],
        [
          "2101.00001",
          "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies",
          2021,
          "arXiv cs.CL",
          ["C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C. -P. Yuan"],
        ],
      ],
    );
    assert.equal(
      corpus.papers[0].abstract,
      "A fully differential calculation in perturbative quantum chromodynamics is presented for the production of massive photon pairs at hadron colliders.",
    );
    assert.equal(corpus.papers[1].abstract, "We improve on 95% of cases ~10 times. Keywords: R²");
    assert.equal(corpus.papers[2].abstract, "");
    assert.equal(corpus.files.citations, null);
  });

  test("malformed lines are located; nothing is read", async () => {
    const file = dir.write(
      "bad.json",
      [
        JSON.stringify(RECORD),
        JSON.stringify({ ...RECORD, id: 704.0002 }),
        JSON.stringify({ ...RECORD, id: "0704.0003", title: "   " }),
        "",
        JSON.stringify(RECORD),
      ].join("\n"),
    );
    assert.deepEqual(located(await rejected(file, { format: "arxiv" })), [
      'bad.json:2: "id" must be a non-empty string, got 704.0002',
      'bad.json:3: "title" is missing',
      'bad.json:5: duplicate id "0704.0001" (first on line 1)',
    ]);
  });

  test("years from ids, authors from the plain string", () => {
    assert.equal(yearOfArxivId("0704.0001"), 2007);
    assert.equal(yearOfArxivId("2312.12345v2"), 2023);
    assert.equal(yearOfArxivId("hep-th/9901001"), 1999);
    assert.equal(yearOfArxivId("math.AG/0301001"), 2003);
    assert.equal(yearOfArxivId("nonsense"), null);
    assert.deepEqual(arxivAuthorNames({ authors: "Ada Lovelace, Charles Babbage (Cambridge) and Alan Turing" }), [
      "Ada Lovelace",
      "Charles Babbage",
      "Alan Turing",
    ]);
    assert.deepEqual(
      arxivAuthorNames({
        authors_parsed: [
          ["Bal\\'azs", "C.", ""],
          ["Yuan", "C.-P.", "Jr."],
        ],
      }),
      ["C. Bal\\'azs", "C.-P. Yuan Jr."],
    );
  });
});
