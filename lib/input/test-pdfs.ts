/**
 * PDFs for the tests, built with pdf-lib (a dev dependency) so the tests need no binary
 * fixtures and each layout feature under test is visible in code.
 */
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from "pdf-lib";

const LETTER: [number, number] = [612, 792];

/** Words of `text` wrapped to lines no wider than `width` at `size`. */
function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  let cur = "";
  for (const word of text.split(/\s+/)) {
    const next = cur ? `${cur} ${word}` : word;
    if (cur && font.widthOfTextAtSize(next, size) > width) {
      lines.push(cur);
      cur = word;
    } else cur = next;
  }
  if (cur) lines.push(cur);
  return lines;
}

/**
 * Draws a line word by word, as TeX-made PDFs do (one text item per word, not per line), so
 * the layout code sees real word gaps. With `justify`, the gaps stretch to fill that width.
 */
function drawWords(page: PDFPage, line: string, x: number, y: number, size: number, font: PDFFont, justify?: number): void {
  const words = line.split(" ");
  const space = font.widthOfTextAtSize(" ", size);
  const natural = words.reduce((w, word) => w + font.widthOfTextAtSize(word, size), 0);
  const gap = justify !== undefined && words.length > 1 ? (justify - natural) / (words.length - 1) : space;
  let cx = x;
  for (const word of words) {
    page.drawText(word, { x: cx, y, size, font });
    cx += font.widthOfTextAtSize(word, size) + gap;
  }
}

export const ONE_COLUMN = {
  title: "Facet-Aware Retrieval of Scientific Papers with Typed Citation Graphs",
  header: "Proceedings of the Workshop on Scholarly Retrieval",
  abstract:
    "We present a method that finds related work for a scientific paper by comparing its problems, methods and results with those of other papers. " +
    "The method builds a typed citation graph and fuses rankings from several retrievers. " +
    "On a citation recommendation benchmark it improves recall over strong baselines.",
  intro: [
    "Finding related work is hard because papers describe the same idea with different words. " +
      "Keyword search misses papers that solve the same problem with another vocabulary, and citation lists only reach backwards in time. " +
      "Readers therefore spend many hours following chains of references by hand before they can judge whether an idea is new.",
    "This paper proposes to describe every paper by its facets. " +
      "A facet is a short phrase that names a problem, a method, a result or a contribution of the paper. " +
      "Facets let a reader ask for papers that share a method but address another problem, which plain similarity search cannot express. " +
      "We show that facets can be extracted reliably and that they make retrieval both more accurate and easier to explain to a reader who wants to know why a paper was suggested.",
  ],
  method: [
    "Our method has two parts. " +
      "The first part extracts facets from the title and abstract of each paper with a generative model. " +
      "The second part retrieves candidate papers for each facet and fuses the rankings into one list.",
  ],
  graph:
    "The graph links papers through citations and through shared facets. " +
    "Edges carry the facet type, so that a walk can prefer papers that share a method with the query paper. " +
    "Ranks from the graph walk and from the dense retriever are combined with reciprocal rank fusion.",
  results:
    "The fused ranking finds more of the cited papers than any single retriever. " +
    "Gains are largest for papers whose vocabulary differs from that of their references.",
  references: [
    "Ashish Vaswani, Noam Shazeer, Niki Parmar, Jakob Uszkoreit, Llion Jones, Aidan N. Gomez, Lukasz Kaiser, and Illia Polosukhin. 2017. Attention is all you need. In Advances in Neural Information Processing Systems, pages 5998-6008.",
    "Jacob Devlin, Ming-Wei Chang, Kenton Lee, and Kristina Toutanova. 2019. BERT: Pre-training of deep bidirectional transformers for language understanding. In Proceedings of the Conference of the North American Chapter of the Association for Computational Linguistics, pages 4171-4186.",
    "Gordon V. Cormack, Charles L. A. Clarke, and Stefan Buettcher. 2009. Reciprocal rank fusion outperforms condorcet and individual rank learning methods. In Proceedings of the International ACM SIGIR Conference on Research and Development in Information Retrieval, pages 758-759.",
  ],
  appendix: "The appendix lists the venues and years of all papers in the benchmark, and how they were split.",
  referenceTitles: [
    "Attention is all you need",
    "BERT: Pre-training of deep bidirectional transformers for language understanding",
    "Reciprocal rank fusion outperforms condorcet and individual rank learning methods",
  ],
};

/**
 * A three-page, one-column paper: large title, authors, "Abstract", numbered sections (the
 * introduction runs over a page break), an ACL-style reference list with hanging indents, an
 * appendix after it, a running header on every page and a page number at the foot of every page.
 */
