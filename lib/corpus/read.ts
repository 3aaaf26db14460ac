/**
 * Reads a corpus (papers, citations, out-of-corpus queries and their gold) from disk into plain
 * typed records, validating every line. Used by `graft import <path>`.
 *
 * All-or-nothing: if any line is invalid, readCorpus throws a CorpusFormatError listing every
 * problem found (up to maxIssues), so an import never starts from a half-read corpus and the
 * user can fix all problems in one pass.
 */
import { existsSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { detectFormat, type ImportFormat } from "./formats/detect";
import { CorpusFormatError, IssueLimitReached, Issues } from "./issues";
import { readLines } from "./lines";
import { paperIdOf, parsePaperRecord } from "./paper-schema";
import type { CitationRecord, InputIssue, PaperRecord } from "./types";

export { CorpusFormatError, formatIssue } from "./issues";

export interface CorpusFiles {
  papers: string;
  citations: string | null;
  queries: string | null;
  queryGold: string | null;
}

export interface CorpusInput {
  files: CorpusFiles;
  /** Corpus papers, in file order. */
  papers: PaperRecord[];
  /** Deduplicated, self-citations dropped, both ends in `papers`. */
  citations: CitationRecord[];
  /** Out-of-corpus query papers (ooc-queries.jsonl), split always null. */
  queries: PaperRecord[];
  /** citing = query id, cited = corpus paper id (ooc-gold.tsv). */
  queryGold: CitationRecord[];
  /** Lines skipped on purpose, with the reason (not errors). */
  skipped: InputIssue[];
  /**
   * Records imported with something left out, with the reason (e.g. a year outside 1000–2100
   * imported as unknown; references to works outside the imported set). Import formats only.
   */
  notices?: InputIssue[];
  /** The format the input was read as (lib/corpus/formats/detect.ts); "graft" when absent. */
  format?: ImportFormat;
}

export interface ReadCorpusOptions {
  /** Stop reading after this many issues (default 1000); a broken file can have millions. */
  maxIssues?: number;
  /**
   * Skip invalid paper lines (recording why in `skipped`) instead of rejecting the input;
   * citations that name a skipped paper are skipped too. For large third-party dumps
   * (e.g. the ACL abstracts file has lines with a null id); off by default.
   */
  skipInvalid?: boolean;
  /** The input's format; detected from the path's name and first line when absent. */
  format?: ImportFormat;
  /** Called every PROGRESS_LINES lines of a papers file (Graft's own layout) with the lines read so far. */
  onProgress?: (linesRead: number) => void;
}

/** Lines between two onProgress calls while reading a papers file. */
export const PROGRESS_LINES = 5000;

// ---------------------------------------------------------------------------------------------
// Locating the files

const LAYOUT = {
  papers: "papers.jsonl",
  citations: "citations.tsv",
  queries: "ooc-queries.jsonl",
  queryGold: "ooc-gold.tsv",
} as const;

const PAPER_FILE = /\.(jsonl|json-lines|ndjson)(\.gz)?$/i;

/** `name` or, failing that, `name.gz` inside dir (the plain file wins if both exist). */
function findInDir(dir: string, name: string): string | null {
  for (const candidate of [name, `${name}.gz`]) {
    const p = join(dir, candidate);
    if (existsSync(p) && statSync(p).isFile()) return p;
  }
  return null;
}

/**
 * Resolves `path` to the files of a corpus: a directory in the acl-citegraph layout
 * (papers.jsonl required; citations.tsv, ooc-queries.jsonl, ooc-gold.tsv optional; each may
 * also be gzipped with a .gz suffix), or a single JSON-lines file of papers.
 */
export function resolveCorpusFiles(path: string): CorpusFiles {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new Error(`Corpus path not found: ${abs}`);
  const stat = statSync(abs);
  if (stat.isDirectory()) {
    const papers = findInDir(abs, LAYOUT.papers);
    if (!papers) {
      throw new Error(
        `No ${LAYOUT.papers} (or ${LAYOUT.papers}.gz) in ${abs}. A corpus directory holds ${LAYOUT.papers} ` +
          `and optionally ${LAYOUT.citations}, ${LAYOUT.queries} and ${LAYOUT.queryGold}.`,
      );
    }
    const files: CorpusFiles = {
      papers,
      citations: findInDir(abs, LAYOUT.citations),
      queries: findInDir(abs, LAYOUT.queries),
      queryGold: findInDir(abs, LAYOUT.queryGold),
    };
    if (files.queryGold && !files.queries) {
      throw new Error(`${basename(files.queryGold)} in ${abs} needs ${LAYOUT.queries} next to it (the gold names query ids).`);
    }
    return files;
  }
  if (!stat.isFile() || !PAPER_FILE.test(abs)) {
    throw new Error(`Not a corpus: ${abs}. Give a corpus directory (with ${LAYOUT.papers}) or a .jsonl / .jsonl.gz / .json-lines file of papers.`);
  }
  return { papers: abs, citations: null, queries: null, queryGold: null };
}

// ---------------------------------------------------------------------------------------------
// Reading

interface PaperFileResult {
  papers: PaperRecord[];
  /** Line of the first occurrence of each id, including ids of lines rejected for other fields. */
  idLines: Map<string, number>;
}

/**
 * Streams a file's lines, turning a read/decompression failure into an issue at the line where
 * it happened (a truncated .gz is a format problem of that file, not a crash).
 */
async function* linesOf(file: string, issues: Issues): AsyncGenerator<{ line: string; lineNo: number }> {
  let last = 0;
  try {
    for await (const l of readLines(file)) {
      last = l.lineNo;
      yield l;
    }
  } catch (err) {
    if (err instanceof IssueLimitReached) throw err;
    // Only zlib data errors (codes Z_*) become issues; e.g. a permission error is rethrown as is.
    const code = (err as NodeJS.ErrnoException).code;
    if (!code?.startsWith("Z_")) throw err;
    issues.add(basename(file), last + 1, `cannot read the file past this line: ${(err as Error).message}`);
  }
}

async function readPaperFile(
  file: string,
  issues: Issues,
  skipped: InputIssue[],
  corpusIds: Map<string, number> | null,
  corpusFileName: string,
  skipInvalid = false,
  onProgress?: (linesRead: number) => void,
): Promise<PaperFileResult> {
  const name = basename(file);
  const papers: PaperRecord[] = [];
  const idLines = new Map<string, number>();
  for await (const { line, lineNo } of linesOf(file, issues)) {
    if (onProgress && lineNo % PROGRESS_LINES === 0) onProgress(lineNo);
    if (line.trim() === "") {
      skipped.push({ file: name, line: lineNo, message: "blank line" });
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      issues.badLine(name, lineNo, `invalid JSON: ${(err as Error).message}`);
      continue;
    }
    const result = parsePaperRecord(value);
    if (!result.ok) {
      if (skipInvalid) {
        issues.badLine(name, lineNo, result.errors.join("; "));
        continue;
      }
      for (const msg of result.errors) issues.add(name, lineNo, withWayForward(msg));
    }

    const id = paperIdOf(value);
    if (id !== null) {
      const first = idLines.get(id);
      if (first !== undefined) {
        issues.badLine(name, lineNo, `duplicate id "${id}" (first on line ${first})`);
        continue;
      }
      idLines.set(id, lineNo);
      const inCorpus = corpusIds?.get(id);
      if (inCorpus !== undefined) {
        issues.add(name, lineNo, `query id "${id}" is also a corpus paper (${corpusFileName}:${inCorpus}); queries must be out of the corpus`);
        continue;
      }
    }
    if (result.ok) papers.push(result.paper);
  }
  return { papers, idLines };
}

/** A year out of range is usually a slip in one record (a real one says 801): say how to get past it. */
function withWayForward(message: string): string {
  return message.startsWith('"year" must be between')
    ? `${message}: fix the year or leave it out (the paper is then imported with the year unknown), or skip such lines with --skip-invalid`
    : message;
}

interface PairFileSpec {
  header: readonly [string, string];
  /** Problem with an id in column `col`, or null if it is fine. */
  checkId: (id: string, col: 0 | 1) => string | null;
  /** Reason to skip a valid row (e.g. a self-citation), or null to keep it. */
  skipReason: (a: string, b: string) => string | null;
}

async function readPairFile(file: string, spec: PairFileSpec, issues: Issues, skipped: InputIssue[]): Promise<CitationRecord[]> {
  const name = basename(file);
  const rows: CitationRecord[] = [];
  const firstLine = new Map<string, number>();
  let sawHeader = false;
  for await (const { line, lineNo } of linesOf(file, issues)) {
    if (line.trim() === "") {
      skipped.push({ file: name, line: lineNo, message: "blank line" });
      continue;
    }
    const cells = line.split("\t").map((c) => c.trim());
    if (!sawHeader) {
      sawHeader = true;
      if (cells.length !== 2 || cells[0] !== spec.header[0] || cells[1] !== spec.header[1]) {
        // Without the right header the columns cannot be trusted, so the rows are not read.
        issues.add(name, lineNo, `header must be "${spec.header.join("<TAB>")}", got ${JSON.stringify(line)}`);
        return rows;
      }
      continue;
    }
    if (cells.length !== 2) {
      issues.add(name, lineNo, `expected 2 tab-separated columns (${spec.header.join(", ")}), got ${cells.length}`);
      continue;
    }
    let ok = true;
    for (const col of [0, 1] as const) {
      const problem = cells[col] === "" ? `empty "${spec.header[col]}" id` : spec.checkId(cells[col], col);
      if (problem) {
        issues.badLine(name, lineNo, problem);
        ok = false;
      }
    }
    if (!ok) continue;
    const [a, b] = cells;
    const reason = spec.skipReason(a, b);
    if (reason) {
      skipped.push({ file: name, line: lineNo, message: reason });
      continue;
    }
    const key = `${a}\t${b}`;
    const first = firstLine.get(key);
    if (first !== undefined) {
      skipped.push({ file: name, line: lineNo, message: `duplicate of line ${first}` });
      continue;
    }
    firstLine.set(key, lineNo);
    rows.push({ citing: a, cited: b });
  }
  return rows;
}

/**
 * Reads and validates a whole corpus. Graft's own layout (papers.jsonl, citations.tsv, …) is
 * read here, resolving `path` with resolveCorpusFiles (whose errors are thrown as plain
 * Errors); the other formats (BibTeX, RIS, OpenAlex, Semantic Scholar, arXiv) by their readers
 * in formats/. Throws CorpusFormatError if any line of any file is invalid.
 */
export async function readCorpus(path: string, options: ReadCorpusOptions = {}): Promise<CorpusInput> {
  const format = options.format ?? (await detectFormat(path));
  if (format !== "graft") {
    // Loaded on demand: the parsers of the other formats are only needed to import them.
    const { readFormat } = await import("./formats/index");
    return readFormat(format, path, options);
  }
  const files = resolveCorpusFiles(path);
  const maxIssues = Math.max(1, options.maxIssues ?? 1000);
  const skipped: InputIssue[] = [];
  const skipInvalid = options.skipInvalid ?? false;
  const issues = new Issues(maxIssues, skipInvalid ? skipped : null);
  const input: CorpusInput = { files, papers: [], citations: [], queries: [], queryGold: [], skipped };

  try {
    const papersName = basename(files.papers);
    const corpus = await readPaperFile(files.papers, issues, skipped, null, papersName, skipInvalid, options.onProgress);
    input.papers = corpus.papers;
    if (corpus.idLines.size === 0 && issues.list.length === 0) issues.add(papersName, 0, "contains no papers");

    // Ids of rejected lines count as known here: their line is already reported, and a second
    // "unknown id" error for each of their citations would bury the real problem.
    const inCorpus = (id: string) => corpus.idLines.has(id);

    let queryIds = new Map<string, number>();
    if (files.queries) {
      const queries = await readPaperFile(files.queries, issues, skipped, corpus.idLines, papersName, skipInvalid);
      // Queries are outside the corpus, so they belong to no train/dev/test split.
      input.queries = queries.papers.map((q) => ({ ...q, split: null }));
      queryIds = queries.idLines;
    }

    if (files.citations) {
      input.citations = await readPairFile(
        files.citations,
        {
          header: ["citing", "cited"],
          checkId: (id, col) => (inCorpus(id) ? null : `unknown ${col === 0 ? "citing" : "cited"} paper "${id}" (not in ${papersName})`),
          skipReason: (a, b) => (a === b ? `self-citation of "${a}"` : null),
        },
        issues,
        skipped,
      );
    }

    if (files.queryGold && files.queries) {
      const queriesName = basename(files.queries);
      input.queryGold = await readPairFile(
        files.queryGold,
        {
          header: ["query", "cited"],
          checkId: (id, col) =>
            col === 0
              ? queryIds.has(id)
                ? null
                : `unknown query "${id}" (not in ${queriesName})`
              : inCorpus(id)
                ? null
                : `unknown cited paper "${id}" (not in ${papersName})`,
          skipReason: () => null,
        },
        issues,
        skipped,
      );
    }
  } catch (err) {
    if (err instanceof IssueLimitReached) throw new CorpusFormatError(issues.list, { truncatedAt: maxIssues });
    throw err;
  }

  if (issues.list.length > 0) throw new CorpusFormatError(issues.list);
  return input;
}
