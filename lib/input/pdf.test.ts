import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { InputError } from "./errors";
import { paperFromPdf } from "./pdf";
import { ONE_COLUMN, PNG_BYTES, TWO_COLUMN, encryptedPdf, noTextPdf, onePaperPdf, pagesPdf, twoColumnPdf } from "./test-pdfs";
import type { InputPaper } from "./types";
import { STATUS_OF_CODE } from "@/lib/http";

/** Runs `fn` and returns the InputError it must throw. */
async function inputError(fn: () => Promise<unknown>): Promise<InputError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof InputError, `expected InputError, got ${String(err)}`);
    return err;
  }
  assert.fail("expected an InputError");
}

describe("paperFromPdf: a one-column paper over three pages", () => {
  let bytes: Uint8Array;
  let paper: InputPaper;
  before(async () => {
    bytes = await onePaperPdf();
    paper = await paperFromPdf(bytes);
  });

  test("title is the large-font text of page 1, both of its lines", () => {
    assert.equal(paper.title, ONE_COLUMN.title);
    assert.equal(paper.source, "pdf");
    assert.equal(paper.pages, 3);
    assert.equal(paper.facets, null);
  });

  test("abstract is the text after the Abstract heading, without authors", () => {
    assert.equal(paper.abstract, ONE_COLUMN.abstract);
  });

  test("numbered section headings are found, subsection included", () => {
    assert.deepEqual(
      paper.sections.map((s) => s.heading),
      ["1 Introduction", "2 Method", "2.1 Graph Construction", "3 Results"],
    );
    assert.equal(paper.sections[2].text, ONE_COLUMN.graph);
  });

  test("a paragraph broken by a page break is whole again, and paragraphs stay apart", () => {
    assert.equal(paper.sections[0].text, ONE_COLUMN.intro.join("\n\n"));
  });

  test("running headers and page numbers are gone from the body", () => {
    assert.ok(!paper.body.includes("Workshop on Scholarly Retrieval"), "running header left in the body");
    // Headings are the only place the body may hold digits; a stray page number would show.
    for (const s of paper.sections) assert.doesNotMatch(s.text, /\d/, `digits in section ${s.heading}`);
  });

  test("the body stops before the references; three reference titles, the appendix not among them", () => {
    assert.ok(!/References|Vaswani|Attention is all you need|appendix/.test(paper.body));
    assert.ok(paper.body.endsWith(ONE_COLUMN.results));
    assert.deepEqual(paper.references, ONE_COLUMN.referenceTitles);
  });

  test("the caller's bytes are left intact", () => {
    assert.equal(Buffer.from(bytes.subarray(0, 5)).toString("latin1"), "%PDF-");
  });
});

describe("paperFromPdf: a two-column page", () => {
  let paper: InputPaper;
  before(async () => {
    paper = await paperFromPdf(await twoColumnPdf());
  });

  test("the spanning title is read whole", () => {
    assert.equal(paper.title, "A Two Column Paper About Reading Order");
  });

  test("the left column is read before the right one, and no line mixes them", () => {
    assert.deepEqual(
      paper.sections.map((s) => s.heading),
      ["1 Introduction", "2 Method"],
    );
    const [intro, method] = paper.sections;
    assert.equal(intro.text, TWO_COLUMN.left.map((s) => `${s}.`).join("\n\n"));
    assert.equal(method.text, TWO_COLUMN.right.map((s) => `${s}.`).join("\n\n"));
  });
});

describe("paperFromPdf: rejected PDFs", () => {
  test("password-protected -> encrypted", async () => {
    const err = await inputError(() => paperFromPdf(encryptedPdf()));
    assert.equal(err.code, "encrypted");
    assert.equal(STATUS_OF_CODE[err.code], 422);
    assert.match(err.message, /password/);
  });

  test("only a drawn rectangle, no text -> no_text", async () => {
    const err = await inputError(async () => paperFromPdf(await noTextPdf()));
    assert.equal(err.code, "no_text");
    assert.match(err.message, /scanned/);
  });

  test("truncated bytes -> corrupt", async () => {
    const bytes = await onePaperPdf();
    const err = await inputError(() => paperFromPdf(bytes.slice(0, Math.floor(bytes.length / 2))));
    assert.equal(err.code, "corrupt");
    assert.equal(STATUS_OF_CODE[err.code], 422);
  });

  test("a PDF header followed by garbage -> corrupt", async () => {
    const err = await inputError(() => paperFromPdf(new TextEncoder().encode("%PDF-1.7\nthis is not a pdf body\n")));
    assert.equal(err.code, "corrupt");
  });

  test("a PNG's bytes -> not_pdf", async () => {
    const err = await inputError(() => paperFromPdf(PNG_BYTES));
    assert.equal(err.code, "not_pdf");
    assert.equal(STATUS_OF_CODE[err.code], 400);
  });

  test("more pages than allowed -> too_many_pages", async () => {
    const err = await inputError(async () => paperFromPdf(await pagesPdf(3), { maxPages: 2 }));
    assert.equal(err.code, "too_many_pages");
    assert.equal(STATUS_OF_CODE[err.code], 413);
    assert.match(err.message, /3 pages, more than the 2 allowed/);
  });

  test("the page limit counts pages before reading any text", async () => {
    // A page count within the limit but text too short would fail with no_text; over the
    // limit, the page check must win, which shows it runs before text extraction.
    const err = await inputError(async () => paperFromPdf(await noTextPdf(), { maxPages: 0 }));
    assert.equal(err.code, "too_many_pages");
  });

  test("larger than the byte limit -> too_large, before parsing", async () => {
    const err = await inputError(() => paperFromPdf(PNG_BYTES, { maxBytes: 10 }));
    assert.equal(err.code, "too_large");
    assert.equal(STATUS_OF_CODE[err.code], 413);
    assert.match(err.message, /33 bytes, more than the 10 bytes limit/);
  });
});
