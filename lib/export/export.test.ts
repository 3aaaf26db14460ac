import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  bibtexTitle,
  citationKey,
  citationKeys,
  entryKind,
  escapeBibtex,
  exportFile,
  fileSlug,
  paperUrl,
  risName,
  toBibtex,
  toCsv,
  toJson,
  toRis,
  type ExportRecord,
} from "./index";

const EUROPARL: ExportRecord = {
  corpus: "acl-citegraph",
  externalId: "2005.mtsummit-papers.11",
  title: "Europarl: A Parallel Corpus for Statistical Machine Translation",
  authors: ["Philipp Koehn"],
  year: 2005,
  venue: "Proceedings of Machine Translation Summit X: Papers",
};

const MALT: ExportRecord = {
  corpus: "acl-citegraph",
  externalId: "http://www.lrec-conf.org/proceedings/lrec2006/pdf/162_pdf.pdf",
  title: "MaltParser: A Data-Driven Parser-Generator for Dependency Parsing",
  authors: ["Joakim Nivre", "Johan Hall", "Jens Nilsson"],
  year: 2006,
  venue: "Proceedings of the Fifth International Conference on Language Resources and Evaluation (LREC'06)",
  rank: 2,
  score: 0.0312345678,
  facets: [
    { facet: "results", rank: 4, weight: 0.61 },
    { facet: "methods", rank: 1, weight: 0.7 },
  ],
};

/** A result of three seeds at once: two surfaced it, one of them a pasted text (no corpus id). */
const SEEDED: ExportRecord = {
  corpus: "acl-citegraph",
  externalId: "P19-1542",
  title: "Seeded Result",
  authors: ["Ann Lee"],
  year: 2019,
  venue: "Proceedings of the 57th Annual Meeting of the Association for Computational Linguistics",
  rank: 1,
  score: 0.03,
  facets: [{ facet: "results" }, { facet: "methods" }],
  seeds: [
    { seed: 1, seedId: "C16-1030", rank: 3, facets: ["methods"] },
    { seed: 3, seedId: null, rank: 7, facets: ["methods", "results"] },
  ],
};

const TACL: ExportRecord = {
  corpus: "acl-citegraph",
  externalId: "Q17-1010",
  title: "Enriching Word Vectors with Subword Information",
  authors: ["Piotr Bojanowski", "Edouard Grave", "Armand Joulin", "Tomas Mikolov"],
  year: 2017,
  venue: "Transactions of the Association for Computational Linguistics, Volume 5",
};

/** A minimal BibTeX reader: entry type, key and brace-delimited fields (nested braces allowed). */
function parseBibtex(text: string): { type: string; key: string; fields: Record<string, string> }[] {
  const entries: { type: string; key: string; fields: Record<string, string> }[] = [];
  const re = /@(\w+)\{([^,\s]+),/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const fields: Record<string, string> = {};
    let i = re.lastIndex;
    for (;;) {
      const fm = /\s*(\w+)\s*=\s*\{/y;
      fm.lastIndex = i;
      const f = fm.exec(text);
      if (!f) break;
      let depth = 1;
      let j = fm.lastIndex;
      for (; depth > 0; j++) {
        if (text[j] === "\\") {
          j++;
          continue;
        }
        if (text[j] === "{") depth++;
        else if (text[j] === "}") depth--;
        assert.ok(j < text.length, "unbalanced braces");
      }
      fields[f[1]] = text.slice(fm.lastIndex, j - 1);
      i = j;
      if (text[i] === ",") i++;
    }
    assert.match(text.slice(i), /^\s*\}/, "entry must close after its fields");
    entries.push({ type: m[1], key: m[2], fields });
    re.lastIndex = i;
  }
  return entries;
}

