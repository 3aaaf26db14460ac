/**
 * Rebuilds reading-order lines from positioned PDF text items. Pure functions on plain data, so
 * the layout rules are testable without pdfjs. Coordinates are PDF-style: y grows upwards.
 */
import { cleanLine, isListItem, letterCount, type DocLine } from "./lines";
import { ascending, quantileAtIndex } from "@/lib/quantile";

export interface PdfTextItem {
  str: string;
  /** Baseline start. */
  x: number;
  y: number;
  width: number;
  /** Font size in points. */
  size: number;
}

export interface PdfPageText {
  width: number;
  height: number;
  items: PdfTextItem[];
}

/** Where a line sits on a two-column page; "full" on one-column pages and for spanning lines. */
export type Column = "full" | "left" | "right";

export interface LayoutLine {
  text: string;
  x: number;
  xEnd: number;
  y: number;
  size: number;
  /** 0-based page index. */
  page: number;
  column: Column;
}

/** Fewer characters than this on a page is too little to judge its column layout. */
const MIN_CHARS_FOR_COLUMNS = 200;
/** Word gaps are 2-4 pt; an empty vertical strip at least this wide is a column gutter. */
const MIN_GUTTER_WIDTH = 6;
/** Running headers and footers live in this top and bottom share of a page. */
const MARGIN_ZONE = 0.15;

const PAGE_NUMBER = /^(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,7})(?:\s*(?:of|\/)\s*\d{1,4})?$|^[-–—]\s*\d{1,4}\s*[-–—]$/i;

const chars = (s: string) => s.replace(/\s+/g, "").length;

/** A run of items on one baseline with no gap wider than a word space: a box of continuous text. */
interface Segment {
  items: PdfTextItem[];
  x: number;
  xEnd: number;
  y: number;
  chars: number;
}

/** Wider than any word space, narrower than any column gutter (in font sizes). */
const SEGMENT_GAP = 1.0;

function segmentsOf(cluster: PdfTextItem[]): Segment[] {
  const out: Segment[] = [];
  for (const it of cluster) {
    const cur = out[out.length - 1];
    if (cur && it.x - cur.xEnd <= SEGMENT_GAP * it.size) {
      cur.items.push(it);
      cur.xEnd = Math.max(cur.xEnd, it.x + it.width);
      cur.chars += chars(it.str);
    } else {
      out.push({ items: [it], x: it.x, xEnd: it.x + it.width, y: it.y, chars: chars(it.str) });
    }
  }
  return out;
}

/**
 * The x of the gutter on a two-column page, or null. A gutter is a strip near the middle at
 * least MIN_GUTTER_WIDTH wide that almost no text crosses, with plenty of text on both sides.
 * Text is measured in segments, not items, so word gaps (TeX emits one item per word) and
 * spanning lines set word by word cannot pass for an empty strip.
 */
function gutterOf(segments: Segment[], width: number): number | null {
  const total = segments.reduce((s, g) => s + g.chars, 0);
  if (total < MIN_CHARS_FOR_COLUMNS) return null;
  const from = Math.floor(width * 0.3);
  const to = Math.ceil(width * 0.7);
  const crossing: number[] = [];
  for (let cx = from; cx <= to; cx++) {
    let c = 0;
    for (const g of segments) if (g.x < cx && g.xEnd > cx) c += g.chars;
    crossing.push(c);
  }
  const min = Math.min(...crossing);
  // Spanning lines (title, wide figures) cross the gutter; allow a few of them.
  if (min > total * 0.15) return null;
  // Near the minimum, not at it: a spanning line that ends inside the gutter region must not
  // split the empty strip in two.
  const low = min + total * 0.02;
  let best: { start: number; len: number } | null = null;
  for (let i = 0; i < crossing.length;) {
    if (crossing[i] > low) {
      i++;
      continue;
    }
    let j = i;
    while (j < crossing.length && crossing[j] <= low) j++;
    if (!best || j - i > best.len) best = { start: i, len: j - i };
    i = j;
  }
  if (!best || best.len < MIN_GUTTER_WIDTH) return null;
  const gutter = from + best.start + (best.len - 1) / 2;
  const left = segments.filter((g) => g.xEnd <= gutter);
  const right = segments.filter((g) => g.x >= gutter);
  const sum = (gs: Segment[]) => gs.reduce((s, g) => s + g.chars, 0);
  const lineCount = (gs: Segment[]) => new Set(gs.map((g) => Math.round(g.y))).size;
  if (sum(left) < total * 0.2 || sum(right) < total * 0.2 || lineCount(left) < 3 || lineCount(right) < 3) return null;
  return gutter;
}

