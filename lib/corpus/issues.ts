/**
 * Problems found in input files, located as `file:line: message`, and the one error that
 * rejects an input as a whole. Shared by the JSONL reader (read.ts) and the import formats
 * (formats/), so every way papers enter reports problems the same way.
 */
import type { InputIssue } from "./types";

/** How many issues the error message itself lists; `issues` always has them all. */
const MESSAGE_ISSUES = 20;

export function formatIssue(issue: InputIssue): string {
  // Line 0 means the file as a whole.
  return issue.line > 0 ? `${issue.file}:${issue.line}: ${issue.message}` : `${issue.file}: ${issue.message}`;
}

export class CorpusFormatError extends Error {
  readonly issues: InputIssue[];

  constructor(issues: InputIssue[], options: { truncatedAt?: number } = {}) {
    const n = issues.length;
    const head = options.truncatedAt
      ? `Corpus input is invalid: stopped after ${n} issues (maxIssues = ${options.truncatedAt}); there may be more:`
      : `Corpus input is invalid: ${n} issue${n === 1 ? "" : "s"}:`;
    const lines = issues.slice(0, MESSAGE_ISSUES).map((i) => `  ${formatIssue(i)}`);
    if (n > MESSAGE_ISSUES) lines.push(`  ... and ${n - MESSAGE_ISSUES} more`);
    super([head, ...lines].join("\n"));
    this.name = "CorpusFormatError";
    this.issues = issues;
  }
}

/** Thrown internally once maxIssues is reached, to stop reading early. */
export class IssueLimitReached extends Error {}

export class Issues {
  readonly list: InputIssue[] = [];
  constructor(
    private readonly max: number,
    private readonly skipped: InputIssue[] | null = null,
  ) {}

  /** A bad paper line: an error, or a skip with its reason in skipInvalid mode. */
  badLine(file: string, line: number, message: string): void {
    if (this.skipped) this.skipped.push({ file, line, message: `skipped invalid line: ${message}` });
    else this.add(file, line, message);
  }

  add(file: string, line: number, message: string): void {
    this.list.push({ file, line, message });
    if (this.list.length >= this.max) throw new IssueLimitReached();
  }
}