describe("BibTeX", () => {
  test("escapes LaTeX specials so every field stays balanced", () => {
    assert.equal(escapeBibtex("R&D 50% $5 #1 a_b {x} ~ ^ \\"), "R\\&D 50\\% \\$5 \\#1 a\\_b \\{x\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{}");
    assert.equal(escapeBibtex("  two\n lines  "), "two lines");
    // Non-ASCII stays: modern BibTeX/biber read UTF-8.
    assert.equal(escapeBibtex("Müller’s “corpus”"), "Müller’s “corpus”");
  });

  test("braces acronyms and internal capitals in titles, leaves plain words to the style", () => {
    assert.equal(bibtexTitle("BERT: Pre-training of Deep Bidirectional Transformers"), "{BERT:} Pre-training of Deep Bidirectional Transformers");
    assert.equal(bibtexTitle("MaltParser for CEval and GPT-4"), "{MaltParser} for {CEval} and {GPT-4}");
    assert.equal(bibtexTitle("A Study of Parsing"), "A Study of Parsing");
    assert.equal(bibtexTitle("Q&A with 100% NLP"), "{Q\\&A} with 100\\% {NLP}");
  });

  test("citation keys: family name, year and first significant title word, ASCII only, unique", () => {
    assert.equal(citationKey(EUROPARL), "koehn2005europarl");
    assert.equal(citationKey({ authors: ["José Camacho-Collados"], year: 2016, title: "A Novel Approach" }), "camachocollados2016novel");
    assert.equal(citationKey({ authors: ["Nivre, Joakim"], year: null, title: "The Ünïcode Test" }), "nivrendunicode");
    assert.equal(citationKey({ authors: [], year: 2020, title: "?" }), "anon2020");
    const twice = citationKeys([EUROPARL, MALT, { ...EUROPARL, externalId: "x" }, { ...EUROPARL, externalId: "y" }]);
    assert.deepEqual(twice, ["koehn2005europarla", "nivre2006maltparser", "koehn2005europarlb", "koehn2005europarlc"]);
  });

  test("entry types follow the venue", () => {
    assert.equal(entryKind(EUROPARL.venue), "conference");
    assert.equal(entryKind(MALT.venue), "conference");
    assert.equal(entryKind(TACL.venue), "journal");
    assert.equal(entryKind("Computational Linguistics, Volume 45, Issue 1 - March 2019"), "journal");
    assert.equal(entryKind("COLING 2002: The 19th International Conference on Computational Linguistics"), "conference");
    assert.equal(entryKind(null), "other");
    assert.equal(entryKind("arXiv"), "other");
  });

  test("writes parseable entries with the right fields", () => {
    const text = toBibtex([EUROPARL, MALT, TACL, { ...EUROPARL, externalId: "local-1", venue: null, year: null, authors: [], title: "50% of {all} tricks_x" }]);
    const entries = parseBibtex(text);
    assert.equal(entries.length, 4);
    assert.deepEqual(
      entries.map((e) => [e.type, e.key]),
      [
        ["inproceedings", "koehn2005europarl"],
        ["inproceedings", "nivre2006maltparser"],
        ["article", "bojanowski2017enriching"],
        ["misc", "anonndall"],
      ],
    );
    const [europarl, malt, tacl, odd] = entries;
    assert.equal(europarl.fields.title, "Europarl: A Parallel Corpus for Statistical Machine Translation");
    assert.equal(europarl.fields.author, "Philipp Koehn");
    assert.equal(europarl.fields.booktitle, EUROPARL.venue);
    assert.equal(europarl.fields.year, "2005");
    assert.equal(europarl.fields.url, "https://aclanthology.org/2005.mtsummit-papers.11");
    assert.equal(malt.fields.author, "Joakim Nivre and Johan Hall and Jens Nilsson");
    assert.equal(malt.fields.url, MALT.externalId);
    // Credited facets in facet order, as a note.
    assert.equal(malt.fields.note, "Related via methods (rank 1), results (rank 4)");
    assert.equal(tacl.fields.journal, TACL.venue);
    assert.equal(tacl.fields.booktitle, undefined);
    assert.equal(odd.fields.title, "50\\% of \\{all\\} tricks\\_x");
    assert.equal(odd.fields.url, undefined);
    assert.equal(odd.fields.year, undefined);
    assert.equal(odd.fields.note, undefined);
  });

  test("a result of several seeds notes its facets and the seeds that surfaced it", () => {
    const [seeded] = parseBibtex(toBibtex([SEEDED]));
    assert.equal(seeded.fields.note, "Related via methods, results; surfaced by seed 1 (C16-1030, rank 3), seed 3 (rank 7)");
    const [onlySeeds] = parseBibtex(toBibtex([{ ...SEEDED, facets: [] }]));
    assert.equal(onlySeeds.fields.note, "Surfaced by seed 1 (C16-1030, rank 3), seed 3 (rank 7)");
  });
});

