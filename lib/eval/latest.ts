/**
 * Reading reports/eval-latest.json for the web app's Evaluation page (at request time, so a new
 * `graft eval` shows without a rebuild). A missing or malformed file is a state to explain to
 * the reader, not an error page.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "@/lib/db/config";
import { readCsfcubeReport, type CsfcubeState } from "./csfcube-report";
import { CSFCUBE_FILE, parseReport, type EvalReport } from "./report";

/** GRAFT_EVAL_REPORT overrides the file (relative paths resolve against the repository root). */
export function latestReportPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const override = env.GRAFT_EVAL_REPORT?.trim();
  return override ? path.resolve(repoRoot, override) : path.join(repoRoot, "reports", "eval-latest.json");
}

export type LatestReport = { status: "ok"; path: string; report: EvalReport } | { status: "missing"; path: string } | { status: "invalid"; path: string; message: string };

export function readLatestReport(file: string = latestReportPath()): LatestReport {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { status: "missing", path: file };
    return { status: "invalid", path: file, message: (err as Error).message };
  }
  try {
    return { status: "ok", path: file, report: parseReport(text) };
  } catch (err) {
    return { status: "invalid", path: file, message: (err as Error).message };
  }
}

/** The CSFCube dev results beside the evaluation report (reports/csfcube-dev.json by default). */
export function readLatestCsfcube(reportFile: string = latestReportPath()): CsfcubeState {
  return readCsfcubeReport(path.join(path.dirname(reportFile), CSFCUBE_FILE));
}
