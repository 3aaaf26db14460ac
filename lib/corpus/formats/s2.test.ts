import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { readCorpus } from "../read";
import { located, rejected, useFixtureDir } from "./testing";

// Semantic Scholar's dataset files in their release shapes: papers, abstracts, citations.

const paper = (corpusid: number, extra: Record<string, unknown> = {}) => ({
  corpusid,
  externalids: { DOI: `10.1/${corpusid}`, CorpusId: String(corpusid), ArXiv: null },
  url: `https://www.semanticscholar.org/paper/${corpusid}`,
  title: `Paper ${corpusid}`,
  authors: [{ authorId: "1", name: "José Martínez" }],
  venue: "ACL",
  publicationvenueid: null,
  year: 2020,
  referencecount: 2,
  citationcount: 0,
  influentialcitationcount: 0,
  isopenaccess: false,
  s2fieldsofstudy: [{ category: "Computer Science", source: "s2-fos-model" }],
  publicationtypes: ["Conference"],
  publicationdate: "2020-07-01",
  journal: null,
  updated: "2023-03-14T00:00:00Z",
  ...extra,
});
const abstract = (corpusid: number, text: string | null) => ({
  corpusid,
  abstract: text,
  openaccessinfo: { externalids: {}, license: null, url: null, status: null },
  updated: "2023-03-14T00:00:00Z",
});
const cite = (citing: number, cited: number | null) => ({
  citationid: citing * 1000 + (cited ?? 0),
  citingcorpusid: citing,
  citedcorpusid: cited,
  isinfluential: false,
  contexts: null,
  intents: null,
  updated: "2023-03-14T00:00:00Z",
});
const jsonl = (...values: unknown[]) => values.map((v) => JSON.stringify(v)).join("\n") + "\n";

describe("Semantic Scholar datasets", () => {
  const dir = useFixtureDir("graft-s2-");

  test("a directory of papers, abstracts and citations; only the imported papers' abstracts and citations", async () => {
    dir.write(
      "release/papers.jsonl",
      jsonl(paper(10), paper(11, { venue: "", journal: { name: "Computational Linguistics", volume: "4" } }), paper(12, { year: null, publicationdate: null })),
    );
    dir.write("release/abstracts.jsonl", jsonl(abstract(10, "Ein Überblick über Übersetzung."), abstract(99, "someone else's"), abstract(12, null)));
    dir.write("release/citations.jsonl", jsonl(cite(10, 11), cite(10, 12), cite(10, null), cite(11, 999), cite(98, 10), cite(10, 11)));
    for (const path of [`${dir.root}/release`, `${dir.root}/release/papers.jsonl`]) {
      const corpus = await readCorpus(path);
      assert.equal(corpus.format, "s2");
      assert.deepEqual(
        corpus.papers.map((p) => [p.externalId, p.title, p.abstract, p.year, p.venue, p.authors]),
        [
          ["10", "Paper 10", "Ein Überblick über Übersetzung.", 2020, "ACL", ["José Martínez"]],
          ["11", "Paper 11", "", 2020, "Computational Linguistics", ["José Martínez"]],
          ["12", "Paper 12", "", null, "ACL", ["José Martínez"]],
        ],
      );
      assert.deepEqual(corpus.citations, [
        { citing: "10", cited: "11" },
        { citing: "10", cited: "12" },
      ]);
      assert.deepEqual(located(corpus.notices ?? []), [
        "citations.jsonl: 2 references to works outside the imported set left out (only citations between imported papers become corpus citations)",
      ]);
    }
  });

  test("the release's shard folders (gzipped, no extension)", async () => {
    dir.write("shards/papers/20230314_0001", gzipSync(jsonl(paper(1), paper(2))));
    dir.write("shards/papers/20230314_0002", gzipSync(jsonl(paper(3))));
    dir.write("shards/abstracts/20230314_0001", gzipSync(jsonl(abstract(3, "Three."))));
    dir.write("shards/citations/20230314_0001", gzipSync(jsonl(cite(3, 1), cite(2, 1))));
    const corpus = await readCorpus(`${dir.root}/shards`);
    assert.equal(corpus.format, "s2");
    assert.deepEqual(
      corpus.papers.map((p) => [p.externalId, p.abstract]),
      [
        ["1", ""],
        ["2", ""],
        ["3", "Three."],
      ],
    );
    assert.deepEqual(corpus.citations, [
      { citing: "3", cited: "1" },
      { citing: "2", cited: "1" },
    ]);
  });

  test("malformed lines in any of the files are located; nothing is read", async () => {
    dir.write(
      "bad/papers.jsonl",
      [JSON.stringify(paper(1)), JSON.stringify({ ...paper(2), corpusid: undefined }), JSON.stringify(paper(3, { title: "" })), "{oops"].join("\n"),
    );
    dir.write("bad/abstracts.jsonl", jsonl(abstract(1, "fine"), { corpusid: 1, abstract: 42 }));
    dir.write("bad/citations.jsonl", jsonl(cite(1, 3), { citingcorpusid: "x", citedcorpusid: 1 }));
    const issues = located(await rejected(`${dir.root}/bad`));
    assert.equal(issues.length, 5, issues.join("\n"));
    assert.deepEqual(issues.slice(0, 2), ['papers.jsonl:2: "corpusid" is missing', 'papers.jsonl:3: "title" must not be empty']);
    assert.match(issues[2], /^papers\.jsonl:4: invalid JSON/);
    assert.deepEqual(issues.slice(3), [
      'abstracts.jsonl:2: "abstract" must be a string, got 42',
      'citations.jsonl:2: "citingcorpusid" must be a corpus id, got "x"',
    ]);
  });

  test("the abstracts file alone is not a corpus", async () => {
    dir.write("only/abstracts.jsonl", jsonl(abstract(1, "x")));
    await assert.rejects(readCorpus(`${dir.root}/only/abstracts.jsonl`), /is the abstracts dataset: give the papers file/);
  });
});
