import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parsePaperRecord } from "@/lib/corpus";
import { paperFromJson } from "./json";
import { STATUS_OF_CODE } from "@/lib/http/status";
import { inputError } from "./testing";

const ABSTRACT = "We find related work by comparing the problems, methods and results of papers, facet by facet, over a typed graph.";

describe("paperFromJson", () => {
  test("a valid record with facets and no id", () => {
    const p = paperFromJson(
      JSON.stringify({
        title: "Facet-Aware Retrieval",
        abstract: ABSTRACT,
        year: 2024,
        authors: ["Ada Lovelace"],
        facets: { results: ["higher recall"], methods: ["graph fusion", " "], problems: ["finding related work"] },
      }),
    );
    assert.equal(p.title, "Facet-Aware Retrieval");
    assert.equal(p.abstract, ABSTRACT);
    assert.equal(p.source, "json");
    // The schema's own cleaning: facets in FACETS order, blank items dropped.
    assert.deepEqual(p.facets, { problems: ["finding related work"], methods: ["graph fusion"], results: ["higher recall"] });
    assert.deepEqual(Object.keys(p.facets ?? {}), ["problems", "methods", "results"]);
    assert.deepEqual(p.metadata, { externalId: null, authors: ["Ada Lovelace"], year: 2024, venue: null });
    assert.equal(p.body, "");
  });

  test("an id, when given, is kept; numeric ids become strings as in the corpus", () => {
    assert.equal(paperFromJson(JSON.stringify({ id: "P19-1001", title: "T", abstract: ABSTRACT })).metadata?.externalId, "P19-1001");
    assert.equal(paperFromJson(JSON.stringify({ id: 42, title: "T", abstract: ABSTRACT })).metadata?.externalId, "42");
  });

  test("with facets, a title alone is enough; without, the text must reach minChars", () => {
    assert.doesNotThrow(() => paperFromJson(JSON.stringify({ title: "T", facets: { methods: ["m"] } })));
    const err = inputError(() => paperFromJson(JSON.stringify({ title: "T", abstract: "Short." })));
    assert.equal(err.code, "too_short");
    assert.match(err.message, /"abstract"/);
  });

  test("full text is split into sections and references, and stays out of the abstract", () => {
    const fullText = `Abstract\n${ABSTRACT}\n\n1 Introduction\nWe start here.\n\n2 Method\nWe go on.\n\nReferences\n[1] A. Author. A cited title. Venue, 2020.\n`;
    const p = paperFromJson(JSON.stringify({ title: "T", abstract: ABSTRACT, full_text: fullText }));
    assert.equal(p.abstract, ABSTRACT);
    assert.deepEqual(p.sections, [
      { heading: "1 Introduction", text: "We start here." },
      { heading: "2 Method", text: "We go on." },
    ]);
    assert.deepEqual(p.references, ["A cited title"]);
    assert.equal(p.body, "1 Introduction\n\nWe start here.\n\n2 Method\n\nWe go on.");
  });

  test("an invalid record -> invalid_record with the schema's own sentences", () => {
    const record = { title: "", year: "2019", facets: { method: ["m"] } };
    const err = inputError(() => paperFromJson(JSON.stringify(record)));
    assert.equal(err.code, "invalid_record");
    assert.equal(STATUS_OF_CODE[err.code], 422);
    const schema = parsePaperRecord({ ...record, id: "x" });
    assert.ok(!schema.ok);
    assert.deepEqual(err.details, schema.errors);
    assert.ok(err.details.length >= 3, err.details.join(" | "));
    assert.ok(err.details.some((d) => d.includes('unknown facet "method"')));
    for (const d of err.details) assert.ok(err.message.includes(d));
  });

  test("not an object -> invalid_record", () => {
    const err = inputError(() => paperFromJson("[1, 2]"));
    assert.equal(err.code, "invalid_record");
    assert.match(err.message, /must be a JSON object/);
  });

  test("malformed JSON -> invalid_json (400) with the parser's reason", () => {
    const err = inputError(() => paperFromJson('{"title": "T",}'));
    assert.equal(err.code, "invalid_json");
    assert.equal(STATUS_OF_CODE[err.code], 400);
    assert.match(err.message, /^The input is not valid JSON \(.+\); give one paper/);
  });

  test("several JSON lines -> invalid_json saying one paper at a time", () => {
    const line = JSON.stringify({ title: "T", abstract: ABSTRACT });
    const err = inputError(() => paperFromJson(`${line}\n${line}\n`));
    assert.equal(err.code, "invalid_json");
    assert.match(err.message, /2 JSON records, one per line; give one paper at a time/);
  });

  test("empty -> empty; over maxBytes -> too_large", () => {
    assert.equal(inputError(() => paperFromJson(" \n")).code, "empty");
    assert.equal(inputError(() => paperFromJson(JSON.stringify({ title: "T", abstract: ABSTRACT }), { maxBytes: 50 })).code, "too_large");
  });
});
