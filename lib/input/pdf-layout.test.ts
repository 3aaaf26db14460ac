import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { dropRunningLines, findGutter, pageLines, toDocLines, type LayoutLine, type PdfPageText, type PdfTextItem } from "./pdf-layout";

// Synthetic pages with one item per word, as TeX-made PDFs give them; widths from a fixed
// character width keep the geometry easy to reason about.
const CHAR_W = 0.4;

function words(text: string, x: number, y: number, size = 10, justify?: number): PdfTextItem[] {
  const ws = text.split(" ");
  const natural = ws.reduce((s, w) => s + w.length * CHAR_W * size, 0);
  const stretched = justify !== undefined && ws.length > 1 ? (justify - natural) / (ws.length - 1) : 0;
  const gap = Math.max(stretched, 0.25 * size);
  const items: PdfTextItem[] = [];
  let cx = x;
  for (const w of ws) {
    items.push({ str: w, x: cx, y, width: w.length * CHAR_W * size, size });
    cx += w.length * CHAR_W * size + gap;
  }
  return items;
}

/**
 * Deterministic pseudo-random words of 2-8 letters filling about `width` points, so a test line
 * looks like justified text (word gaps well under a font size) without being fixed prose.
 */
function prose(seed: number, width: number, size = 10): string {
  let s = seed;
  const out: string[] = [];
  let used = 0;
  for (;;) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const word = "abcdefgh".slice(0, 2 + (s % 7));
    const w = (word.length * CHAR_W + 0.3) * size;
    if (used + w > width) return out.join(" ");
    out.push(word);
    used += w;
  }
}

const page = (items: PdfTextItem[]): PdfPageText => ({ width: 612, height: 792, items });

describe("findGutter", () => {
  test("a justified one-column page has no gutter, even with one item per word", () => {
    const items = Array.from({ length: 45 }, (_, i) => words(prose(i + 1, 468), 72, 720 - i * 12, 10, 468)).flat();
    assert.equal(findGutter(page(items)), null);
  });

  test("a two-column page has its gutter between the columns", () => {
    const items: PdfTextItem[] = [];
    for (let i = 0; i < 40; i++) {
      items.push(...words(prose(i + 1, 238), 54, 700 - i * 12, 10, 238), ...words(prose(i + 99, 238), 320, 700 - i * 12, 10, 238));
    }
    const g = findGutter(page(items));
    assert.ok(g !== null && g > 292 && g < 320, `gutter at ${g}`);
  });

  test("too little text to judge: no gutter", () => {
    assert.equal(findGutter(page([...words("left", 54, 700), ...words("right", 320, 700)])), null);
  });
});

describe("pageLines", () => {
  test("two columns: spanning lines cut the page into bands, each read left then right", () => {
    const items: PdfTextItem[] = [...words("A Title That Spans Both Columns Of The Page", 150, 740, 16)];
    const band = (top: number, tag: string) => {
      for (let i = 0; i < 8; i++) {
        items.push(...words(`${tag} left ${prose(i + top, 180)}`, 54, top - i * 12, 10, 238));
        items.push(...words(`${tag} right ${prose(i + top + 50, 180)}`, 320, top - i * 12, 10, 238));
      }
    };
    band(700, "upper");
    items.push(...words("Figure 1: a caption set across the whole width of the page under a figure", 80, 590, 10));
    band(560, "lower");
    const lines = pageLines(page(items), 0);
    const tags = lines.map((l) => l.text.split(" ").slice(0, 2).join(" "));
    const expected = [
      "A Title",
      ...Array(8).fill("upper left"),
      ...Array(8).fill("upper right"),
      "Figure 1:",
      ...Array(8).fill("lower left"),
      ...Array(8).fill("lower right"),
    ];
    assert.deepEqual(tags, expected);
    assert.equal(lines[0].column, "full");
    assert.equal(lines[1].column, "left");
  });

  test("page 1: side-by-side author blocks are read before the columns below them", () => {
    const items: PdfTextItem[] = [...words("A Title That Spans Both Columns Of The Page", 150, 740, 16)];
    const authors = [
      ["Ada Lovelace", "University of London", "ada@example.org"],
      ["Alan Turing", "University of Manchester", "alan@example.org"],
    ];
    authors[0].forEach((t, i) => items.push(...words(t, 120, 700 - i * 13, 11)));
    authors[1].forEach((t, i) => items.push(...words(t, 390, 700 - i * 13, 11)));
    items.push(...words("Abstract", 150, 640, 12));
    for (let i = 0; i < 20; i++) {
      if (i > 1) items.push(...words(`left ${prose(i, 180)}`, 54, 640 - i * 12, 10, 238));
      items.push(...words(`right ${prose(i + 50, 180)}`, 320, 640 - i * 12, 10, 238));
    }
    const texts = pageLines(page(items), 0).map((l) => l.text.split(" ")[0]);
    assert.deepEqual(texts, [
      "A",
      "Ada",
      "University",
      "ada@example.org",
      "Alan",
      "University",
      "alan@example.org",
      "Abstract",
      ...Array(18).fill("left"),
      ...Array(20).fill("right"),
    ]);
    // Only page 1 has author blocks: elsewhere the same band is read column by column.
    const later = pageLines(page(items), 1).map((l) => l.text.split(" ")[0]);
    assert.deepEqual(later.slice(1, 6), ["Ada", "University", "ada@example.org", "Abstract", "left"]);
  });

  test("a superscript stays on its line, which keeps the body's baseline and size", () => {
    const items = [
      ...words("Attention is all", 72, 700),
      { str: "1", x: 72 + 16 * 5 + 1, y: 704, width: 3, size: 7 },
      ...words("you need", 72 + 16 * 5 + 6, 700),
    ];
    const lines = pageLines(page(items), 0);
    assert.equal(lines.length, 1);
    assert.equal(lines[0].text, "Attention is all 1 you need");
    assert.equal(lines[0].y, 700);
    assert.equal(lines[0].size, 10);
  });
});

