/**
 * POST /api/admin/corpora/import, framework-free: papers an admin uploads (BibTeX, RIS,
 * OpenAlex, Semantic Scholar, arXiv or Graft JSONL) go through the very code `graft import`
 * runs — readCorpus (validation, `file:line: message` issues) then importCorpus (one
 * transaction, idempotent) — so a rejected file writes nothing and a second upload of the same
 * file writes nothing new. The route checks the admin session; this file does the rest.
 */
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { corpusName, FORMAT_NAMES, IMPORT_FORMATS, type ImportFormat, CorpusFormatError, formatIssue, type InputIssue } from "@/lib/corpus";
import { readCorpus } from "@/lib/corpus/read";
import { importCorpus, type ImportCounts } from "@/lib/corpus/import";
import type { Db } from "@/lib/db";
import { CodedError } from "@/lib/errors";
import { codedResponse, errorResponse, json, parseWith } from "@/lib/http";
import { formatBytes, resolveLimits } from "@/lib/input";
import { makeTempDir } from "@/lib/temp-dir";
import { gzipUnpackedSize } from "@/lib/unpack";
import { safeName } from "./library-file";

/** The form's format choice: one of the import formats, or "detect" (told from the name and first line, as the CLI does). */
export const UPLOAD_FORMATS = ["detect", ...IMPORT_FORMATS] as const;
export type UploadFormat = (typeof UPLOAD_FORMATS)[number];

/** Most files one upload may carry (a Semantic Scholar sample: papers, abstracts, citations; a corpus directory: four). */
const MAX_FILES = 8;
/** Lines of notices and skipped records the answer lists (the counts are always complete). */
const LISTED_LINES = 100;

/** The form's fields besides the files, checked at the edge. */
export const corpusUploadForm = z
  .object({
    corpus: corpusName,
    format: z.enum(UPLOAD_FORMATS, { error: `format must be one of: ${UPLOAD_FORMATS.join(", ")}` }).default("detect"),
    description: z.string().trim().max(2000, "description is longer than 2000 characters").optional(),
    // An HTML checkbox sends "on" when ticked and nothing otherwise.
    skipInvalid: z
      .enum(["on", "true", "false", "1", "0"], { error: "skipInvalid must be true or false" })
      .optional()
      .transform((v) => v === "on" || v === "true" || v === "1"),
  })
  .strict();

/** What an upload did, for the admin page (and any script that posts a file). */
export interface CorpusUploadResult {
  corpus: string;
  /** True when this upload created the corpus. */
  newCorpus: boolean;
  files: string[];
  format: ImportFormat;
  formatName: string;
  papers: ImportCounts;
  /** Papers of the file already in the corpus (unchanged or updated). */
  alreadyPresent: number;
  withoutAbstract: number;
  citations: { created: number; deleted: number; total: number };
  notices: { count: number; lines: string[] };
  skipped: { count: number; lines: string[] };
  /** Papers of the corpus, and how many of them have no facet items yet (offline extraction fills them). */
  corpusPapers: number;
  papersWithoutFacets: number;
  /** The CLI commands that take the corpus on to a servable graph. */
  nextSteps: { what: string; command: string }[];
  seconds: number;
}

/** An upload the importer refuses; `issues` are the file's problems (line 0: the file as a whole). */
export class CorpusUploadError extends CodedError {
  constructor(
    message: string,
    readonly issues: InputIssue[] = [],
  ) {
    super("invalid_request", message);
    this.name = "CorpusUploadError";
  }
}

export interface CorpusUploadOptions {
  /** Largest upload in bytes, all files together (default: GRAFT_MAX_UPLOAD_MB, the proxy's upload limit). */
  maxBytes?: number;
}

const listed = (issues: readonly InputIssue[]) => {
  const lines = issues.slice(0, LISTED_LINES).map(formatIssue);
  if (issues.length > LISTED_LINES) lines.push(`… and ${issues.length - LISTED_LINES} more`);
  return lines;
};

/** The CLI steps after an import: facets first when papers lack them, then the graph build that serves the corpus. */
function nextStepsOf(corpus: string, withoutFacets: number): { what: string; command: string }[] {
  const steps: { what: string; command: string }[] = [];
  if (withoutFacets > 0)
    steps.push({
      what: `extract the four facets of the ${withoutFacets.toLocaleString("en-US")} papers that have none (offline, resumable)`,
      command: `npm run graft -- extract --corpus ${corpus}`,
    });
  steps.push({ what: "build the typed graph the explorer serves", command: `npm run graft -- build --stage graph --corpus ${corpus}` });
  return steps;
}

/**
 * Imports the files of a multipart body into the named corpus: `readCorpus` then `importCorpus`
 * on a private copy in a temp folder (one file: that file; several: their folder, as a corpus
 * directory or a Semantic Scholar sample). Throws CorpusUploadError when the input is refused.
 */
