import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { readPaperInput, resolveLimits } from "./index";
import { formatBytes } from "./limits";
import { PNG_BYTES, onePaperPdf } from "./test-pdfs";
import { inputRejection as inputError } from "./testing";

const ABSTRACT = "We find related work by comparing the problems, methods and results of papers, facet by facet, over a typed graph.";
const TEXT = `Facet-Aware Retrieval\n\n${ABSTRACT}\n`;
const JSON_RECORD = JSON.stringify({ title: "Facet-Aware Retrieval", abstract: ABSTRACT });
const utf8 = (s: string) => new TextEncoder().encode(s);

describe("readPaperInput", () => {
  test("text, json and pdf inputs reach their readers", async () => {
    assert.equal((await readPaperInput({ kind: "text", text: TEXT })).source, "text");
    assert.equal((await readPaperInput({ kind: "json", text: JSON_RECORD })).source, "json");
    assert.equal((await readPaperInput({ kind: "pdf", bytes: await onePaperPdf() })).source, "pdf");
  });

  test("files are sniffed by content, not by name", async () => {
    const pdf = await onePaperPdf();
    assert.equal((await readPaperInput({ kind: "file", name: "upload.bin", bytes: pdf })).source, "pdf");
    assert.equal((await readPaperInput({ kind: "file", name: "paper.txt", bytes: utf8(`\ufeff  ${JSON_RECORD}`) })).source, "json");
    assert.equal((await readPaperInput({ kind: "file", name: "paper", bytes: utf8(TEXT) })).source, "text");
  });

  test("text that merely mentions %PDF- is still text", async () => {
    const p = await readPaperInput({ kind: "file", name: "notes.txt", bytes: utf8(`A Note About %PDF- Headers\n\n${ABSTRACT}`) });
    assert.equal(p.source, "text");
  });

  test("binary that is not a PDF -> not_pdf", async () => {
    const err = await inputError(() => readPaperInput({ kind: "file", name: "figure.png", bytes: PNG_BYTES }));
    assert.equal(err.code, "not_pdf");
    assert.match(err.message, /"figure.png" is neither a PDF nor text/);
  });

  test("a .pdf name on text content -> not_pdf; a .json name on non-JSON -> invalid_json", async () => {
    assert.equal((await inputError(() => readPaperInput({ kind: "file", name: "paper.PDF", bytes: utf8(TEXT) }))).code, "not_pdf");
    assert.equal((await inputError(() => readPaperInput({ kind: "file", name: "paper.json", bytes: utf8(TEXT) }))).code, "invalid_json");
  });

  test("an empty file -> empty, whatever its name says (not 'not a PDF')", async () => {
    for (const [name, bytes] of [
      ["paper.pdf", new Uint8Array(0)],
      ["paper.pdf", utf8(" \n")],
      ["notes.txt", new Uint8Array(0)],
    ] as const) {
      const err = await inputError(() => readPaperInput({ kind: "file", name, bytes }));
      assert.equal(err.code, "empty", name);
      assert.match(err.message, new RegExp(`"${name.replace(".", "\\.")}" is empty`));
    }
    assert.match((await inputError(() => readPaperInput({ kind: "file", name: "paper.pdf", bytes: new Uint8Array(0) }))).message, /\(0 bytes\)/);
    const pdf = await inputError(() => readPaperInput({ kind: "pdf", bytes: new Uint8Array(0) }));
    assert.equal(pdf.code, "empty");
    assert.match(pdf.message, /The PDF is empty/);
  });

  test("a file over maxBytes -> too_large, whatever it holds", async () => {
    const err = await inputError(() => readPaperInput({ kind: "file", name: "figure.png", bytes: PNG_BYTES }, { maxBytes: 8 }));
    assert.equal(err.code, "too_large");
  });
});

describe("limits", () => {
  const saved = { mb: process.env.GRAFT_MAX_UPLOAD_MB, pages: process.env.GRAFT_MAX_PDF_PAGES };
  afterEach(() => {
    for (const [name, value] of [
      ["GRAFT_MAX_UPLOAD_MB", saved.mb],
      ["GRAFT_MAX_PDF_PAGES", saved.pages],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  test("defaults: 20 MB, 100 pages, 100 characters", () => {
    delete process.env.GRAFT_MAX_UPLOAD_MB;
    delete process.env.GRAFT_MAX_PDF_PAGES;
    assert.deepEqual(resolveLimits(), { maxBytes: 20 * 1024 * 1024, maxPages: 100, minChars: 100 });
  });

  test("the environment sets defaults; per-call values win", async () => {
    process.env.GRAFT_MAX_UPLOAD_MB = "0.5";
    process.env.GRAFT_MAX_PDF_PAGES = "7";
    assert.deepEqual(resolveLimits(), { maxBytes: 512 * 1024, maxPages: 7, minChars: 100 });
    assert.equal(resolveLimits({ maxPages: 3 }).maxPages, 3);
    process.env.GRAFT_MAX_UPLOAD_MB = "0.0001";
    const err = await inputError(() => readPaperInput({ kind: "text", text: TEXT }));
    assert.equal(err.code, "too_large");
    assert.match(err.message, /more than the 104 bytes limit/);
  });

  test("a set but invalid environment value is a configuration error, not a silent default", () => {
    process.env.GRAFT_MAX_PDF_PAGES = "ten";
    assert.throws(() => resolveLimits(), /GRAFT_MAX_PDF_PAGES="ten": expected a whole number ≥ 1/);
  });

  test("sizes read naturally", () => {
    assert.equal(formatBytes(1), "1 byte");
    assert.equal(formatBytes(2048), "2 KB");
    assert.equal(formatBytes(25.34 * 1024 * 1024), "25.3 MB");
  });
});
