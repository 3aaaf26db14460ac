/**
 * Reading an uploaded library (BibTeX or RIS) with the corpus importers' own readers
 * (lib/corpus/formats), so an upload is parsed, validated and located exactly as
 * `graft import --format bibtex|ris` would: a broken entry is reported as `file:line: message`
 * and rejects the file as a whole (the browser keeps the library it had).
 */
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CorpusFormatError, formatIssue, sniffLine } from "@/lib/corpus";
import { readBibtex, CorpusCollector, type Location, type RawPaper, readRis } from "@/lib/corpus/formats";
import { CodedError } from "@/lib/errors";
import { codedResponse, errorResponse, json } from "@/lib/http";
import { makeTempDir } from "@/lib/temp-dir";
import { gzipUnpackedSize } from "@/lib/unpack";
import type { Library, LibraryEntry } from "./library";

/** Most entries a library may hold (a large Zotero library has a few thousand). */
export const MAX_LIBRARY_ENTRIES = 20_000;
/** How many of a bad file's problems the error lists. */
const LISTED_ISSUES = 10;

/** A library file that cannot be read; the message lists its problems as `file:line: message`. */
export class LibraryFileError extends CodedError {
  constructor(
    message: string,
    readonly issues: { file: string; line: number; message: string }[] = [],
  ) {
    super("invalid_request", message);
    this.name = "LibraryFileError";
  }
}

/** Keeps each valid entry's line and DOI, which the paper records themselves do not carry. */
class LibraryCollector extends CorpusCollector {
  readonly entries: LibraryEntry[] = [];

  override paper(at: Location, value: RawPaper): boolean {
    const ok = super.paper(at, value);
    if (ok) {
      const year = typeof value.year === "number" && Number.isInteger(value.year) ? value.year : null;
      this.entries.push({ key: String(value.id), doi: typeof value.doi === "string" ? value.doi : null, title: String(value.title), year, line: at.line });
    }
    return ok;
  }
}

/** The format a file's name or, failing that, its first meaningful line says; null when neither does. */
export function libraryFormat(name: string, text: string): Library["format"] | null {
  // A gzipped export (library.bib.gz) is read as the format its inner name says.
  const ext = path.extname(name.replace(/\.gz$/i, "")).toLowerCase();
  if (ext === ".bib" || ext === ".bibtex") return "bibtex";
  if (ext === ".ris") return "ris";
  for (const line of text.split(/\r\n|\n|\r/)) {
    if (line.trim() === "" || line.trim().startsWith("%")) continue;
    const f = sniffLine(line.replace(/^\uFEFF/, ""));
    return f === "bibtex" || f === "ris" ? f : null;
  }
  return null;
}

/** A file name safe to write in a temp folder, ending as the upload did (error messages quote it). */
export function safeName(name: string): string {
  const base = path
    .basename(name.replace(/\\/g, "/"))
    .replace(/[^\w.\- ]+/g, "_")
    .slice(-120);
  return base && base !== "." && base !== ".." ? base : "library";
}

/** Parses an uploaded BibTeX or RIS library; throws LibraryFileError naming every problem by file and line. */
export async function readLibraryFile(name: string, bytes: Uint8Array): Promise<Library> {
  const fileName = safeName(name);
  // A gzip bomb is refused here (413), counting as it unpacks, before any reader holds it whole.
  await gzipUnpackedSize(bytes, fileName);
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, 4096));
  const format = libraryFormat(fileName, text);
  if (!format)
    throw new LibraryFileError(
      `${fileName}: not a BibTeX (.bib) or RIS (.ris) file: export your library from Zotero, Mendeley or JabRef in one of those formats`,
    );
  // The readers take a path (they also read gzip and UTF-16 exports): hand them a private copy.
  const dir = makeTempDir("graft-library");
  try {
    const file = path.join(dir, fileName);
    writeFileSync(file, bytes);
    const collector = new LibraryCollector();
    await CorpusCollector.run(collector, async () => {
      const files = await (format === "bibtex" ? readBibtex : readRis)(file, collector);
      collector.finish(files, format, { file: fileName, line: 0 });
    });
    if (collector.entries.length > MAX_LIBRARY_ENTRIES)
      throw new LibraryFileError(`${fileName}: ${collector.entries.length} entries, more than the ${MAX_LIBRARY_ENTRIES} a library may hold`);
    return { name: fileName, format, entries: collector.entries };
  } catch (err) {
    if (err instanceof CorpusFormatError) {
      const n = err.issues.length;
      const listed = err.issues.slice(0, LISTED_ISSUES).map(formatIssue);
      const more = n > LISTED_ISSUES ? [`… and ${n - LISTED_ISSUES} more`] : [];
      throw new LibraryFileError([`${fileName} is not a valid library (${n} problem${n === 1 ? "" : "s"}):`, ...listed, ...more].join("\n"), err.issues);
    }
    throw err;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Largest library file accepted (the request screen also caps upload bodies). */
export const MAX_LIBRARY_BYTES = 20 * 1024 * 1024;

/**
 * POST /api/uploads/library, framework-free: a multipart body with the file in a "file" field →
 * the Library (200), or `{ error: { code: "invalid_request", message, issues } }` (400) whose
 * issues are the file's problems with `path` "file:line".
 */
export async function handleLibraryUpload(req: Request): Promise<Response> {
  try {
    const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type !== "multipart/form-data")
      return codedResponse(
        "unsupported_media_type",
        `Send the library as multipart/form-data with a "file" field (.bib or .ris); got ${type ? `"${type}"` : "no content type"}.`,
      );
    let form: FormData;
    try {
      form = await req.formData();
    } catch {
      throw new LibraryFileError('The multipart body could not be read; send the library in a "file" field.');
    }
    const file = form.get("file");
    if (file === null || typeof file === "string") throw new LibraryFileError('The form has no "file" field: attach a BibTeX (.bib) or RIS (.ris) file.');
    if (file.size > MAX_LIBRARY_BYTES)
      return codedResponse("too_large", `${file.name} is larger than the ${MAX_LIBRARY_BYTES / 1024 / 1024} MB a library file may be.`);
    return json(await readLibraryFile(file.name || "library", new Uint8Array(await file.arrayBuffer())));
  } catch (err) {
    if (err instanceof LibraryFileError && err.issues.length > 0)
      return codedResponse(err.code, err.message, {
        issues: err.issues.map((i) => ({ path: i.line > 0 ? `${i.file}:${i.line}` : i.file, message: i.message })),
      });
    return errorResponse(err, "POST /api/uploads/library");
  }
}