describe("dropRunningLines", () => {
  const line = (page: number, text: string, y: number, x = 72): LayoutLine => ({ text, x, xEnd: x + 200, y, size: 10, page, column: "full" });

  test("repeated headers and footers go, digits aside; body text and numbers in the body stay", () => {
    const pages = [0, 1, 2, 3].map((p) => [
      line(p, "Journal of Tests, Vol. 3", 760),
      ...(p % 2 === 1 ? [line(p, "Lovelace et al.", 748)] : []),
      line(p, `Body text of the ${["first", "second", "third", "fourth"][p]} page.`, 700),
      line(p, "42", 400),
      line(p, `Page ${p + 1} of 4`, 30),
    ]);
    const kept = dropRunningLines(pages, [792, 792, 792, 792]);
    for (const [p, lines] of kept.entries()) {
      assert.deepEqual(
        lines.map((l) => l.text),
        [`Body text of the ${["first", "second", "third", "fourth"][p]} page.`, "42"],
      );
    }
  });

  test("a bare page number at the foot goes even on a single page; the same text moved does not count as running", () => {
    const kept = dropRunningLines(
      [
        [line(0, "Title of the Paper", 740), line(0, "Some body text.", 700), line(0, "1", 40)],
        [line(1, "Title of the Paper", 400), line(1, "More body text.", 700)],
      ],
      [792, 792],
    );
    assert.deepEqual(
      kept.map((ls) => ls.map((l) => l.text)),
      [
        ["Title of the Paper", "Some body text."],
        ["Title of the Paper", "More body text."],
      ],
    );
  });
});

describe("toDocLines", () => {
  const l = (text: string, x: number, y: number, size = 10): LayoutLine => ({ text, x, xEnd: x + text.length * 5, y, size, page: 0, column: "full" });

  test("paragraph breaks from first-line indents, gaps, size changes and bullets", () => {
    const doc = toDocLines([
      l("2 Method", 72, 700, 12),
      l("First line of a paragraph that runs the full width of the column here", 84, 682),
      l("and goes on over one more line that is also as long as the column", 72, 670),
      l("and it ends here.", 72, 658),
      l("A paragraph after a gap that also runs the whole width of the column text", 72, 634),
      l("• a bullet item", 72, 622),
      l("wrapped inside its bullet item", 72, 610),
    ]);
    assert.deepEqual(
      doc.map((d) => d.breakBefore),
      [true, true, false, false, true, true, false],
    );
    // Indents are measured from the column's left edge (72 here), not from the page.
    assert.deepEqual(
      doc.map((d) => d.indent),
      [0, 12, 0, 0, 0, 0, 0],
    );
  });
});
