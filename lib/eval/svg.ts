/**
 * Plain SVG charts of a report (no plotting library): recall@k curves per method and the
 * coverage ladder. The same strings are written to reports/*.svg and inlined by the web app's
 * Evaluation page, so the figures in both places come from one implementation. Every label is
 * XML-escaped; colours are the Okabe–Ito colour-blind-safe palette, and each series also has
 * its own marker shape so the chart reads in greyscale.
 */
import type { CoverageSection, RecallRow } from "./report";
import type { Cutoff } from "./paper-figures";

const PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"];
const CUTS: readonly Cutoff[] = ["R@5", "R@10", "R@20", "R@50"];

export function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c] as string);
}

const fx = (x: number): string => (Math.round(x * 10) / 10).toString();

function marker(i: number, x: number, y: number, colour: string): string {
  const s = 4;
  switch (i % 4) {
    case 0:
      return `<circle cx="${fx(x)}" cy="${fx(y)}" r="${s}" fill="${colour}"/>`;
    case 1:
      return `<rect x="${fx(x - s)}" y="${fx(y - s)}" width="${2 * s}" height="${2 * s}" fill="${colour}"/>`;
    case 2:
      return `<path d="M${fx(x)} ${fx(y - s - 1)}L${fx(x + s + 1)} ${fx(y + s)}L${fx(x - s - 1)} ${fx(y + s)}Z" fill="${colour}"/>`;
    default:
      return `<path d="M${fx(x)} ${fx(y - s - 1)}L${fx(x + s + 1)} ${fx(y)}L${fx(x)} ${fx(y + s + 1)}L${fx(x - s - 1)} ${fx(y)}Z" fill="${colour}"/>`;
  }
}

interface Frame {
  width: number;
  height: number;
  m: { left: number; right: number; top: number; bottom: number };
  plotW: number;
  plotH: number;
  yTop: number;
  yOf: (v: number) => number;
}