export async function importUploadedFiles(
  db: Db,
  files: { name: string; bytes: Uint8Array }[],
  form: z.output<typeof corpusUploadForm>,
): Promise<CorpusUploadResult> {
  const dir = makeTempDir("graft-import");
  // Paths in reader messages are the temp copy's: show the uploaded name only.
  const local = (message: string) => message.split(dir + path.sep).join("");
  try {
    const names: string[] = [];
    for (const f of files) {
      const name = safeName(f.name);
      if (names.includes(name)) throw new CorpusUploadError(`Two files are named ${name}: upload each file once.`);
      names.push(name);
      // A gzip bomb is refused here (413), counting as it unpacks, before any reader holds it whole.
      await gzipUnpackedSize(f.bytes, name);
      writeFileSync(path.join(dir, name), f.bytes);
    }
    const source = names.length === 1 ? path.join(dir, names[0]) : dir;
    let input;
    try {
      input = await readCorpus(source, { format: form.format === "detect" ? undefined : form.format, skipInvalid: form.skipInvalid });
    } catch (err) {
      if (err instanceof CorpusFormatError) {
        const n = err.issues.length;
        throw new CorpusUploadError(`${names.join(", ")} ${n === 1 ? "has a problem" : `has ${n} problems`}; nothing was imported.`, err.issues);
      }
      // The readers' other errors are about the input too (format not told, a layout's missing file).
      // The detector's advice names the CLI flag; here the form's format field says it.
      if (err instanceof Error) throw new CorpusUploadError(local(err.message).replace(/give --format [\w|]+/, "pick its format in the form"));
      throw err;
    }
    const existed = (await db.corpus.findUnique({ where: { name: form.corpus }, select: { id: true } })) !== null;
    const summary = await importCorpus(db, input, {
      corpus: form.corpus,
      description: form.description,
      source: `upload: ${names.join(", ")}`,
    });
    const where = { corpus: { name: form.corpus }, role: "corpus" };
    const [corpusPapers, papersWithoutFacets] = await Promise.all([
      db.paper.count({ where }),
      db.paper.count({ where: { ...where, facetItems: { none: {} } } }),
    ]);
    const format = input.format ?? "graft";
    return {
      corpus: summary.corpus,
      newCorpus: !existed,
      files: names,
      format,
      formatName: FORMAT_NAMES[format],
      papers: summary.papers,
      alreadyPresent: summary.papers.updated + summary.papers.unchanged,
      withoutAbstract: summary.withoutAbstract,
      citations: summary.citations,
      notices: { count: summary.notices.length, lines: listed(summary.notices).map(local) },
      skipped: { count: summary.skipped.length, lines: listed(summary.skipped).map(local) },
      corpusPapers,
      papersWithoutFacets,
      nextSteps: nextStepsOf(summary.corpus, papersWithoutFacets),
      seconds: summary.seconds,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The HTTP exchange: multipart/form-data with one or more "file" fields and the fields of
 * corpusUploadForm → 200 CorpusUploadResult; a refused file → 400 `invalid_request` whose issues
 * are `{ path: "file:line", message }`; too large → 413; not multipart → 415.
 */
export async function handleCorpusUpload(req: Request, db: Db, options: CorpusUploadOptions = {}): Promise<Response> {
  try {
    const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type !== "multipart/form-data")
      return codedResponse(
        "unsupported_media_type",
        `Send multipart/form-data with a "file" field and a "corpus" name; got ${type ? `"${type}"` : "no content type"}.`,
      );
    let body: FormData;
    try {
      body = await req.formData();
    } catch {
      throw new CorpusUploadError('The multipart body could not be read; send the papers in a "file" field.');
    }
    const files = body.getAll("file").filter((f): f is File => typeof f !== "string");
    const fields = Object.fromEntries([...body.entries()].filter(([k, v]) => k !== "file" && typeof v === "string" && v.trim() !== ""));
    const form = parseWith(corpusUploadForm, fields);
    if (files.length === 0) throw new CorpusUploadError('The form has no "file" field: attach a BibTeX, RIS, OpenAlex, Semantic Scholar, arXiv or JSONL file.');
    if (files.length > MAX_FILES) throw new CorpusUploadError(`${files.length} files: an upload may carry at most ${MAX_FILES}.`);
    const maxBytes = options.maxBytes ?? resolveLimits().maxBytes;
    const size = files.reduce((s, f) => s + f.size, 0);
    if (size > maxBytes)
      throw new CodedError(
        "too_large",
        `The upload is ${formatBytes(size)}, more than the ${formatBytes(maxBytes)} it may be (GRAFT_MAX_UPLOAD_MB). ` +
          `Import a larger file from the command line: npm run graft -- import <file> --corpus ${form.corpus}`,
      );
    const read = await Promise.all(files.map(async (f) => ({ name: f.name || "papers", bytes: new Uint8Array(await f.arrayBuffer()) })));
    return json(await importUploadedFiles(db, read, form));
  } catch (err) {
    if (err instanceof CorpusUploadError)
      return codedResponse(err.code, err.message, {
        issues: err.issues.length > 0 ? err.issues.map((i) => ({ path: i.line > 0 ? `${i.file}:${i.line}` : i.file, message: i.message })) : undefined,
      });
    return errorResponse(err, "POST /api/admin/corpora/import");
  }
}