describe("earlier and later work (issue 27)", () => {
  const LATER: ExportRecord = { ...MALT, direction: "later" };
  const EARLIER: ExportRecord = { ...TACL, rank: 1, score: 0.04, facets: [{ facet: "problems", rank: 2, weight: 0.5 }], direction: "earlier" };
  const SAME: ExportRecord = { ...EUROPARL, rank: 3, score: 0.02, facets: [{ facet: "methods", rank: 9, weight: 0.4 }], direction: "neither" };

  test("BibTeX: the note says earlier or later work before the facets; the same year says nothing", () => {
    const [later, earlier, same] = parseBibtex(toBibtex([LATER, EARLIER, SAME]));
    assert.equal(later.fields.note, "Later work (published after the query); related via methods (rank 1), results (rank 4)");
    assert.equal(earlier.fields.note, "Earlier work (published before the query); related via problems (rank 2)");
    assert.equal(same.fields.note, "Related via methods (rank 9)");
    const [alone] = parseBibtex(toBibtex([{ ...EUROPARL, direction: "earlier" }]));
    assert.equal(alone.fields.note, "Earlier work (published before the query)");
  });

  test("RIS: the same note in N1", () => {
    const lines = toRis([LATER, EARLIER]).split("\r\n");
    assert.ok(lines.includes("N1  - Later work (published after the query); related via methods (rank 1), results (rank 4)"));
    assert.ok(lines.includes("N1  - Earlier work (published before the query); related via problems (rank 2)"));
  });

  test("CSV: a direction column after facets when the list has directions, none otherwise", () => {
    const rows = toCsv([LATER, EARLIER, SAME, EUROPARL]).split("\r\n");
    assert.equal(rows[0], "rank,score,corpus,id,title,authors,year,venue,url,facets,direction");
    const header = rows[0].split(",");
    const directions = rows.slice(1, 5).map((r) => r.split(",").at(header.indexOf("direction") - header.length));
    assert.deepEqual(directions, ["later", "earlier", "neither", ""]);
    assert.equal(toCsv([EUROPARL, MALT]).split("\r\n")[0], "rank,score,corpus,id,title,authors,year,venue,url,facets");
    // With several seeds too, seeds stay last.
    assert.equal(toCsv([LATER, SEEDED]).split("\r\n")[0], "rank,score,corpus,id,title,authors,year,venue,url,facets,direction,seeds");
  });

  test("JSON: each paper's direction, the query's year in the context", () => {
    const parsed = JSON.parse(toJson([LATER, EARLIER, SAME, EUROPARL], { query: { year: { value: 2010, source: "paper" } } }));
    assert.deepEqual(
      parsed.papers.map((p: ExportRecord) => p.direction ?? null),
      ["later", "earlier", "neither", null],
    );
    assert.deepEqual(parsed.query.year, { value: 2010, source: "paper" });
  });
});

describe("RIS", () => {
  test("names in Last, First form with particles kept in the family name", () => {
    assert.equal(risName("Philipp Koehn"), "Koehn, Philipp");
    assert.equal(risName("Gertjan van Noord"), "van Noord, Gertjan");
    assert.equal(risName("Nivre, Joakim"), "Nivre, Joakim");
    assert.equal(risName("Plato"), "Plato");
  });

  test("one record per paper with the standard tags, CRLF line ends and single-line values", () => {
    const text = toRis([EUROPARL, TACL, { ...MALT, abstract: "Line one.\nLine two." }]);
    assert.ok(!/[^\r]\n/.test(text), "every line ends in CR LF");
    const records = text.split("ER  - ").slice(0, -1);
    assert.equal(records.length, 3);
    const lines = text.split("\r\n").filter(Boolean);
    for (const l of lines) assert.match(l, /^[A-Z][A-Z0-9] {2}- /, `bad RIS line ${JSON.stringify(l)}`);
    assert.deepEqual(lines.slice(0, 7), [
      "TY  - CPAPER",
      "ID  - koehn2005europarl",
      "TI  - Europarl: A Parallel Corpus for Statistical Machine Translation",
      "AU  - Koehn, Philipp",
      "PY  - 2005",
      `T2  - ${EUROPARL.venue}`,
      "UR  - https://aclanthology.org/2005.mtsummit-papers.11",
    ]);
    assert.ok(lines.includes("TY  - JOUR"));
    assert.ok(lines.includes(`JO  - ${TACL.venue}`));
    assert.ok(lines.includes("AB  - Line one. Line two."));
    assert.equal(lines.filter((l) => l.startsWith("AU  - ")).length, 1 + 4 + 3);
    assert.ok(lines.includes("N1  - Related via methods (rank 1), results (rank 4)"));
  });

  test("a result of several seeds: the seeds in N1", () => {
    const lines = toRis([SEEDED]).split("\r\n");
    assert.ok(lines.includes("N1  - Related via methods, results; surfaced by seed 1 (C16-1030, rank 3), seed 3 (rank 7)"));
  });
});