/** The parts every chart starts with: the svg element, its title and the y grid with labels. */
function chartHead(f: Frame, title: string): string[] {
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${f.width} ${f.height}" width="${f.width}" height="${f.height}" role="img" aria-label="${escapeXml(title)}" font-family="system-ui, sans-serif" font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${f.width}" height="${f.height}" fill="#ffffff"/>`,
    `<text x="${f.m.left}" y="20" font-size="14" font-weight="600" fill="#111827">${escapeXml(title)}</text>`,
  ];
  for (let t = 0; t <= 5; t++) {
    const v = (f.yTop * t) / 5;
    const y = f.yOf(v);
    parts.push(`<line x1="${f.m.left}" x2="${f.m.left + f.plotW}" y1="${fx(y)}" y2="${fx(y)}" stroke="#e5e7eb"/>`);
    parts.push(`<text x="${f.m.left - 6}" y="${fx(y + 4)}" text-anchor="end" fill="#4b5563">${v.toFixed(2)}</text>`);
  }
  return parts;
}

/** The x and y axis titles. */
function axisTitles(f: Frame, xLabel: string, yLabel: string): string[] {
  return [
    `<text x="${f.m.left + f.plotW / 2}" y="${f.m.top + f.plotH + 32}" text-anchor="middle" fill="#374151">${escapeXml(xLabel)}</text>`,
    `<text transform="translate(14 ${f.m.top + f.plotH / 2}) rotate(-90)" text-anchor="middle" fill="#374151">${escapeXml(yLabel)}</text>`,
  ];
}

/** Recall at 5/10/20/50 per method (rows with numbers only), x on a log scale of k. */
export function recallCurvesSvg(rows: readonly RecallRow[], options: { title: string; width?: number } = { title: "Recall@k" }): string {
  const series = rows.filter((r) => r.status === "ok" && CUTS.some((c) => r[c] !== undefined));
  const width = options.width ?? 640;
  const legendRows = Math.max(1, series.length);
  const plotH = 260;
  const m = { left: 52, right: 16, top: 36, bottom: 40 };
  const height = m.top + plotH + m.bottom + 18 * legendRows + 8;
  const plotW = width - m.left - m.right;
  const maxY = Math.max(0.05, ...series.flatMap((r) => CUTS.map((c) => r[c] ?? 0)));
  const yTop = Math.min(1, Math.ceil(maxY * 10) / 10);
  const logMin = Math.log(5);
  const logMax = Math.log(50);
  const xOf = (k: number): number => m.left + ((Math.log(k) - logMin) / (logMax - logMin)) * plotW;
  const yOf = (v: number): number => m.top + plotH - (v / yTop) * plotH;
  const frame: Frame = { width, height, m, plotW, plotH, yTop, yOf };
  const parts = chartHead(frame, options.title);
  for (const c of CUTS) {
    const k = Number(c.slice(2));
    parts.push(`<line x1="${fx(xOf(k))}" x2="${fx(xOf(k))}" y1="${m.top}" y2="${m.top + plotH}" stroke="#f3f4f6"/>`);
    parts.push(`<text x="${fx(xOf(k))}" y="${m.top + plotH + 16}" text-anchor="middle" fill="#4b5563">${k}</text>`);
  }
  parts.push(...axisTitles(frame, "k (log scale)", "recall@k (micro)"));
  series.forEach((r, i) => {
    const colour = PALETTE[i % PALETTE.length];
    const pts = CUTS.filter((c) => r[c] !== undefined).map((c) => [xOf(Number(c.slice(2))), yOf(r[c] as number)] as const);
    parts.push(
      `<g><title>${escapeXml(
        `${r.label}: ${CUTS.filter((c) => r[c] !== undefined)
          .map((c) => `${c} ${(r[c] as number).toFixed(3)}`)
          .join(", ")}`,
      )}</title>`,
    );
    parts.push(
      `<polyline points="${pts.map(([x, y]) => `${fx(x)},${fx(y)}`).join(" ")}" fill="none" stroke="${colour}" stroke-width="2"${i >= PALETTE.length ? ' stroke-dasharray="5 3"' : ""}/>`,
    );
    for (const [x, y] of pts) parts.push(marker(i, x, y, colour));
    parts.push("</g>");
    const ly = m.top + plotH + m.bottom + 4 + 18 * i;
    parts.push(marker(i, m.left + 6, ly + 6, colour));
    parts.push(`<text x="${m.left + 18}" y="${ly + 10}" fill="#111827">${escapeXml(r.label)}</text>`);
  });
  if (series.length === 0) parts.push(`<text x="${m.left + 8}" y="${m.top + plotH + m.bottom + 14}" fill="#4b5563">no rows with figures</text>`);
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

/** Horizontal bars: coverage at each pruning level K, then target coverage per recipe. */
export function coverageLadderSvg(coverage: CoverageSection, options: { width?: number } = {}): string {
  const bars: { label: string; share: number | undefined; group: number }[] = [
    ...coverage.byK.map((r) => ({ label: `graph, K = ${r.k}`, share: r.share, group: 0 })),
    ...coverage.variants.map((v) => ({ label: `training targets: ${v.label}`, share: v.status === "ok" ? v.targetCoverage : undefined, group: 1 })),
  ];
  const width = options.width ?? 640;
  const labelW = 300;
  const barH = 18;
  const gap = 8;
  const top = 36;
  const height = top + bars.length * (barH + gap) + 24;
  const plotW = width - labelW - 70;
  const title = "Coverage: share of papers that can be a retrieval target";
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeXml(title)}" font-family="system-ui, sans-serif" font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="8" y="20" font-size="14" font-weight="600" fill="#111827">${escapeXml(title)}</text>`,
  ];
  bars.forEach((b, i) => {
    const y = top + i * (barH + gap);
    const colour = b.group === 0 ? PALETTE[0] : PALETTE[2];
    parts.push(`<text x="${labelW - 8}" y="${y + 13}" text-anchor="end" fill="#111827">${escapeXml(b.label)}</text>`);
    parts.push(`<rect x="${labelW}" y="${y}" width="${plotW}" height="${barH}" fill="#f3f4f6"/>`);
    if (b.share === undefined) {
      parts.push(`<text x="${labelW + 6}" y="${y + 13}" fill="#4b5563">not run</text>`);
    } else {
      parts.push(
        `<rect x="${labelW}" y="${y}" width="${fx(plotW * Math.max(0, Math.min(1, b.share)))}" height="${barH}" fill="${colour}"><title>${escapeXml(`${b.label}: ${(100 * b.share).toFixed(1)}%`)}</title></rect>`,
      );
      parts.push(`<text x="${labelW + plotW + 6}" y="${y + 13}" fill="#111827">${(100 * b.share).toFixed(1)}%</text>`);
    }
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

export interface CurveSeries {
  label: string;
  /** (x, y) points, x ascending. */
  points: readonly (readonly [number, number])[];
}

/** Line chart of y against x (e.g. recall against training examples seen); `reference` draws a dashed horizontal line. */
export function learningCurveSvg(
  series: readonly CurveSeries[],
  options: { title: string; xLabel: string; yLabel: string; reference?: { label: string; y: number }; width?: number },
): string {
  const width = options.width ?? 640;
  const plotH = 260;
  const m = { left: 52, right: 16, top: 36, bottom: 40 };
  const legend = series.length + (options.reference ? 1 : 0);
  const height = m.top + plotH + m.bottom + 18 * legend + 8;
  const plotW = width - m.left - m.right;
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const maxX = Math.max(1, ...xs);
  const maxY = Math.max(0.01, options.reference?.y ?? 0, ...series.flatMap((s) => s.points.map((p) => p[1])));
  const yTop = Math.ceil(maxY * 20) / 20;
  const xOf = (x: number): number => m.left + (x / maxX) * plotW;
  const yOf = (v: number): number => m.top + plotH - (v / yTop) * plotH;
  const frame: Frame = { width, height, m, plotW, plotH, yTop, yOf };
  const parts = chartHead(frame, options.title);
  for (let t = 0; t <= 5; t++) {
    const x = (maxX * t) / 5;
    parts.push(`<text x="${fx(xOf(x))}" y="${m.top + plotH + 16}" text-anchor="middle" fill="#4b5563">${Math.round(x).toLocaleString("en-US")}</text>`);
  }
  parts.push(...axisTitles(frame, options.xLabel, options.yLabel));
  let row = 0;
  if (options.reference) {
    const y = yOf(options.reference.y);
    parts.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${fx(y)}" y2="${fx(y)}" stroke="#000000" stroke-dasharray="6 4"/>`);
    const ly = m.top + plotH + m.bottom + 4;
    parts.push(`<line x1="${m.left}" x2="${m.left + 12}" y1="${ly + 6}" y2="${ly + 6}" stroke="#000000" stroke-dasharray="4 2"/>`);
    parts.push(`<text x="${m.left + 18}" y="${ly + 10}" fill="#111827">${escapeXml(`${options.reference.label} (${options.reference.y.toFixed(3)})`)}</text>`);
    row = 1;
  }
  series.forEach((s, i) => {
    const colour = PALETTE[i % PALETTE.length];
    parts.push(`<polyline points="${s.points.map(([x, y]) => `${fx(xOf(x))},${fx(yOf(y))}`).join(" ")}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    for (const [x, y] of s.points) parts.push(marker(i, xOf(x), yOf(y), colour));
    const ly = m.top + plotH + m.bottom + 4 + 18 * (i + row);
    parts.push(marker(i, m.left + 6, ly + 6, colour));
    parts.push(`<text x="${m.left + 18}" y="${ly + 10}" fill="#111827">${escapeXml(s.label)}</text>`);
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
