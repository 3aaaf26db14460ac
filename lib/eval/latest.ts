/**
 * Reading reports/eval-latest.json for the web app's Evaluation page (at request time, so a new
 * `graft eval` shows without a rebuild). A missing or malformed file is a state to explain to
 * the reader, not an error page.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { configFrom, type Env } from "@/lib/config";
import { repoRoot } from "@/lib/paths";
import { readCsfcubeReport, type CsfcubeState } from "./csfcube-report";
import { CSFCUBE_FILE, parseReport, type EvalReport } from "./report";

/** The report file: GRAFT_EVAL_REPORT of this process (or of `env`), relative to the repository root. */
export function latestReportPath(env?: Env): string {
  return path.resolve(repoRoot, configFrom(env).GRAFT_EVAL_REPORT);
}

export type LatestReport =
  { status: "ok"; path: string; report: EvalReport } | { status: "missing"; path: string } | { status: "invalid"; path: string; message: string };

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
