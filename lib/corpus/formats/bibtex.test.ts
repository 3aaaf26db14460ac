import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { readCorpus } from "../read";
import { located, rejected, useFixtureDir } from "./testing";

// BibTeX as reference managers export it: Zotero (Better BibTeX), JabRef (with its header
// comment and @comment metadata), Mendeley (double-braced titles, month macros).

const ZOTERO = `\uFEFF% Encoding: UTF-8

@inproceedings{vaswani2017attention,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Kaiser, {\\L}ukasz and Polosukhin, Illia},
  booktitle = {Advances in Neural Information Processing Systems},
  year = {2017},
  abstract = {We propose the {Transformer}, based solely on attention -- 28.4 {BLEU} on WMT\\,2014.},
}

@article{mueller2019uber,
  title = {{\\"U}ber Sprachmodelle: \\'Etude des r\\'{e}seaux de neurones en {Fran\\c{c}ais}},
  author = {M{\\"u}ller, J{\\"o}rg and Garc\\'ia, Ana and van der Berg, Jan and {The ACL Consortium}},
  journaltitle = {Transactions of the ACL},
  date = {2019-03-01},
  doi = {10.1162/tacl_a_00001},
  abstract = {We study $\\alpha$-smoothing with \\emph{BERT}: 5\\% better, na\\"ive baselines \\& all.},
}

@misc{noabstract2020,
  title = "Plain {UTF-8}: Ærøskøbing — naïve café",
  author = "Ødegård, Åse",
  year = 2020,
  month = jan,
}

@comment{jabref-meta: databaseType:bibtex;}
`;

describe("BibTeX", () => {
  const dir = useFixtureDir("graft-bibtex-");

  test("Zotero/JabRef export: LaTeX decoded to Unicode, keys as ids, a BOM, UTF-8 as is", async () => {
    const corpus = await readCorpus(dir.write("library.bib", ZOTERO));
    assert.equal(corpus.format, "bibtex");
    assert.deepEqual(
      corpus.papers.map((p) => [p.externalId, p.title, p.year, p.venue, p.authors]),
      [
        [
          "vaswani2017attention",
          "Attention Is All You Need",
          2017,
          "Advances in Neural Information Processing Systems",
          ["Ashish Vaswani", "Łukasz Kaiser", "Illia Polosukhin"],
        ],
        [
          "mueller2019uber",
          "Über Sprachmodelle: Étude des réseaux de neurones en Français",
          2019,
          "Transactions of the ACL",
          ["Jörg Müller", "Ana García", "Jan van der Berg", "The ACL Consortium"],
        ],
        ["noabstract2020", "Plain UTF-8: Ærøskøbing — naïve café", 2020, null, ["Åse Ødegård"]],
      ],
    );
    assert.equal(corpus.papers[0].abstract, "We propose the Transformer, based solely on attention – 28.4 BLEU on WMT 2014.");
    assert.equal(corpus.papers[1].abstract, "We study α-smoothing with BERT: 5% better, naïve baselines & all.");
    // Imported, marked by an empty abstract (the import summary counts them).
    assert.equal(corpus.papers[2].abstract, "");
    assert.deepEqual(corpus.citations, []);
    assert.equal(corpus.files.citations, null, "a .bib has no citations: stored ones are kept");
  });

  test("a year outside 1000–2100 imports the entry without a year and says so", async () => {
    const corpus = await readCorpus(
      dir.write("year.bib", `@book{gregory801, title = {Dialogues}, year = {801}}\n@misc{soon, title = {Soon}, year = {in press}}\n`),
    );
    assert.deepEqual(
      corpus.papers.map((p) => [p.externalId, p.year]),
      [
        ["gregory801", null],
        ["soon", null],
      ],
    );
    assert.deepEqual(located(corpus.notices ?? []), [
      "year.bib:1: year 801 is outside 1000–2100: imported without a year (fix it in the source to keep it)",
      'year.bib:2: year "in press" is not a year: imported without a year',
    ]);
  });

  test("malformed entries: every problem located at its entry's line, nothing read", async () => {
    const bib = [
      "@article{good, title = {Fine}, year = 2019}", // 1
      "", // 2
      "@inproceedings{broken,", // 3
      "  title = {Unclosed brace,", // 4
      "  year = 2020", // 5
      "}", // 6
      "@misc{notitle, year = {2018}, author = {Someone}}", // 7
      "@article{good, title = {Same key again}}", // 8
      "@article{fine2, title = {Also fine}}", // 9
    ].join("\n");
    const issues = await rejected(dir.write("broken.bib", bib));
    assert.deepEqual(
      issues.map((i) => [i.line, i.message.replace(/: Token mismatch.*$/, ": Token mismatch…")]),
      [
        [3, "cannot parse this entry: Token mismatch…"],
        [7, '"title" is missing'],
        [8, 'duplicate id "good" (first on line 1)'],
      ],
    );
    assert.ok(issues.every((i) => i.file === "broken.bib"));
  });

  test("--skip-invalid imports the rest and lists what it skipped", async () => {
    const corpus = await readCorpus(dir.write("skip.bib", "@misc{a, title = {A}}\n@misc{b, year = 2001}\n@misc{c, title = {C}}\n"), { skipInvalid: true });
    assert.deepEqual(
      corpus.papers.map((p) => p.externalId),
      ["a", "c"],
    );
    assert.deepEqual(located(corpus.skipped), ['skip.bib:2: skipped invalid line: "title" is missing']);
  });

  test("proceedings that entries cross-reference are containers, not papers", async () => {
    const bib = [
      "@inproceedings{p1, title = {A Paper}, crossref = {acl2019}}",
      "@proceedings{acl2019, title = {Proceedings of ACL 2019}, year = 2019, booktitle = {Proceedings of ACL 2019}}",
    ].join("\n");
    const corpus = await readCorpus(dir.write("xref.bib", bib));
    assert.deepEqual(
      corpus.papers.map((p) => [p.externalId, p.year, p.venue]),
      [["p1", 2019, "Proceedings of ACL 2019"]],
    );
    assert.deepEqual(located(corpus.skipped), ["xref.bib:2: @proceedings{acl2019} is the proceedings that 1 entry cross-reference, not a paper"]);
  });

  test("a Latin-1 file is refused with the line to look at, not imported as mojibake", async () => {
    const latin1 = Buffer.concat([Buffer.from("@misc{a, title = {Fine}}\n@misc{b, title = {Caf"), Buffer.from([0xe9]), Buffer.from("}}\n")]);
    const issues = await rejected(dir.write("latin1.bib", latin1));
    assert.deepEqual(located(issues), ["latin1.bib:2: not valid UTF-8 text (a Latin-1 or Windows-1252 export?): save or export the file as UTF-8"]);
  });

  test("an empty .bib contains no papers", async () => {
    assert.deepEqual(located(await rejected(dir.write("empty.bib", "% nothing here\n"))), ["empty.bib: contains no papers"]);
  });
});
