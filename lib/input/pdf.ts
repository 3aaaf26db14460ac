/**
 * Uploaded PDFs: text with positions from pdfjs, rebuilt into lines in reading order, then the
 * same structure analysis as pasted text, helped by font sizes.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { InputError } from "./errors";
import { UnpackLimitError } from "@/lib/unpack";
import { checkSize, resolveLimits, type InputLimits } from "./limits";
import { checkPdfStreams } from "./pdf-streams";
import { bodyFontSize, dropRunningLines, findTitle, pageLines, toDocLines, type PdfPageText, type PdfTextItem } from "./pdf-layout";
import { analyseStructure } from "./structure";
import { looksLikeTitle } from "./text";
import type { InputPaper } from "./types";

type Pdfjs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");
type PdfDocument = Awaited<ReturnType<Pdfjs["getDocument"]>["promise"]>;

/** The PDF spec lets the header start anywhere in the first 1024 bytes. */
export function hasPdfHeader(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024));
  return head.includes("%PDF-");
}

let pdfjsPromise: Promise<Pdfjs> | null = null;

/**
 * pdfjs, loaded on first use (it is large and only PDFs need it). Node has no pdfjs worker
 * thread; pdfjs then runs its worker code on the main thread, and importing that code here and
 * handing it over as globalThis.pdfjsWorker saves pdfjs from resolving a worker path itself,
 * which breaks once the module is bundled.
 */
function loadPdfjs(): Promise<Pdfjs> {
  pdfjsPromise ??= (async () => {
    const worker = await import("pdfjs-dist/legacy/build/pdf.worker.mjs");
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return import("pdfjs-dist/legacy/build/pdf.mjs");
  })().catch((err: unknown) => {
    pdfjsPromise = null;
    throw err;
  });
  return pdfjsPromise;
}

/**
 * A directory of pdfjs-dist's data files (fonts, CMaps) as a path with a trailing slash, which
 * pdfjs reads from disk in Node. Undefined if the package cannot be located (a bundle); pdfjs
 * then falls back to built-in font metrics, which is enough for text.
 */
function pdfjsDataDir(sub: string): string | undefined {
  try {
    const pkg = createRequire(import.meta.url).resolve("pdfjs-dist/package.json");
    return `${path.join(path.dirname(pkg), sub)}/`;
  } catch {
    return undefined;
  }
}

function pdfjsFailure(err: unknown): InputError {
  if (err instanceof Error && err.name === "PasswordException") {
    return new InputError("encrypted", "The PDF is password-protected; remove the password (for example by printing it to a new PDF) and upload it again.", {
      cause: err,
    });
  }
  return new InputError("corrupt", "The PDF could not be read because it is damaged or incomplete; upload it again, or paste the paper's text instead.", {
    cause: err,
  });
}

/** Horizontal, upright text items of one page, in y-up page coordinates. */
async function readPage(pdfjs: Pdfjs, doc: PdfDocument, pageNumber: number): Promise<PdfPageText> {
  const page = await doc.getPage(pageNumber);
  // Viewport coordinates honour the page's /Rotate, so a landscape-rotated page reads normally.
  const viewport = page.getViewport({ scale: 1 });
  const content = await page.getTextContent();
  const items: PdfTextItem[] = [];
  for (const item of content.items) {
    if (!("str" in item) || !item.str.trim()) continue;
    const [a, b, c, d, e, f] = pdfjs.Util.transform(viewport.transform, item.transform) as number[];
    // Rotated or mirrored text is margin furniture (arXiv stamps, axis labels), not running text.
    if (a <= 0 || d >= 0 || Math.abs(b) > 0.01 * a || Math.abs(c) > 0.01 * -d) continue;
    items.push({ str: item.str, x: e, y: viewport.height - f, width: item.width, size: -d });
  }
  page.cleanup();
  return { width: viewport.width, height: viewport.height, items };
}

/** The unpacking cap on the PDF's compressed streams, as the input path's own error (413 too_large). */
async function checkStreams(bytes: Uint8Array): Promise<void> {
  try {
    await checkPdfStreams(bytes);
  } catch (err) {
    if (err instanceof UnpackLimitError) throw new InputError("too_large", `${err.message} Upload the paper without embedded data, or paste its text.`);
    throw err;
  }
}

/** A paper from the bytes of a PDF; throws InputError for anything that is not a readable paper. */
export async function paperFromPdf(bytes: Uint8Array, limits?: Partial<InputLimits>): Promise<InputPaper> {
  const lim = resolveLimits(limits);
  checkSize(bytes.byteLength, lim, "PDF");
  if (bytes.byteLength === 0) throw new InputError("empty", "The PDF is empty (0 bytes); upload the paper's PDF again, or paste its text.");
  if (!hasPdfHeader(bytes)) {
    throw new InputError("not_pdf", "The file is not a PDF (it has no %PDF- header); upload the paper as a PDF, or paste its text.");
  }
  await checkStreams(bytes);
  const pdfjs = await loadPdfjs();
  const task = pdfjs.getDocument({
    // A copy: pdfjs may detach the buffer it is given, and the caller's bytes must stay usable.
    data: new Uint8Array(bytes),
    verbosity: pdfjs.VerbosityLevel.ERRORS,
    // Untrusted input: never compile PDF functions to JavaScript.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    standardFontDataUrl: pdfjsDataDir("standard_fonts"),
    cMapUrl: pdfjsDataDir("cmaps"),
    cMapPacked: true,
  });
  let doc: PdfDocument;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    throw pdfjsFailure(err);
  }
  try {
    const pageCount = doc.numPages;
    if (pageCount > lim.maxPages) {
      throw new InputError(
        "too_many_pages",
        `The PDF has ${pageCount} pages, more than the ${lim.maxPages} allowed; upload the paper without appendices or supplementary material.`,
      );
    }
    const pages: PdfPageText[] = [];
    for (let p = 1; p <= pageCount; p++) {
      try {
        pages.push(await readPage(pdfjs, doc, p));
      } catch (err) {
        throw pdfjsFailure(err);
      }
    }
    return buildPaper(pages, lim);
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

/** Layout and structure of extracted page text; separate from pdfjs so it can be tested alone. */
export function buildPaper(pages: PdfPageText[], limits: InputLimits): InputPaper {
  const textChars = pages.reduce((s, p) => s + p.items.reduce((t, it) => t + it.str.replace(/\s+/g, "").length, 0), 0);
  if (textChars < limits.minChars) {
    throw new InputError(
      "no_text",
      "The PDF contains no extractable text (it is probably a scanned image); upload a PDF with a text layer, or paste the paper's text.",
    );
  }
  const perPage = dropRunningLines(
    pages.map((p, i) => pageLines(p, i)),
    pages.map((p) => p.height),
  );
  const lines = perPage.flat();
  const bodySize = bodyFontSize(lines);
  let title = "";
  let start = 0;
  const found = findTitle(lines, pages[0]?.height ?? 0, bodySize);
  if (found) {
    [title, start] = [found.title, found.next];
  } else if (lines.length > 1 && looksLikeTitle(lines[0].text)) {
    // No larger font (a plain PDF): the first line still makes a title if it reads like one.
    [title, start] = [lines[0].text, 1];
  }
  const docLines = toDocLines(lines).slice(start);
  if (docLines[0]) docLines[0] = { ...docLines[0], breakBefore: true };
  return { title, ...analyseStructure(docLines, { bodySize }), facets: null, source: "pdf", pages: pages.length };
}
