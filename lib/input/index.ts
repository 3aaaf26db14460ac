/**
 * Paper input: what a user brings (pasted text, an uploaded PDF, a JSON record, or a file of
 * unknown kind) becomes a validated InputPaper, or an InputError with a status and a sentence
 * to show. Nothing is stored here, so a rejected input leaves no trace behind.
 */
import { InputError } from "./errors";
import { checkSize, resolveLimits, type InputLimits } from "./limits";
import { paperFromJson } from "./json";
import { hasPdfHeader, paperFromPdf } from "./pdf";
import { paperFromText } from "./text";
import type { InputPaper } from "./types";

export { InputError, INPUT_ERROR_CODES, type InputErrorCode } from "./errors";
export { checkSize, formatBytes, resolveLimits, type InputLimits } from "./limits";
export { paperFromJson } from "./json";
export { paperFromPdf } from "./pdf";
export { paperFromText } from "./text";
export { countedChars, DEFAULT_MIN_CHARS } from "./text-amount";
export type { InputPaper, PaperMetadata, PaperSection } from "./types";

export type PaperInput =
  | { kind: "text"; text: string }
  | { kind: "pdf"; bytes: Uint8Array }
  | { kind: "json"; text: string }
  /** An uploaded file whose kind is told from its content (the name only breaks ties). */
  | { kind: "file"; name: string; bytes: Uint8Array };

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

/** Bytes after a leading UTF-8 byte order mark and white space. */
function firstSignificantByte(bytes: Uint8Array): number | undefined {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  return bytes[i];
}

/** No bytes, or only white space. */
function isBlank(bytes: Uint8Array): boolean {
  return bytes.every((b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d);
}

/** UTF-8 text, or null for binary data (invalid UTF-8 or NUL bytes, as in images and archives). */
function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

async function readFile(name: string, bytes: Uint8Array, limits: InputLimits): Promise<InputPaper> {
  checkSize(bytes.byteLength, limits, "file");
  if (isBlank(bytes)) {
    throw new InputError(
      "empty",
      `The file "${name}" is empty${bytes.byteLength === 0 ? " (0 bytes)" : ""}; upload the paper as a PDF, a text file or a JSON record.`,
    );
  }
  const text = decodeText(bytes);
  // A PDF starts with %PDF- (the spec tolerates junk before it; text that merely mentions it is text).
  if (startsWith(bytes, PDF_MAGIC) || (text === null && hasPdfHeader(bytes))) return paperFromPdf(bytes, limits);
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  // Named .pdf but no PDF header: say it is not a PDF rather than read it as text.
  if (ext === "pdf") return paperFromPdf(bytes, limits);
  if (text === null) {
    throw new InputError("not_pdf", `The file "${name}" is neither a PDF nor text; upload the paper as a PDF, a text file or a JSON record.`);
  }
  if (firstSignificantByte(bytes) === 0x7b /* { */ || ext === "json") return paperFromJson(text, limits);
  return paperFromText(text, limits);
}

/** Reads any supported input into a paper; throws InputError when it cannot be used. */
export async function readPaperInput(input: PaperInput, limits?: Partial<InputLimits>): Promise<InputPaper> {
  const lim = resolveLimits(limits);
  switch (input.kind) {
    case "text":
      return paperFromText(input.text, lim);
    case "json":
      return paperFromJson(input.text, lim);
    case "pdf":
      return paperFromPdf(input.bytes, lim);
    case "file":
      return readFile(input.name, input.bytes, lim);
  }
}
