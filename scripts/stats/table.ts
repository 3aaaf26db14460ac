/** A number with thousands separators and `digits` decimals. */
export const fmt = (x: number, digits = 0): string => x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** Prints a plain-text table: the first column left-aligned, the others right-aligned, a rule under the header. */
export function table(header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, c) => Math.max(...cells.map((r) => r[c].length)));
  for (const [i, r] of cells.entries()) {
    console.log(r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("  "));
    if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
}