export async function onePaperPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const roman = await doc.embedFont(StandardFonts.TimesRoman);
  const bold = await doc.embedFont(StandardFonts.TimesRomanBold);
  const helv = await doc.embedFont(StandardFonts.Helvetica);
  const left = 72;
  const width = 468;
  const P = ONE_COLUMN;
  let page!: PDFPage;
  let y = 0;
  const newPage = () => {
    page = doc.addPage(LETTER);
    const n = doc.getPageCount();
    page.drawText(P.header, { x: 180, y: 750, size: 8, font: helv });
    page.drawText(String(n), { x: 303, y: 40, size: 10, font: roman });
    y = 700;
  };
  const text = (s: string, x: number, size: number, font: PDFFont, justify?: number) => drawWords(page, s, x, y, size, font, justify);
  const paragraph = (s: string, opts: { breakAfterLines?: number } = {}) => {
    const size = 10;
    const lines = wrap(s, roman, size, width - 12);
    lines.forEach((line, i) => {
      if (opts.breakAfterLines !== undefined && i === opts.breakAfterLines) newPage();
      // Justified, with a first-line indent, as LaTeX sets body paragraphs.
      const x = i === 0 ? left + 12 : left;
      text(line, x, size, roman, i < lines.length - 1 ? left + width - x : undefined);
      y -= size * 1.2;
    });
    y -= 4;
  };
  const heading = (s: string) => {
    y -= 6;
    text(s, left, 12, bold);
    y -= 18;
  };

  newPage();
  const titleLines = wrap(P.title, bold, 18, 380);
  for (const line of titleLines) {
    text(line, 306 - bold.widthOfTextAtSize(line, 18) / 2, 18, bold);
    y -= 22;
  }
  y -= 6;
  text("Ada Lovelace and Alan Turing", 240, 11, roman);
  y -= 14;
  text("University of Somewhere", 254, 10, roman);
  y -= 30;
  text("Abstract", 285, 12, bold);
  y -= 16;
  paragraph(P.abstract);
  heading("1 Introduction");
  paragraph(P.intro[0]);
  // Push the second intro paragraph over the page break, mid-paragraph.
  y = 110;
  paragraph(P.intro[1], { breakAfterLines: 3 });
  heading("2 Method");
  paragraph(P.method[0]);
  heading("2.1 Graph Construction");
  paragraph(P.graph);

  newPage();
  heading("3 Results");
  paragraph(P.results);
  heading("References");
  for (const ref of P.references) {
    // Hanging indent: continuation lines start 10 pt to the right.
    wrap(ref, roman, 9, width - 10).forEach((line, i) => {
      text(line, i === 0 ? left : left + 10, 9, roman);
      y -= 11;
    });
    y -= 3;
  }
  // An appendix after the references must end the reference list.
  heading("A Dataset Details");
  paragraph(P.appendix);
  return doc.save();
}

export const TWO_COLUMN = {
  left: Array.from({ length: 14 }, (_, i) => `Left column sentence number ${words(i)} talks about facets`),
  right: Array.from({ length: 14 }, (_, i) => `Right column sentence number ${words(i)} covers the method`),
};

function words(i: number): string {
  return ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen"][i];
}

/**
 * One page in two columns (ACL-like geometry) under a title that spans both, drawn word by word.
 * Lines of the two columns share baselines exactly. The last left sentence ends at the top of
 * the right column, above "2 Method", so reading order must run down the left column first.
 */
export async function twoColumnPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const roman = await doc.embedFont(StandardFonts.TimesRoman);
  const bold = await doc.embedFont(StandardFonts.TimesRomanBold);
  const page = doc.addPage(LETTER);
  drawWords(page, "A Two Column Paper About Reading Order", 150, 720, 16, bold);
  const [leftX, rightX, colWidth] = [54, 320, 238];
  drawWords(page, "1 Introduction", leftX, 670, 12, bold);
  // Each sentence takes two lines: "Left column sentence number one" / "talks about facets."
  const halves = (s: string) => [s.split(" ").slice(0, 5).join(" "), `${s.split(" ").slice(5).join(" ")}.`];
  const leftLines = TWO_COLUMN.left.flatMap(halves);
  const carried = leftLines.pop() as string;
  leftLines.forEach((line, i) => drawWords(page, line, leftX, 650 - i * 12, 10, roman, i % 2 === 0 ? colWidth : undefined));
  drawWords(page, carried, rightX, 670, 10, roman);
  drawWords(page, "2 Method", rightX, 646, 12, bold);
  TWO_COLUMN.right.flatMap(halves).forEach((line, i) => drawWords(page, line, rightX, 626 - i * 12, 10, roman, i % 2 === 0 ? colWidth : undefined));
  return doc.save();
}

/** A page with only a drawn rectangle: what a scan without a text layer looks like to a parser. */
export async function noTextPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage(LETTER);
  page.drawRectangle({ x: 100, y: 100, width: 300, height: 200, color: rgb(0.2, 0.4, 0.8) });
  return doc.save();
}

/** `pages` pages with a line of text each. */
export async function pagesPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) {
    doc.addPage(LETTER).drawText(`Page ${i + 1} of a short document about retrieval.`, { x: 72, y: 700, size: 10, font });
  }
  return doc.save();
}

/**
 * A minimal PDF encrypted with the standard security handler (revision 2) and a user password.
 * pdf-lib cannot encrypt, so it is written by hand: pdfjs sees the /Encrypt dictionary in the
 * trailer, tries the empty password against /U, fails (the /U bytes match no password) and
 * asks for one, which is exactly what a password-protected upload does.
 */
export function encryptedPdf(): Uint8Array {
  const hex = (seed: number, n: number) => Array.from({ length: n }, (_, i) => ((i * 37 + seed) & 255).toString(16).padStart(2, "0")).join("");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
    `<< /Filter /Standard /V 1 /R 2 /O <${hex(1, 32)}> /U <${hex(7, 32)}> /P -4 >>`,
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  const id = hex(3, 16);
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 4 0 R /ID [<${id}> <${id}>] >>\n`;
  out += `startxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/** The first bytes of a PNG image (signature and IHDR chunk): binary, and not a PDF. */
export const PNG_BYTES = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06,
  0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89,
]);
