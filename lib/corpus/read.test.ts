import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { readLines } from "./lines";
import { parsePaperRecord } from "./paper-schema";
import { CorpusFormatError, PROGRESS_LINES, readCorpus, resolveCorpusFiles, type CorpusInput } from "./read";
import { FACETS, type InputIssue } from "./types";
import { sharedDataDir } from "./paths";

const dataDir = sharedDataDir();

let root = "";
before(() => {
  root = mkdtempSync(path.join(tmpdir(), "graft-corpus-test-"));
});
after(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A fresh corpus directory holding the given files. */
function corpusDir(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(path.join(root, "c-"));
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  return dir;
}

function paperLine(id: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id,
    title: `Title of ${id}`,
    abstract: `Abstract of ${id}.`,
    year: 2019,
    venue: "ACL",
    authors: ["Ada Lovelace"],
    split: "train",
    facets: { problems: ["p"], methods: ["m"], results: ["r"], contributions: ["c"] },
    ...extra,
  });
}

const lines = (...ls: string[]) => ls.join("\n") + "\n";
const threePapers = lines(paperLine("a"), paperLine("b"), paperLine("c"));

async function issuesOf(p: string, options?: { maxIssues?: number }): Promise<CorpusFormatError> {
  try {
    await readCorpus(p, options);
  } catch (err) {
    assert.ok(err instanceof CorpusFormatError, `expected CorpusFormatError, got ${String(err)}`);
    return err;
  }
  assert.fail("readCorpus should have thrown");
}

/** Asserts exactly one issue, at file:line, whose message contains `part`. */
async function expectOneIssue(p: string, file: string, line: number, part: string): Promise<InputIssue> {
  const { issues } = await issuesOf(p);
  assert.equal(issues.length, 1, `issues: ${JSON.stringify(issues)}`);
  const [issue] = issues;
  assert.equal(issue.file, file);
  assert.equal(issue.line, line);
  assert.ok(issue.message.includes(part), `"${issue.message}" should contain "${part}"`);
  return issue;
}

/** Asserts a one-line papers.jsonl whose 2nd line is `bad` yields exactly `message`. */
async function expectPaperError(bad: string, message: string): Promise<void> {
  const dir = corpusDir({ "papers.jsonl": lines(paperLine("a"), bad) });
  const issue = await expectOneIssue(dir, "papers.jsonl", 2, message);
  assert.equal(issue.message, message);
}

describe("paper line errors", () => {
  test("malformed JSON", async () => {
    const dir = corpusDir({ "papers.jsonl": lines(paperLine("a"), '{"id": "b", "title": }') });
    await expectOneIssue(dir, "papers.jsonl", 2, "invalid JSON");
  });

  test("not an object", async () => {
    await expectPaperError("[1, 2]", "a paper must be a JSON object, got an array");
    await expectPaperError('"P19-1001"', 'a paper must be a JSON object, got "P19-1001"');
  });

  test("missing, empty or null id", async () => {
    await expectPaperError(JSON.stringify({ title: "T" }), '"id" is missing');
    await expectPaperError(JSON.stringify({ id: "  ", title: "T" }), '"id" must not be empty');
    await expectPaperError(JSON.stringify({ id: null, title: "T" }), '"id" must be a non-empty string, got null');
    await expectPaperError(JSON.stringify({ id: 1.5, title: "T" }), '"id" must be a non-empty string, got 1.5');
  });

  test("missing or empty title", async () => {
    await expectPaperError(JSON.stringify({ id: "b" }), '"title" is missing');
    await expectPaperError(JSON.stringify({ id: "b", title: "" }), '"title" must not be empty');
  });

  test("year not an integer in range", async () => {
    await expectPaperError(paperLine("b", { year: "2019a" }), '"year" must be an integer, got "2019a"');
    await expectPaperError(paperLine("b", { year: 2019.5 }), '"year" must be an integer, got 2019.5');
    await expectPaperError(
      paperLine("b", { year: 20190 }),
      '"year" must be between 1000 and 2100, got 20190: fix the year or leave it out (the paper is then imported with the year unknown), or skip such lines with --skip-invalid',
    );
  });

  test("authors not an array of strings", async () => {
    await expectPaperError(paperLine("b", { authors: "Ada Lovelace" }), '"authors" must be an array of strings, got "Ada Lovelace"');
    await expectPaperError(paperLine("b", { authors: ["Ada", 7] }), '"authors[1]" must be a string, got 7');
  });

  test("facet lists not arrays of strings", async () => {
    await expectPaperError(paperLine("b", { facets: { methods: "one method" } }), '"facets.methods" must be an array of strings, got "one method"');
    await expectPaperError(paperLine("b", { facets: { results: ["ok", null] } }), '"facets.results[1]" must be a string, got null');
    await expectPaperError(
      paperLine("b", { facets: ["p"] }),
      '"facets" must be an object with the lists problems, methods, results, contributions, got an array',
    );
  });

  test("split not train/dev/test", async () => {
    await expectPaperError(paperLine("b", { split: "validation" }), '"split" must be one of "train", "dev", "test", got "validation"');
  });

  test("unknown facet name says which and lists the valid ones", async () => {
    await expectPaperError(
      paperLine("b", { facets: { problem: ["p"], methods: ["m"] } }),
      'unknown facet "problem" in "facets"; valid facets are problems, methods, results, contributions',
    );
  });

  test("full text given twice", async () => {
    await expectPaperError(paperLine("b", { full_text: "x", fullText: "y" }), 'give the full text as either "full_text" or "fullText", not both');
  });

  test("several problems on one line are reported one sentence each", async () => {
    const dir = corpusDir({ "papers.jsonl": lines(JSON.stringify({ id: "a", year: "x", split: "all" })) });
    const { issues } = await issuesOf(dir);
    assert.deepEqual(
      issues.map((i) => `${i.line}: ${i.message}`),
      ['1: "title" is missing', '1: "year" must be an integer, got "x"', '1: "split" must be one of "train", "dev", "test", got "all"'],
    );
  });

  test("duplicate paper id names the first line", async () => {
    const dir = corpusDir({ "papers.jsonl": lines(paperLine("a"), paperLine("b"), paperLine("a")) });
    await expectOneIssue(dir, "papers.jsonl", 3, 'duplicate id "a" (first on line 1)');
  });

  test("an empty papers file is an error", async () => {
    const dir = corpusDir({ "papers.jsonl": "\n\n" });
    await expectOneIssue(dir, "papers.jsonl", 0, "contains no papers");
  });
});