export function findGutter(page: PdfPageText): number | null {
  const items = page.items.filter((it) => it.str.trim() && it.size > 0);
  return gutterOf(baselineClusters(items).flatMap(segmentsOf), page.width);
}

/** Items that share a baseline; superscripts and subscripts stay with their line. */
function baselineClusters(items: PdfTextItem[]): PdfTextItem[][] {
  const sorted = [...items].sort((a, b) => b.y - a.y || a.x - b.x);
  const clusters: { y: number; size: number; items: PdfTextItem[] }[] = [];
  for (const it of sorted) {
    const cur = clusters[clusters.length - 1];
    if (cur && Math.abs(cur.y - it.y) <= 0.45 * Math.max(cur.size, it.size)) {
      cur.items.push(it);
      cur.size = Math.max(cur.size, it.size);
    } else {
      clusters.push({ y: it.y, size: it.size, items: [it] });
    }
  }
  return clusters.map((c) => c.items.sort((a, b) => a.x - b.x));
}

/** One line from items sorted by x; a space goes where the gap between items is wider than a hair. */
function makeLine(items: PdfTextItem[], page: number, column: Column): LayoutLine | null {
  let text = "";
  let prevEnd = -Infinity;
  const sizeChars = new Map<number, number>();
  let baseline = items[0].y;
  let baselineChars = -1;
  for (const it of items) {
    const gap = it.x - prevEnd;
    if (text && gap > 0.15 * it.size && !/\s$/.test(text) && !/^\s/.test(it.str)) text += " ";
    text += it.str;
    prevEnd = Math.max(prevEnd, it.x + it.width);
    const n = chars(it.str);
    const size = Math.round(it.size * 10) / 10;
    sizeChars.set(size, (sizeChars.get(size) ?? 0) + n);
    // The baseline of the bulk of the text, not of a superscript that happened to come first.
    if (n > baselineChars) [baseline, baselineChars] = [it.y, n];
  }
  const clean = cleanLine(text);
  if (!clean) return null;
  const size = [...sizeChars.entries()].sort((a, b) => b[1] - a[1])[0][0];
  return { text: clean, x: items[0].x, xEnd: prevEnd, y: baseline, size, page, column };
}

/**
 * The page's lines in reading order. On a two-column page, lines split at the gutter; a line
 * whose text runs across it (title, wide caption) spans, and spanning lines cut the page into
 * bands that are read left column first, then right column.
 */