describe("CSV", () => {
  test("a header and one row per paper", () => {
    const text = toCsv([EUROPARL, MALT]);
    const rows = text.split("\r\n");
    assert.equal(rows.at(-1), "");
    assert.equal(rows[0], "rank,score,corpus,id,title,authors,year,venue,url,facets");
    assert.equal(
      rows[1],
      `,,acl-citegraph,2005.mtsummit-papers.11,Europarl: A Parallel Corpus for Statistical Machine Translation,Philipp Koehn,2005,Proceedings of Machine Translation Summit X: Papers,https://aclanthology.org/2005.mtsummit-papers.11,`,
    );
    assert.equal(
      rows[2],
      `2,0.0312346,acl-citegraph,${MALT.externalId},MaltParser: A Data-Driven Parser-Generator for Dependency Parsing,Joakim Nivre; Johan Hall; Jens Nilsson,2006,Proceedings of the Fifth International Conference on Language Resources and Evaluation (LREC'06),${MALT.externalId},results#4 methods#1`,
    );
  });

  test("a result of several seeds: its facets and a seeds column (seed id, else seed N, and the rank in that seed's list)", () => {
    const rows = toCsv([SEEDED, { ...SEEDED, externalId: "P19-1543", seeds: [] }]).split("\r\n");
    assert.equal(rows[0], "rank,score,corpus,id,title,authors,year,venue,url,facets,seeds");
    const header = rows[0].split(",");
    const [row, none] = [rows[1].split(","), rows[2].split(",")];
    assert.equal(row.length, header.length);
    assert.equal(row[header.indexOf("facets")], "results methods");
    assert.equal(row[header.indexOf("seeds")], "C16-1030#3 seed3#7");
    assert.equal(none[header.indexOf("seeds")], "");
  });
});

describe("JSON and files", () => {
  test("JSON round-trips the records with their URLs and optional context", () => {
    const parsed = JSON.parse(toJson([EUROPARL, MALT], { query: { title: "Q" } }));
    assert.deepEqual(parsed.query, { title: "Q" });
    assert.equal(parsed.papers.length, 2);
    assert.deepEqual(parsed.papers[1].facets, MALT.facets);
    assert.equal(parsed.papers[0].url, "https://aclanthology.org/2005.mtsummit-papers.11");
    const [seeded] = JSON.parse(toJson([SEEDED])).papers;
    assert.deepEqual(seeded.seeds, SEEDED.seeds);
  });

  test("file names, types and ACL URLs", () => {
    assert.equal(fileSlug("Europarl: A Parallel Corpus — für SMT!"), "europarl-a-parallel-corpus-fur-smt");
    assert.equal(fileSlug("!!!"), "papers");
    const f = exportFile("bibtex", [EUROPARL], "Europarl");
    assert.equal(f.filename, "graft-europarl.bib");
    assert.match(f.mime, /^application\/x-bibtex/);
    assert.equal(exportFile("ris", [EUROPARL], "x").filename, "graft-x.ris");
    assert.equal(paperUrl("P19-1542"), "https://aclanthology.org/P19-1542");
    assert.equal(paperUrl("2020.acl-main.1"), "https://aclanthology.org/2020.acl-main.1");
    assert.equal(paperUrl("local-1"), null);
  });
});
