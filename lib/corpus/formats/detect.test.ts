import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { detectFormat, sniffLine } from "./detect";
import { useFixtureDir } from "./testing";

describe("telling the format of an input", () => {
  const dir = useFixtureDir("graft-detect-");

  test("first lines of each format", () => {
    assert.equal(sniffLine("TY  - JOUR"), "ris");
    assert.equal(sniffLine("@article{key,"), "bibtex");
    assert.equal(sniffLine('{"corpusid": 1, "title": "T"}'), "s2");
    assert.equal(sniffLine('{"id": "https://openalex.org/W1", "title": "T"}'), "openalex");
    assert.equal(sniffLine('{"id": "0704.0001", "title": "T", "categories": "hep-ph", "versions": []}'), "arxiv");
    assert.equal(sniffLine('{"id": "P19-1001", "title": "T", "abstract": "A"}'), "graft");
    assert.equal(sniffLine("id,title"), null);
    assert.equal(sniffLine("{not json"), null);
  });

  test("from names, content and layouts", async () => {
    assert.equal(await detectFormat(dir.write("a.bib", "% JabRef\n\n@misc{a, title={A}}\n")), "bibtex");
    assert.equal(await detectFormat(dir.write("a.bib.gz", gzipSync("@misc{a, title={A}}\n"))), "bibtex");
    assert.equal(await detectFormat(dir.write("export.txt", "\nTY  - JOUR\nTI  - A\nER  - \n")), "ris");
    assert.equal(await detectFormat(dir.write("library.ris", "")), "ris");
    assert.equal(await detectFormat(dir.write("snapshot.json", '{"id":"1","title":"T","categories":"cs.CL","authors_parsed":[]}\n')), "arxiv");
    assert.equal(await detectFormat(dir.write("part_000.gz", gzipSync('{"id":"https://openalex.org/W1"}\n'))), "openalex");
    assert.equal(await detectFormat(dir.write("papers.jsonl", '{"id":"a","title":"A"}\n')), "graft");
    assert.equal(await detectFormat(dir.write("broken.jsonl", "{oops\n")), "graft", "a .jsonl whose first line is broken: the graft reader says where");
    dir.write("s2/papers.jsonl", '{"corpusid": 1}\n');
    assert.equal(await detectFormat(`${dir.root}/s2`), "s2");
    dir.write("s2shards/papers/0001", gzipSync('{"corpusid": 1}\n'));
    assert.equal(await detectFormat(`${dir.root}/s2shards`), "s2");
    dir.write("oa/works/updated_date=2024-01-01/part_000.gz", gzipSync('{"id":"https://openalex.org/W1"}\n'));
    assert.equal(await detectFormat(`${dir.root}/oa`), "openalex");
    dir.write("graftdir/papers.jsonl", '{"id":"a","title":"A"}\n');
    assert.equal(await detectFormat(`${dir.root}/graftdir`), "graft");
  });

  test("ambiguous or unknown inputs ask for --format", async () => {
    await assert.rejects(detectFormat(dir.write("odd.bib", "TY  - JOUR\n")), /named like BibTeX but its first line looks like RIS: give --format/);
    await assert.rejects(
      detectFormat(dir.write("papers.csv", "id,title\n")),
      /Not a corpus: .*papers\.csv\. Its format cannot be told .* give --format graft\|bibtex\|ris\|openalex\|s2\|arxiv/,
    );
  });
});
