import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ApiErrorBody } from "@/lib/http";
import { bareDoi, inLibrary, libraryIndex, libraryMatch, normalisedTitle, type Library, type LibraryEntry } from "./library";
import { handleLibraryUpload, LibraryFileError, libraryFormat, readLibraryFile } from "./library-file";

const entry = (e: Partial<LibraryEntry>): LibraryEntry => ({ key: "k", doi: null, title: "", year: null, line: 1, ...e });

describe("library matcher", () => {
  test("DOIs compare bare and case-insensitively, from a DOI, a doi.org URL or an id that is a DOI", () => {
    assert.equal(bareDoi("https://doi.org/10.18653/V1/N19-1423."), "10.18653/v1/n19-1423");
    assert.equal(bareDoi("P18-1001"), null);
    const index = libraryIndex([entry({ doi: "10.18653/v1/N19-1423", title: "Something else entirely", year: 2001 })]);
    assert.equal(libraryMatch(index, { externalId: "10.18653/v1/n19-1423", title: "BERT", year: 2019 }), "doi");
    assert.equal(libraryMatch(index, { externalId: "N19-1423", doi: "https://doi.org/10.18653/v1/n19-1423", title: "BERT", year: 2019 }), "doi");
    assert.equal(libraryMatch(index, { externalId: "N19-1424", title: "BERT", year: 2019 }), null);
  });

  test("titles match after accents, case, punctuation and braces are dropped, and only with the same year", () => {
    assert.equal(normalisedTitle("{BERT}: Pre-training of Deep  Bidirectional Transformers"), "bert pre training of deep bidirectional transformers");
    assert.equal(normalisedTitle("Café — Über"), "cafe uber");
    const index = libraryIndex([
      entry({ title: "{BERT}: Pre-training of Deep Bidirectional Transformers", year: 2019 }),
      entry({ title: "Introduction", year: null }),
    ]);
    const bert = { externalId: "N19-1423", title: "BERT - pre-training of deep bidirectional transformers", year: 2019 };
    assert.equal(libraryMatch(index, bert), "title-year");
    assert.equal(libraryMatch(index, { ...bert, year: 2018 }), null, "another year is another paper");
    assert.equal(libraryMatch(index, { ...bert, year: null }), null, "a paper without a year never matches by title");
    assert.equal(libraryMatch(index, { externalId: "x", title: "Introduction", year: 2019 }), null, "an entry without a year matches nothing by title");
  });

  test("inLibrary lists the matching papers of a result set with how each matched", () => {
    const index = libraryIndex([entry({ doi: "10.1000/a" }), entry({ title: "Paper B", year: 2020 })]);
    const marks = inLibrary(index, [
      { externalId: "10.1000/A", title: "A", year: 2010 },
      { externalId: "b", title: "paper b.", year: 2020 },
      { externalId: "c", title: "Paper C", year: 2020 },
    ]);
    assert.deepEqual(
      [...marks],
      [
        ["10.1000/A", "doi"],
        ["b", "title-year"],
      ],
    );
    assert.equal(libraryIndex([]).size, 0);
  });
});

const BIB = `@inproceedings{devlin2019,
  title = {{BERT}: Pre-training of Deep Bidirectional Transformers},
  author = {Devlin, Jacob and Chang, Ming-Wei},
  year = {2019},
  doi = {10.18653/v1/N19-1423}
}

@article{koehn2005,
  title = {Europarl: A Parallel Corpus for Statistical Machine Translation},
  year = 2005
}
`;

const RIS = [
  "TY  - CONF",
  "ID  - europarl",
  "TI  - Europarl: A Parallel Corpus for Statistical Machine Translation",
  "PY  - 2005",
  "DO  - 10.1000/europarl",
  "ER  - ",
  "",
].join("\n");

const bytes = (s: string) => new TextEncoder().encode(s);

