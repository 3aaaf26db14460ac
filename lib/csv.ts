/**
 * The one CSV writer (RFC 4180): fields with a comma, quote or line break, or with white space at
 * either end, are quoted, quotes doubled; rows end in CRLF. Text a spreadsheet would run as a
 * formula (= + - @, tab or carriage return first) gets a leading apostrophe (OWASP's
 * CSV-injection advice), so opening an export never evaluates a title or a rationale. Used by the
 * result export (lib/export) and the annotation study's downloads (lib/annotation).
 */
export type CsvValue = string | number | boolean | null | undefined;

/** One field: empty for null, undefined and non-finite numbers. */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  let s = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A header row and data rows, CRLF after each. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  return [header, ...rows].map((r) => r.map(csvField).join(",")).join("\r\n") + "\r\n";
}