describe("TSV errors", () => {
  test("citations.tsv with a wrong header", async () => {
    const dir = corpusDir({ "papers.jsonl": threePapers, "citations.tsv": lines("source\ttarget", "a\tb") });
    await expectOneIssue(dir, "citations.tsv", 1, 'header must be "citing<TAB>cited", got "source\\ttarget"');
  });

  test("ooc-gold.tsv with a wrong header", async () => {
    const dir = corpusDir({
      "papers.jsonl": threePapers,
      "ooc-queries.jsonl": lines(paperLine("q1")),
      "ooc-gold.tsv": lines("citing\tcited", "q1\ta"),
    });
    await expectOneIssue(dir, "ooc-gold.tsv", 1, 'header must be "query<TAB>cited"');
  });

  test("wrong column count", async () => {
    const dir = corpusDir({ "papers.jsonl": threePapers, "citations.tsv": lines("citing\tcited", "a\tb", "a\tb\tc", "a") });
    const { issues } = await issuesOf(dir);
    assert.deepEqual(
      issues.map((i) => [i.file, i.line, i.message]),
      [
        ["citations.tsv", 3, "expected 2 tab-separated columns (citing, cited), got 3"],
        ["citations.tsv", 4, "expected 2 tab-separated columns (citing, cited), got 1"],
      ],
    );
  });

  test("citation naming an id not in papers says which id", async () => {
    const dir = corpusDir({ "papers.jsonl": threePapers, "citations.tsv": lines("citing\tcited", "a\tb", "a\tzzz") });
    await expectOneIssue(dir, "citations.tsv", 3, 'unknown cited paper "zzz" (not in papers.jsonl)');
    const dir2 = corpusDir({ "papers.jsonl": threePapers, "citations.tsv": lines("citing\tcited", "yyy\tb") });
    await expectOneIssue(dir2, "citations.tsv", 2, 'unknown citing paper "yyy"');
  });

  test("gold row naming an unknown query", async () => {
    const dir = corpusDir({
      "papers.jsonl": threePapers,
      "ooc-queries.jsonl": lines(paperLine("q1")),
      "ooc-gold.tsv": lines("query\tcited", "q1\ta", "q9\ta"),
    });
    await expectOneIssue(dir, "ooc-gold.tsv", 3, 'unknown query "q9" (not in ooc-queries.jsonl)');
  });

  test("gold row naming an unknown corpus paper", async () => {
    const dir = corpusDir({
      "papers.jsonl": threePapers,
      "ooc-queries.jsonl": lines(paperLine("q1")),
      "ooc-gold.tsv": lines("query\tcited", "q1\tnope"),
    });
    await expectOneIssue(dir, "ooc-gold.tsv", 2, 'unknown cited paper "nope" (not in papers.jsonl)');
  });

  test("a query that is also a corpus paper", async () => {
    const dir = corpusDir({ "papers.jsonl": threePapers, "ooc-queries.jsonl": lines(paperLine("q1"), paperLine("b")) });
    await expectOneIssue(dir, "ooc-queries.jsonl", 2, 'query id "b" is also a corpus paper (papers.jsonl:2)');
  });
});

