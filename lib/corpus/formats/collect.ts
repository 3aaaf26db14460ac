/**
 * What every import format reader feeds: paper records located by file and line, and citation
 * pairs. Records are validated by the one paper schema (paper-schema.ts), so a BibTeX entry, a
 * RIS record or an OpenAlex work is held to the same rules and reported in the same words as a
 * papers.jsonl line; `finish` returns the same CorpusInput the JSONL reader does, for the same
 * all-or-nothing import.
 */
import { basename } from "node:path";
import { CorpusFormatError, IssueLimitReached, Issues } from "../issues";
import { MAX_YEAR, MIN_YEAR, paperIdOf, parsePaperRecord } from "../paper-schema";
import type { CorpusFiles, CorpusInput } from "../read";
import type { CitationRecord, InputIssue, PaperRecord } from "../types";
import type { ImportFormat } from "./detect";

/** Where a record starts: the file's base name and a 1-based line (0 = the file as a whole). */
export interface Location {
  file: string;
  line: number;
}

/** A record in the paper schema's field names (id, title, abstract, year, venue, authors), before validation. */
export type RawPaper = Record<string, unknown>;

export interface CollectOptions {
  /** Stop after this many issues (default 1000). */
  maxIssues?: number;
  /** Skip invalid records (listed in `skipped`) instead of rejecting the input. */
  skipInvalid?: boolean;
}

export const fmtCount = (n: number) => n.toLocaleString("en-US");

export class CorpusCollector {
  readonly skipped: InputIssue[] = [];
  readonly notices: InputIssue[] = [];
  readonly issues: Issues;
  readonly skipInvalid: boolean;
  readonly maxIssues: number;
  private readonly papers: PaperRecord[] = [];
  private readonly firstAt = new Map<string, Location>();
  private readonly pairs: CitationRecord[] = [];

  constructor(options: CollectOptions = {}) {
    this.maxIssues = Math.max(1, options.maxIssues ?? 1000);
    this.skipInvalid = options.skipInvalid ?? false;
    this.issues = new Issues(this.maxIssues, this.skipInvalid ? this.skipped : null);
  }

  /** An error that rejects the input (whatever --skip-invalid says): unreadable files, broken structure. */
  error(at: Location, message: string): void {
    this.issues.add(at.file, at.line, message);
  }

  /** A record that cannot be a paper: an error, or a skip with its reason under --skip-invalid. */
  badRecord(at: Location, message: string): void {
    this.issues.badLine(at.file, at.line, message);
  }

  /** A line passed over on purpose (not an error). */
  skip(at: Location, message: string): void {
    this.skipped.push({ ...at, message });
  }

  /** A record imported with something left out. */
  notice(at: Location, message: string): void {
    this.notices.push({ ...at, message });
  }

  /** Has a paper with this id been collected (valid or not)? */
  has(id: string): boolean {
    return this.firstAt.has(id);
  }

  /**
   * Validates one record as a paper and keeps it. A year outside 1000–2100 (a page number, a
   * typo: a real record says 801) does not reject the record: it is imported without a year
   * and listed as a notice. A year given as text that holds no number is treated the same way.
   */
  paper(at: Location, value: RawPaper): boolean {
    // A field the source lacks or leaves null reads as missing ("title" is missing).
    const record = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined));
    let yearNote: string | null = null;
    const y = value.year;
    if (typeof y === "number" && (!Number.isInteger(y) || y < MIN_YEAR || y > MAX_YEAR)) {
      yearNote = `year ${y} is outside ${MIN_YEAR}–${MAX_YEAR}: imported without a year (fix it in the source to keep it)`;
      delete record.year;
    } else if (typeof y === "string") {
      yearNote = `year ${JSON.stringify(y)} is not a year: imported without a year`;
      delete record.year;
    }
    const result = parsePaperRecord(record);
    const id = paperIdOf(record);
    if (id !== null) {
      const first = this.firstAt.get(id);
      if (first) {
        const where = first.file === at.file ? `line ${first.line}` : `${first.file}:${first.line}`;
        this.badRecord(at, `duplicate id "${id}" (first on ${where})`);
        return false;
      }
      this.firstAt.set(id, at);
    }
    if (!result.ok) {
      if (this.skipInvalid) this.badRecord(at, result.errors.join("; "));
      else for (const msg of result.errors) this.error(at, msg);
      return false;
    }
    if (yearNote) this.notice(at, yearNote);
    this.papers.push(result.paper);
    return true;
  }

  /** `citing` cites `cited` (ids in the records' own id form); pairs outside the imported set are dropped at the end. */
  citation(citing: string, cited: string): void {
    this.pairs.push({ citing, cited });
  }

  /**
   * The collected corpus; throws CorpusFormatError when any record was invalid. Only
   * citations whose both ends were imported become corpus citations; the others (references
   * to works outside the file, the norm for OpenAlex and Semantic Scholar) are counted in one
   * notice, not listed.
   */
  finish(files: CorpusFiles, format: ImportFormat, label: Location): CorpusInput {
    if (this.firstAt.size === 0 && this.issues.list.length === 0) this.error({ file: label.file, line: 0 }, "contains no papers");
    if (this.issues.list.length > 0) throw new CorpusFormatError(inReadingOrder(this.issues.list));
    const kept = new Set(this.papers.map((p) => p.externalId));
    const seen = new Set<string>();
    const citations: CitationRecord[] = [];
    let outside = 0;
    let self = 0;
    for (const c of this.pairs) {
      if (c.citing === c.cited) {
        self++;
        continue;
      }
      if (!kept.has(c.citing) || !kept.has(c.cited)) {
        outside++;
        continue;
      }
      const key = `${c.citing}\t${c.cited}`;
      if (seen.has(key)) continue;
      seen.add(key);
      citations.push(c);
    }
    const where = { file: files.citations ? basename(files.citations) : label.file, line: 0 };
    if (outside > 0) {
      this.notice(
        where,
        `${fmtCount(outside)} reference${outside === 1 ? "" : "s"} to works outside the imported set left out (only citations between imported papers become corpus citations)`,
      );
    }
    if (self > 0) this.notice(where, `${fmtCount(self)} self-citation${self === 1 ? "" : "s"} left out`);
    return { files, papers: this.papers, citations, queries: [], queryGold: [], skipped: this.skipped, notices: this.notices, format };
  }

  /** Runs a reader, turning "too many issues" into the error that lists them. */
  static async run<T>(collector: CorpusCollector, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (err instanceof IssueLimitReached) throw new CorpusFormatError(inReadingOrder(collector.issues.list), { truncatedAt: collector.maxIssues });
      throw err;
    }
  }
}

/**
 * Issues by file (in the order the files were first reported) and line: a reader may check a
 * record after reading other files (an S2 paper once its abstract is known).
 */
function inReadingOrder(issues: InputIssue[]): InputIssue[] {
  const rank = new Map<string, number>();
  for (const i of issues) if (!rank.has(i.file)) rank.set(i.file, rank.size);
  return issues
    .map((issue, at) => ({ issue, at }))
    .sort((a, b) => rank.get(a.issue.file)! - rank.get(b.issue.file)! || a.issue.line - b.issue.line || a.at - b.at)
    .map((x) => x.issue);
}