export function pageLines(page: PdfPageText, pageIndex: number): LayoutLine[] {
  const items = page.items.filter((it) => it.str.trim() && it.size > 0);
  if (items.length === 0) return [];
  const clusters = baselineClusters(items).map(segmentsOf);
  const gutter = gutterOf(clusters.flat(), page.width);
  const lines: LayoutLine[] = [];
  for (const segs of clusters) {
    const all = segs.flatMap((g) => g.items);
    // A segment across the gutter makes the whole line a spanning one.
    if (gutter === null || segs.some((g) => g.x < gutter && g.xEnd > gutter)) {
      const l = makeLine(all, pageIndex, "full");
      if (l) lines.push(l);
      continue;
    }
    for (const column of ["left", "right"] as const) {
      const part = segs.filter((g) => (column === "left" ? g.xEnd <= gutter : g.x >= gutter)).flatMap((g) => g.items);
      const l = part.length ? makeLine(part, pageIndex, column) : null;
      if (l) lines.push(l);
    }
  }
  if (gutter === null) return lines;
  const ordered: LayoutLine[] = [];
  let band: LayoutLine[] = [];
  const flush = () => {
    for (const part of pageIndex === 0 ? splitHeadBlocks(band) : [band]) {
      ordered.push(...part.filter((l) => l.column === "left"), ...part.filter((l) => l.column === "right"));
    }
    band = [];
  };
  for (const l of lines) {
    if (l.column === "full") {
      flush();
      ordered.push(l);
    } else band.push(l);
  }
  flush();
  return ordered;
}

/** An author block has a few lines per column: name, affiliation, address, email. */
const MAX_HEAD_BLOCK_LINES = 8;

/**
 * On page 1, authors often sit side by side, one block per column, above the columns proper
 * (ACL style). Read column-wise, the right-hand author would land in the middle of the
 * introduction; so a band is cut where a wide empty strip runs across both columns below a
 * small block, and each part is read on its own.
 */
function splitHeadBlocks(band: LayoutLine[]): LayoutLine[][] {
  const parts: LayoutLine[][] = [];
  let cur: LayoutLine[] = [];
  for (const l of band) {
    const prev = cur[cur.length - 1];
    const perColumn = Math.max(cur.filter((c) => c.column === "left").length, cur.filter((c) => c.column === "right").length);
    if (prev && prev.y - l.y > 2 * Math.max(prev.size, l.size) && perColumn <= MAX_HEAD_BLOCK_LINES) {
      parts.push(cur);
      cur = [];
    }
    cur.push(l);
  }
  if (cur.length) parts.push(cur);
  return parts;
}

const runningKey = (text: string) => text.toLowerCase().replace(/\d+/g, "#").replace(/\s+/g, " ").trim();

/**
 * Drops running headers and footers (the same text, digits aside, at the same height in the
 * page margins of many pages) and page numbers (a bare number at the very top or bottom).
 */
export function dropRunningLines(pages: LayoutLine[][], heights: number[]): LayoutLine[][] {
  const inZone = (l: LayoutLine) => {
    const h = heights[l.page];
    return l.y > h * (1 - MARGIN_ZONE) || l.y < h * MARGIN_ZONE;
  };
  const seen = new Map<string, { page: number; y: number }[]>();
  for (const lines of pages) {
    for (const l of lines) {
      if (!inZone(l)) continue;
      const key = runningKey(l.text);
      let list = seen.get(key);
      if (!list) seen.set(key, (list = []));
      list.push({ page: l.page, y: l.y });
    }
  }
  const needed = Math.max(2, Math.ceil(pages.length * 0.4));
  const running = (l: LayoutLine) => {
    if (pages.length < 2 || !inZone(l)) return false;
    const others = seen.get(runningKey(l.text)) ?? [];
    const onPages = new Set(others.filter((o) => Math.abs(o.y - l.y) <= 4).map((o) => o.page));
    return onPages.size >= needed;
  };
  return pages.map((lines) => {
    const kept = lines.filter((l) => !running(l));
    // A page number is the outermost line (or next to a running header that was just removed).
    const byY = [...kept].sort((a, b) => b.y - a.y);
    const edges = new Set([...byY.slice(0, 2), ...byY.slice(-2)]);
    return kept.filter((l) => !(PAGE_NUMBER.test(l.text) && inZone(l) && edges.has(l)));
  });
}

/** The most common font size, weighted by characters: the size of the body text. */
export function bodyFontSize(lines: readonly LayoutLine[]): number {
  const weight = new Map<number, number>();
  for (const l of lines) {
    const s = Math.round(l.size * 2) / 2;
    weight.set(s, (weight.get(s) ?? 0) + chars(l.text));
  }
  let best = 0;
  let bestWeight = -1;
  for (const [s, w] of weight) if (w > bestWeight) [best, bestWeight] = [s, w];
  return best;
}