describe("error reporting", () => {
  test("all issues from all files in one error, message as file:line: message", async () => {
    const dir = corpusDir({
      "papers.jsonl": lines(paperLine("a"), "{", paperLine("c", { year: "soon" })),
      "citations.tsv": lines("citing\tcited", "a\tc", "a\tx"),
    });
    const err = await issuesOf(dir);
    assert.deepEqual(
      err.issues.map((i) => `${i.file}:${i.line}`),
      ["papers.jsonl:2", "papers.jsonl:3", "citations.tsv:3"],
    );
    assert.match(err.message, /^Corpus input is invalid: 3 issues:/);
    assert.ok(err.message.includes('papers.jsonl:3: "year" must be an integer, got "soon"'));
    assert.ok(err.message.includes('citations.tsv:3: unknown cited paper "x"'));
    assert.equal(err.name, "CorpusFormatError");
  });

  test("a line rejected for another field does not also break its citations", async () => {
    const dir = corpusDir({
      "papers.jsonl": lines(paperLine("a"), paperLine("b", { split: "nope" })),
      "citations.tsv": lines("citing\tcited", "a\tb"),
    });
    await expectOneIssue(dir, "papers.jsonl", 2, '"split" must be one of');
  });

  test("message lists the first 20 and says how many more; maxIssues stops early", async () => {
    const bad = Array.from({ length: 30 }, (_, i) => JSON.stringify({ id: `p${i}` }));
    const dir = corpusDir({ "papers.jsonl": lines(...bad) });
    const err = await issuesOf(dir);
    assert.equal(err.issues.length, 30);
    assert.equal(err.message.split("\n").filter((l) => l.includes('"title" is missing')).length, 20);
    assert.ok(err.message.includes("... and 10 more"));

    const capped = await issuesOf(dir, { maxIssues: 5 });
    assert.equal(capped.issues.length, 5);
    assert.deepEqual(
      capped.issues.map((i) => i.line),
      [1, 2, 3, 4, 5],
    );
    assert.match(capped.message, /stopped after 5 issues/);
  });
});

describe("skipped lines", () => {
  test("blank lines, duplicate citation rows and self-citations are skipped with a reason", async () => {
    const dir = corpusDir({
      "papers.jsonl": lines(paperLine("a"), "", paperLine("b"), "   ", paperLine("c")),
      "citations.tsv": lines("citing\tcited", "a\tb", "", "b\tb", "a\tb", "c\ta"),
    });
    const corpus = await readCorpus(dir);
    assert.deepEqual(
      corpus.papers.map((p) => p.externalId),
      ["a", "b", "c"],
    );
    assert.deepEqual(corpus.citations, [
      { citing: "a", cited: "b" },
      { citing: "c", cited: "a" },
    ]);
    assert.deepEqual(
      corpus.skipped.map((s) => `${s.file}:${s.line}: ${s.message}`),
      [
        "papers.jsonl:2: blank line",
        "papers.jsonl:4: blank line",
        "citations.tsv:3: blank line",
        'citations.tsv:4: self-citation of "b"',
        "citations.tsv:5: duplicate of line 2",
      ],
    );
  });
});

describe("skipInvalid", () => {
  test("invalid paper lines and citations naming them are skipped with reasons instead of rejected", async () => {
    const dir = corpusDir({
      "papers.jsonl": lines(paperLine("a"), JSON.stringify({ id: null, title: "no id" }), "{oops", paperLine("b"), paperLine("a")),
      "citations.tsv": lines("citing\tcited", "a\tb", "b\tzz"),
    });
    const corpus = await readCorpus(dir, { skipInvalid: true });
    assert.deepEqual(
      corpus.papers.map((p) => p.externalId),
      ["a", "b"],
    );
    assert.deepEqual(corpus.citations, [{ citing: "a", cited: "b" }]);
    const where = corpus.skipped.map((s) => `${s.file}:${s.line}`);
    assert.deepEqual(where, ["papers.jsonl:2", "papers.jsonl:3", "papers.jsonl:5", "citations.tsv:3"]);
    assert.ok(corpus.skipped.every((s) => s.message.startsWith("skipped invalid line: ")));
    assert.match(corpus.skipped[0].message, /"id"/);
    assert.match(corpus.skipped[2].message, /duplicate id "a"/);
    // Without the option the same input is rejected.
    const err = await issuesOf(dir);
    assert.ok(err.issues.length >= 4);
  });
});