describe("library files (the corpus importers' readers)", () => {
  test("a BibTeX library: keys, DOIs, decoded titles, years and lines", async () => {
    const lib = await readLibraryFile("my.bib", bytes(BIB));
    assert.equal(lib.format, "bibtex");
    assert.equal(lib.name, "my.bib");
    assert.deepEqual(lib.entries, [
      { key: "devlin2019", doi: "10.18653/v1/n19-1423", title: "BERT: Pre-training of Deep Bidirectional Transformers", year: 2019, line: 1 },
      { key: "koehn2005", doi: null, title: "Europarl: A Parallel Corpus for Statistical Machine Translation", year: 2005, line: 8 },
    ]);
  });

  test("a RIS library, recognised by its content when the name says nothing", async () => {
    assert.equal(libraryFormat("export.txt", `\n${RIS}`), "ris");
    assert.equal(libraryFormat("x", "% comment\n@article{a,"), "bibtex");
    assert.equal(libraryFormat("x.txt", "hello"), null);
    const lib = await readLibraryFile("export.txt", bytes(RIS));
    assert.equal(lib.format, "ris");
    assert.deepEqual(lib.entries, [
      { key: "europarl", doi: "10.1000/europarl", title: "Europarl: A Parallel Corpus for Statistical Machine Translation", year: 2005, line: 1 },
    ]);
  });

  test("malformed files are rejected with every problem at file:line", async () => {
    const broken = `${BIB}\n@article{notitle,\n  year = 2001\n}\n\n@article{devlin2019,\n  title = {Again},\n  year = 2019\n}\n`;
    await assert.rejects(readLibraryFile("broken.bib", bytes(broken)), (err: unknown) => {
      assert.ok(err instanceof LibraryFileError);
      assert.equal(err.code, "invalid_request");
      assert.match(err.message, /^broken\.bib is not a valid library \(2 problems\):/);
      assert.match(err.message, /broken\.bib:13: .*title/);
      assert.match(err.message, /broken\.bib:17: duplicate id "devlin2019" \(first on line 1\)/);
      return true;
    });
    await assert.rejects(readLibraryFile("open.ris", bytes("TY  - JOUR\nTI  - Never closed\n")), /open\.ris:1: record is not closed/);
    await assert.rejects(readLibraryFile("empty.bib", bytes("% nothing here\n")), /empty\.bib: contains no papers/);
    await assert.rejects(readLibraryFile("notes.txt", bytes("just some notes")), /notes\.txt: not a BibTeX \(\.bib\) or RIS \(\.ris\) file/);
  });
});

describe("POST /api/uploads/library", () => {
  const upload = (name: string, text: string) => {
    const form = new FormData();
    form.set("file", new File([text], name));
    return handleLibraryUpload(new Request("http://graft.test/api/uploads/library", { method: "POST", body: form }));
  };

  test("a good file answers the Library", async () => {
    const res = await upload("mine.bib", BIB);
    assert.equal(res.status, 200);
    const lib = (await res.json()) as Library;
    assert.deepEqual(
      lib.entries.map((e) => e.key),
      ["devlin2019", "koehn2005"],
    );
  });

  test("a bad file is a 400 invalid_request whose issues are file:line", async () => {
    const res = await upload("bad.ris", "TY  - JOUR\nTI  - Never closed\n");
    assert.equal(res.status, 400);
    const { error } = (await res.json()) as ApiErrorBody;
    assert.equal(error.code, "invalid_request");
    assert.deepEqual(error.issues, [{ path: "bad.ris:1", message: 'record is not closed: no "ER  - " line before the end of the file' }]);
  });

  test("no file field is a 400, another body type a 415", async () => {
    const form = new FormData();
    form.set("text", "x");
    const none = await handleLibraryUpload(new Request("http://graft.test/api/uploads/library", { method: "POST", body: form }));
    assert.equal(none.status, 400);
    assert.match(((await none.json()) as ApiErrorBody).error.message, /no "file" field/);
    const json = await handleLibraryUpload(
      new Request("http://graft.test/api/uploads/library", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }),
    );
    assert.equal(json.status, 415);
    assert.equal(((await json.json()) as ApiErrorBody).error.code, "unsupported_media_type");
  });
});