/**
 * The title: the largest text in the top half of page 1, several lines if it wraps, provided it
 * is clearly larger than the body text. Returns the title and the index of the line after it.
 */
export function findTitle(lines: readonly LayoutLine[], firstPageHeight: number, bodySize: number): { title: string; next: number } | null {
  const candidates = lines.filter((l) => l.page === 0 && l.y > firstPageHeight / 2 && letterCount(l.text) >= 2);
  if (candidates.length === 0) return null;
  const max = Math.max(...candidates.map((l) => l.size));
  if (max < bodySize * 1.15) return null;
  const start = lines.findIndex((l) => candidates.includes(l) && Math.abs(l.size - max) <= 0.5);
  let end = start;
  while (end + 1 < lines.length && lines[end + 1].page === 0 && Math.abs(lines[end + 1].size - max) <= 0.5) end++;
  return {
    title: lines
      .slice(start, end + 1)
      .map((l) => l.text)
      .join(" "),
    next: end + 1,
  };
}

/** The upper middle value; 0 for none. */
function median(xs: number[]): number {
  return xs.length === 0 ? 0 : quantileAtIndex(ascending(xs), 0.5);
}

/**
 * Layout lines as DocLines: paragraph breaks from vertical gaps, font size changes, short
 * sentence-ending lines and first-line indents; indents measured from the column's left edge.
 */
export function toDocLines(lines: readonly LayoutLine[]): DocLine[] {
  const groupKey = (l: LayoutLine) => `${l.page}:${l.column}`;
  const edges = new Map<string, { left: number; right: number }>();
  const groups = new Map<string, LayoutLine[]>();
  for (const l of lines) {
    const k = groupKey(l);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(l);
  }
  const bodySize = bodyFontSize(lines);
  for (const [k, g] of groups) {
    // The column's edges come from body-size lines, so a centred heading does not move them.
    const body = g.filter((l) => Math.abs(l.size - bodySize) <= 0.5);
    const use = body.length > 0 ? body : g;
    edges.set(k, { left: Math.min(...use.map((l) => l.x)), right: Math.max(...use.map((l) => l.xEnd)) });
  }
  // Typical distance between consecutive lines of one paragraph.
  const gaps: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const [a, b] = [lines[i - 1], lines[i]];
    if (groupKey(a) === groupKey(b) && Math.abs(a.size - b.size) <= 0.5 && a.y > b.y) gaps.push((a.y - b.y) / a.size);
  }
  const leading = median(gaps) || 1.2;
  return lines.map((l, i) => {
    const edge = edges.get(groupKey(l)) ?? { left: l.x, right: l.xEnd };
    const indent = Math.max(0, l.x - edge.left);
    const prev = lines[i - 1];
    if (!prev) return { text: l.text, size: l.size, indent, breakBefore: true };
    const prevEdge = edges.get(groupKey(prev)) ?? { left: prev.x, right: prev.xEnd };
    const sameColumn = groupKey(prev) === groupKey(l);
    const gap = sameColumn ? (prev.y - l.y) / prev.size : 0;
    const shortEnd = /[.!?:]$/.test(prev.text) && prev.xEnd < prevEdge.right - 0.1 * (prevEdge.right - prevEdge.left);
    const prevIndent = prev.x - prevEdge.left;
    const firstLineIndent = sameColumn && indent > 0.5 * l.size && indent < 4 * l.size && prevIndent <= 0.5 * l.size;
    const breakBefore =
      Math.abs(prev.size - l.size) > 0.5 || (sameColumn && (gap > leading * 1.4 || gap < 0)) || shortEnd || firstLineIndent || isListItem(l.text);
    return { text: l.text, size: l.size, indent, breakBefore };
  });
}