describe("formats", () => {
  test("gzip files, detected by magic bytes even without a .gz name", async () => {
    const gz = gzipSync(Buffer.from(threePapers));
    const named = corpusDir({ "papers.jsonl.gz": gz, "citations.tsv.gz": gzipSync(lines("citing\tcited", "a\tc")) });
    const a = await readCorpus(named);
    assert.equal(a.papers.length, 3);
    assert.deepEqual(a.citations, [{ citing: "a", cited: "c" }]);
    assert.ok(a.files.papers.endsWith("papers.jsonl.gz"));

    const disguised = corpusDir({ "papers.jsonl": gz });
    const b = await readCorpus(disguised);
    assert.deepEqual(
      b.papers.map((p) => p.externalId),
      ["a", "b", "c"],
    );
  });

  test("a truncated gzip is reported at the line where reading stopped", async () => {
    const big = Array.from({ length: 2000 }, (_, i) => paperLine(`p${i}`)).join("\n") + "\n";
    const gz = gzipSync(Buffer.from(big));
    const dir = corpusDir({ "papers.jsonl.gz": gz.subarray(0, Math.floor(gz.length / 2)) });
    const { issues } = await issuesOf(dir);
    const last = issues[issues.length - 1];
    assert.equal(last.file, "papers.jsonl.gz");
    assert.ok(last.line > 1 && last.line <= 2000);
    assert.match(last.message, /cannot read the file past this line: unexpected end of file/);
  });

  test("a plain JSONL of papers without facets or citations", async () => {
    const file = path.join(corpusDir({}), "papers.json-lines");
    writeFileSync(
      file,
      lines(
        JSON.stringify({ id: "x1", title: "  Only a title  " }),
        JSON.stringify({ id: 42, title: "Numeric id", abstract: null, year: null, venue: "", authors: [" A ", ""], full_text: "Body." }),
        JSON.stringify({ id: "x3", title: "Camel", fullText: "Text.", facets: { methods: [" m ", "  "] }, url: "ignored" }),
      ),
    );
    const corpus: CorpusInput = await readCorpus(file);
    assert.deepEqual(corpus.files, { papers: file, citations: null, queries: null, queryGold: null });
    assert.deepEqual(corpus.papers, [
      { externalId: "x1", title: "Only a title", abstract: "", fullText: null, year: null, venue: null, authors: [], split: null, facets: null },
      { externalId: "42", title: "Numeric id", abstract: "", fullText: "Body.", year: null, venue: null, authors: ["A"], split: null, facets: null },
      { externalId: "x3", title: "Camel", abstract: "", fullText: "Text.", year: null, venue: null, authors: [], split: null, facets: { methods: ["m"] } },
    ]);
    assert.deepEqual([corpus.citations, corpus.queries, corpus.queryGold, corpus.skipped], [[], [], [], []]);
  });

  test("CRLF line endings and a byte-order mark", async () => {
    const dir = corpusDir({
      "papers.jsonl": "\uFEFF" + [paperLine("a"), paperLine("b")].join("\r\n") + "\r\n",
      "citations.tsv": "\uFEFFciting\tcited\r\na\tb\r\n",
    });
    const corpus = await readCorpus(dir);
    assert.deepEqual(
      corpus.papers.map((p) => p.externalId),
      ["a", "b"],
    );
    assert.deepEqual(corpus.citations, [{ citing: "a", cited: "b" }]);
  });

  test("queries get split null and gold is read", async () => {
    const dir = corpusDir({
      "papers.jsonl": threePapers,
      "ooc-queries.jsonl": lines(paperLine("q1", { split: "test" }), paperLine("q2")),
      "ooc-gold.tsv": lines("query\tcited", "q1\ta", "q2\tb", "q1\ta"),
    });
    const corpus = await readCorpus(dir);
    assert.deepEqual(
      corpus.queries.map((q) => [q.externalId, q.split]),
      [
        ["q1", null],
        ["q2", null],
      ],
    );
    assert.deepEqual(corpus.queryGold, [
      { citing: "q1", cited: "a" },
      { citing: "q2", cited: "b" },
    ]);
    assert.deepEqual(corpus.skipped, [{ file: "ooc-gold.tsv", line: 4, message: "duplicate of line 2" }]);
  });

  test("readLines numbers every physical line", async () => {
    const file = path.join(corpusDir({}), "x.txt");
    writeFileSync(file, "one\n\nthree");
    const got = [];
    for await (const l of readLines(file)) got.push(l);
    assert.deepEqual(got, [
      { line: "one", lineNo: 1 },
      { line: "", lineNo: 2 },
      { line: "three", lineNo: 3 },
    ]);
  });
});

