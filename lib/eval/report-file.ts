import { readFileSync } from "node:fs";

/** A report file read for display: missing or malformed is a state to explain, not an error. */
export type ReportFileState<T> =
  { status: "ok"; path: string; report: T } | { status: "missing"; path: string } | { status: "invalid"; path: string; message: string };

/** Reads `file` and parses it with `parse` (which throws on a malformed text). */
export function readReportFile<T>(file: string, parse: (text: string) => T): ReportFileState<T> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { status: "missing", path: file };
    return { status: "invalid", path: file, message: (err as Error).message };
  }
  try {
    return { status: "ok", path: file, report: parse(text) };
  } catch (err) {
    return { status: "invalid", path: file, message: (err as Error).message };
  }
}
