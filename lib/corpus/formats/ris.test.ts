import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { readCorpus } from "../read";
import { generatedKey } from "./ris";
import { located, rejected, useFixtureDir } from "./testing";

// RIS as Zotero (TY/TI/AU/PY/T2/AB/DO), Mendeley (T1/A1/Y1/N2, ID) and EndNote (UTF-16 with a
// BOM, CRLF) export it.

const ZOTERO = [
  "TY  - JOUR",
  "TI  - Sprachmodelle für die Übersetzung: eine Übersicht",
  "AU  - Müller, Jörg",
  "AU  - García, Ana",
  "T2  - Transactions of the Association for Computational Linguistics",
  "AB  - Wir untersuchen, wie große Sprachmodelle die maschinelle Übersetzung verändern,",
  "  und vergleichen sie mit klassischen Verfahren.",
  "DA  - 2021/03/01/",
  "PY  - 2021",
  "DO  - 10.1162/TACL_A_00001",
  "ER  - ",
  "",
  "TY  - CONF",
  "TI  - Deep contextualized word representations",
  "AU  - Peters, Matthew E.",
  "C3  - Proceedings of NAACL-HLT",
  "PY  - 2018",
  "ER  - ",
  "",
].join("\n");

const MENDELEY = [
  "TY  - CONF",
  "ID  - Peters2018",
  "T1  - Deep contextualized word representations",
  "A1  - Peters, Matthew E.",
  "A1  - Neumann, Mark",
  "Y1  - 2018",
  "T2  - Proceedings of NAACL-HLT",
  "N2  - We introduce a new type of deep contextualized word representation.",
  "ER  - ",
  "TY  - GEN",
  "T1  - A record without abstract",
  "A1  - Mikolov, Tomas",
  "Y1  - 801",
  "ER  - ",
].join("\r\n");

describe("RIS", () => {
  const dir = useFixtureDir("graft-ris-");

  test("Zotero export: UTF-8 with a BOM, continuation lines, DOI as id (lower-cased)", async () => {
    const corpus = await readCorpus(dir.write("zotero.ris", `\uFEFF${ZOTERO}`));
    assert.equal(corpus.format, "ris");
    const [a, b] = corpus.papers;
    assert.equal(a.externalId, "10.1162/tacl_a_00001");
    assert.equal(a.title, "Sprachmodelle für die Übersetzung: eine Übersicht");
    assert.deepEqual(a.authors, ["Jörg Müller", "Ana García"]);
    assert.equal(a.year, 2021);
    assert.equal(a.venue, "Transactions of the Association for Computational Linguistics");
    assert.equal(a.abstract, "Wir untersuchen, wie große Sprachmodelle die maschinelle Übersetzung verändern, und vergleichen sie mit klassischen Verfahren.");
    // Neither ID nor DOI: a key from author, year and title, the same at every import.
    assert.equal(b.externalId, generatedKey("Deep contextualized word representations", 2018, ["Matthew E. Peters"]));
    assert.match(b.externalId, /^peters2018deep-[0-9a-f]{6}$/);
    assert.equal(b.year, 2018);
    assert.equal(b.abstract, "");
  });

  test("Mendeley export with CRLF: ID tag as id; a year 801 imported as unknown with a notice", async () => {
    const corpus = await readCorpus(dir.write("mendeley.ris", MENDELEY));
    assert.deepEqual(
      corpus.papers.map((p) => [p.externalId, p.title, p.year, p.authors]),
      [
        ["Peters2018", "Deep contextualized word representations", 2018, ["Matthew E. Peters", "Mark Neumann"]],
        // The key is made from the record as written (its year included), like every generated key.
        [generatedKey("A record without abstract", 801, ["Tomas Mikolov"]), "A record without abstract", null, ["Tomas Mikolov"]],
      ],
    );
    assert.equal(corpus.papers[0].abstract, "We introduce a new type of deep contextualized word representation.");
    assert.deepEqual(located(corpus.notices ?? []), [
      "mendeley.ris:10: year 801 is outside 1000–2100: imported without a year (fix it in the source to keep it)",
    ]);
  });

  test("EndNote's UTF-16 export reads the same", async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(ZOTERO.replace(/\n/g, "\r\n"), "utf16le")]);
    const corpus = await readCorpus(dir.write("endnote.txt", utf16), { format: "ris" });
    assert.deepEqual(
      corpus.papers.map((p) => p.title),
      ["Sprachmodelle für die Übersetzung: eine Übersicht", "Deep contextualized word representations"],
    );
  });

  test("malformed records: all located, nothing read", async () => {
    const ris = [
      "AU  - Stray, Line", // 1: outside a record
      "TY  - JOUR", // 2
      "AU  - Nobody, A.", // 3: no title
      "PY  - 2001", // 4
      "ER  - ", // 5
      "TY  - JOUR", // 6: never closed before the next record
      "TI  - First", // 7
      "TY  - JOUR", // 8
      "TI  - Second", // 9
      "ID  - dup", // 10
      "ER  - ", // 11
      "TY  - JOUR", // 12
      "TI  - Third", // 13
      "ID  - dup", // 14
      "ER  - ", // 15
      "TY  - JOUR", // 16: runs off the end
      "TI  - Fourth", // 17
    ].join("\n");
    assert.deepEqual(located(await rejected(dir.write("broken.ris", ris))), [
      'broken.ris:1: "AU  - " outside a record: a RIS record starts with "TY  - " and ends with "ER  - "',
      'broken.ris:2: "title" is missing',
      'broken.ris:6: record has no "ER  - " line before the next record starts on line 8',
      'broken.ris:12: duplicate id "dup" (first on line 8)',
      'broken.ris:16: record is not closed: no "ER  - " line before the end of the file',
    ]);
  });

  test("--skip-invalid keeps the good records", async () => {
    const ris = ["TY  - JOUR", "PY  - 2001", "ER  - ", "TY  - JOUR", "TI  - Good", "ER  - "].join("\n");
    const corpus = await readCorpus(dir.write("skip.ris", ris), { skipInvalid: true });
    assert.deepEqual(
      corpus.papers.map((p) => p.title),
      ["Good"],
    );
    assert.deepEqual(located(corpus.skipped), ['skip.ris:1: skipped invalid line: "title" is missing']);
  });
});