describe("resolveCorpusFiles", () => {
  test("directory layout, optional files null when absent", () => {
    const dir = corpusDir({ "papers.jsonl": threePapers, "citations.tsv": "citing\tcited\n" });
    assert.deepEqual(resolveCorpusFiles(dir), {
      papers: path.join(dir, "papers.jsonl"),
      citations: path.join(dir, "citations.tsv"),
      queries: null,
      queryGold: null,
    });
  });

  test("clear errors for a missing path, a directory without papers, a non-JSONL file", () => {
    assert.throws(() => resolveCorpusFiles(path.join(root, "does-not-exist")), /Corpus path not found: .*does-not-exist/);
    const empty = corpusDir({ "citations.tsv": "citing\tcited\n" });
    assert.throws(() => resolveCorpusFiles(empty), /No papers\.jsonl \(or papers\.jsonl\.gz\) in /);
    const csv = path.join(corpusDir({ "papers.csv": "id,title\n" }), "papers.csv");
    assert.throws(() => resolveCorpusFiles(csv), /Not a corpus: .*papers\.csv/);
    const goldOnly = corpusDir({ "papers.jsonl": threePapers, "ooc-gold.tsv": "query\tcited\n" });
    assert.throws(() => resolveCorpusFiles(goldOnly), /ooc-gold\.tsv in .* needs ooc-queries\.jsonl/);
    const sub = path.join(root, "nested");
    mkdirSync(sub, { recursive: true });
    assert.throws(() => resolveCorpusFiles(sub), /No papers\.jsonl/);
  });
});

describe("paper schema reuse", () => {
  test("parsePaperRecord validates a pasted record the same way", () => {
    const ok = parsePaperRecord({ id: "p", title: "T", facets: { problems: [" a ", ""], results: [] } });
    assert.ok(ok.ok);
    assert.deepEqual(ok.paper.facets, { problems: ["a"], results: [] });
    const bad = parsePaperRecord({ id: "p", title: "T", year: "2019a", facets: { outcomes: [] } });
    assert.deepEqual(bad, {
      ok: false,
      errors: ['"year" must be an integer, got "2019a"', 'unknown facet "outcomes" in "facets"; valid facets are problems, methods, results, contributions'],
    });
  });
});

describe("real data", () => {
  const citegraph = path.join(dataDir, "acl-citegraph");

  test("acl-citegraph reads completely", async (t) => {
    if (!existsSync(path.join(citegraph, "papers.jsonl"))) {
      t.skip(`no data at ${citegraph}`);
      return;
    }
    const corpus = await readCorpus(citegraph);
    assert.equal(corpus.papers.length, 3081);
    assert.equal(corpus.citations.length, 14581);
    assert.equal(corpus.queries.length, 212);
    assert.equal(corpus.queryGold.length, 424);
    assert.deepEqual(corpus.skipped, []);
    for (const p of corpus.papers) {
      assert.ok(p.facets, `${p.externalId} has no facets`);
      for (const f of FACETS) assert.ok(Array.isArray(p.facets[f]), `${p.externalId} lacks facet ${f}`);
      assert.ok(p.split !== null);
    }
    assert.ok(corpus.queries.every((q) => q.split === null));
  });
});

test("onProgress reports the lines read every PROGRESS_LINES lines of a papers file", async () => {
  const n = 2 * PROGRESS_LINES + 3;
  const dir = corpusDir({ "papers.jsonl": lines(...Array.from({ length: n }, (_, i) => paperLine(`p${i}`))) });
  const seen: number[] = [];
  const input = await readCorpus(dir, { onProgress: (l) => seen.push(l) });
  assert.equal(input.papers.length, n);
  assert.deepEqual(seen, [PROGRESS_LINES, 2 * PROGRESS_LINES]);
});
