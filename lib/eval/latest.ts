/**
 * Reading reports/eval-latest.json for the web app's Evaluation page (at request time, so a new
 * `graft eval` shows without a rebuild). A missing or malformed file is a state to explain to
 * the reader, not an error page.
 */
import path from "node:path";
import { configFrom, type Env } from "@/lib/config";
import { repoRoot } from "@/lib/paths";
import { readCsfcubeReport, type CsfcubeState } from "./csfcube-report";
import { CSFCUBE_FILE, parseReport, type EvalReport } from "./report";
import { readReportFile, type ReportFileState } from "./report-file";

/** The report file: GRAFT_EVAL_REPORT of this process (or of `env`), relative to the repository root. */
export function latestReportPath(env?: Env): string {
  return path.resolve(repoRoot, configFrom(env).GRAFT_EVAL_REPORT);
}

export type LatestReport = ReportFileState<EvalReport>;

export function readLatestReport(file: string = latestReportPath()): LatestReport {
  return readReportFile(file, parseReport);
}

/** The CSFCube dev results beside the evaluation report (reports/csfcube-dev.json by default). */
export function readLatestCsfcube(reportFile: string = latestReportPath()): CsfcubeState {
  return readCsfcubeReport(path.join(path.dirname(reportFile), CSFCUBE_FILE));
}
