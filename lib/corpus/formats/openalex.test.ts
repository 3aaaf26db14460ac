import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { readCorpus } from "../read";
import { abstractFromInvertedIndex, openAlexWorkId } from "./openalex";
import { located, rejected, useFixtureDir } from "./testing";

// OpenAlex works as the snapshot (data/works/updated_date=…/part_000.gz) and the API write them.

function inverted(text: string): Record<string, number[]> {
  const index: Record<string, number[]> = {};
  text.split(" ").forEach((w, i) => (index[w] ??= []).push(i));
  return index;
}

const work = (id: string, extra: Record<string, unknown> = {}) => ({
  id: `https://openalex.org/${id}`,
  doi: null,
  title: `Title of ${id}`,
  display_name: `Title of ${id}`,
  publication_year: 2019,
  publication_date: "2019-06-01",
  authorships: [{ author_position: "first", author: { id: "https://openalex.org/A1", display_name: "Zoë Ødegård" }, raw_author_name: "Z. Odegard" }],
  primary_location: { source: { id: "https://openalex.org/S1", display_name: "Proceedings of ACL" } },
  referenced_works: [],
  abstract_inverted_index: inverted(`The abstract of ${id} .`),
  ...extra,
});

const jsonl = (...values: unknown[]) => values.map((v) => JSON.stringify(v)).join("\n") + "\n";

describe("OpenAlex works", () => {
  const dir = useFixtureDir("graft-openalex-");

  test("abstracts rebuilt from the inverted index, short ids, citations inside the set only", async () => {
    const file = dir.write(
      "works.jsonl",
      jsonl(
        work("W1", {
          doi: "https://doi.org/10.18653/v1/N19-1423",
          title: "BERT: Pre-training of <i>Deep</i> Bidirectional Transformers",
          referenced_works: ["https://openalex.org/W2", "https://openalex.org/W3", "https://openalex.org/W999"],
          abstract_inverted_index: { We: [0], introduce: [1], "BERT,": [2], a: [3, 6], model: [4], "—": [5], "model.": [7] },
        }),
        work("W2", { referenced_works: ["https://openalex.org/W3", "https://openalex.org/W2"], primary_location: null, host_venue: { display_name: "NAACL" } }),
        work("W3", { abstract_inverted_index: null, publication_year: null, publication_date: "2018-02-15", authorships: [] }),
      ),
    );
    const corpus = await readCorpus(file);
    assert.equal(corpus.format, "openalex");
    assert.deepEqual(
      corpus.papers.map((p) => [p.externalId, p.title, p.year, p.venue, p.authors]),
      [
        ["W1", "BERT: Pre-training of Deep Bidirectional Transformers", 2019, "Proceedings of ACL", ["Zoë Ødegård"]],
        ["W2", "Title of W2", 2019, "NAACL", ["Zoë Ødegård"]],
        ["W3", "Title of W3", 2018, "Proceedings of ACL", []],
      ],
    );
    assert.equal(corpus.papers[0].abstract, "We introduce BERT, a model — a model.");
    assert.equal(corpus.papers[2].abstract, "", "no abstract: imported with an empty one");
    assert.deepEqual(corpus.citations, [
      { citing: "W1", cited: "W2" },
      { citing: "W1", cited: "W3" },
      { citing: "W2", cited: "W3" },
    ]);
    assert.deepEqual(located(corpus.notices ?? []), [
      "works.jsonl: 1 reference to works outside the imported set left out (only citations between imported papers become corpus citations)",
      "works.jsonl: 1 self-citation left out",
    ]);
    assert.ok(corpus.files.citations, "citations come with the works: stored ones are synced to them");
  });

  test("a snapshot directory of gzipped part files, named by their path in messages", async () => {
    dir.write(
      "snapshot/works/updated_date=2024-01-01/part_000.gz",
      gzipSync(jsonl(work("W10"), work("W11", { referenced_works: ["https://openalex.org/W10"] }))),
    );
    dir.write("snapshot/works/updated_date=2024-01-02/part_000.gz", gzipSync(jsonl(work("W12", { publication_year: 801 }))));
    dir.write("snapshot/works/updated_date=2024-01-02/manifest", JSON.stringify({ entries: [] }));
    const corpus = await readCorpus(`${dir.root}/snapshot/works`);
    assert.equal(corpus.format, "openalex");
    assert.deepEqual(
      corpus.papers.map((p) => [p.externalId, p.year]),
      [
        ["W10", 2019],
        ["W11", 2019],
        ["W12", null],
      ],
    );
    assert.deepEqual(corpus.citations, [{ citing: "W11", cited: "W10" }]);
    assert.deepEqual(located(corpus.notices ?? []), [
      "updated_date=2024-01-02/part_000.gz:1: year 801 is outside 1000–2100: imported without a year (fix it in the source to keep it)",
    ]);
  });

  test("malformed works: every problem located, nothing read", async () => {
    const file = dir.write(
      "bad.jsonl",
      [
        JSON.stringify(work("W1")),
        '{"id": "https://openalex.org/W2", "title": ', // truncated JSON
        JSON.stringify(work("A5027327036")), // an author, not a work
        JSON.stringify(work("W4", { title: null, display_name: null })),
        JSON.stringify(work("W5", { abstract_inverted_index: { word: ["one"] } })),
        JSON.stringify(work("W1")),
      ].join("\n"),
    );
    const issues = located(await rejected(file, { format: "openalex" }));
    assert.equal(issues.length, 5, issues.join("\n"));
    assert.match(issues[0], /^bad\.jsonl:2: invalid JSON/);
    assert.equal(issues[1], 'bad.jsonl:3: "id" must be an OpenAlex work id such as "https://openalex.org/W2741809807", got "https://openalex.org/A5027327036"');
    assert.equal(issues[2], 'bad.jsonl:4: "title" is missing');
    assert.equal(issues[3], 'bad.jsonl:5: "abstract_inverted_index" must list word positions as non-negative integers, got an array for "word"');
    assert.equal(issues[4], 'bad.jsonl:6: duplicate id "W1" (first on line 1)');
  });

  test("ids and inverted indexes", () => {
    assert.equal(openAlexWorkId("https://openalex.org/W2741809807"), "W2741809807");
    assert.equal(openAlexWorkId("w123"), "W123");
    assert.equal(openAlexWorkId("https://api.openalex.org/works/W5"), "W5");
    assert.equal(openAlexWorkId("https://openalex.org/A1"), null);
    assert.deepEqual(abstractFromInvertedIndex({ b: [1], a: [0], c: [3] }), { text: "a b c" });
    assert.deepEqual(abstractFromInvertedIndex(null), { text: null });
    assert.deepEqual(abstractFromInvertedIndex({}), { text: null });
  });
});
