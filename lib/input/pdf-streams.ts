/**
 * A PDF's compressed streams checked against the unpacking cap before pdf.js reads the file:
 * pdf.js inflates a FlateDecode stream whole, so a 300 KB PDF hiding a 300 MB stream would cost
 * 300 MB and seconds (issue 28). The check walks the raw `stream … endstream` sections, inflates
 * each FlateDecode one that text extraction reads (images are skipped: extraction never decodes
 * them) and counts the bytes against one budget for the whole file.
 */
import { inflatedSize, maxUnpackedBytes, UnpackLimitError } from "@/lib/unpack";

/** The dictionary before a stream keyword is within this many characters of it (the object's header). */
const DICT_WINDOW = 4096;
const STREAM_KEYWORD = /stream(?:\r\n|\n|\r)/g;

interface RawStream {
  dict: string;
  start: number;
  end: number;
}

/** The raw streams of a PDF in file order, each with the dictionary that precedes it. */
function* rawStreams(bytes: Uint8Array): Generator<RawStream> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  STREAM_KEYWORD.lastIndex = 0;
  for (let m = STREAM_KEYWORD.exec(text); m; m = STREAM_KEYWORD.exec(text)) {
    // "endstream" also ends in "stream", but never followed by a line break and data we want.
    if (text.slice(Math.max(0, m.index - 3), m.index) === "end") continue;
    const start = m.index + m[0].length;
    const head = text.slice(Math.max(0, m.index - DICT_WINDOW), m.index);
    const dict = head.slice(head.lastIndexOf("obj") + 1);
    const declared = /\/Length\s+(\d+)\b(?!\s+\d+\s+R)/.exec(dict);
    const found = text.indexOf("endstream", start);
    const end = declared ? Math.min(start + Number(declared[1]), text.length) : found === -1 ? text.length : found;
    yield { dict, start, end };
    STREAM_KEYWORD.lastIndex = Math.max(end, start);
  }
}

/** Streams that text extraction inflates: FlateDecode ones that are not images. */
function extractionReads(dict: string): boolean {
  return /\/(?:FlateDecode|Fl)\b/.test(dict) && !/\/Subtype\s*\/Image\b/.test(dict);
}

/**
 * Throws UnpackLimitError (code too_large) when the PDF's FlateDecode streams together expand
 * beyond `maxBytes`; the check stops at the cap, so a bomb costs at most that much inflating.
 */
export async function checkPdfStreams(bytes: Uint8Array, maxBytes = maxUnpackedBytes()): Promise<void> {
  let used = 0;
  for (const s of rawStreams(bytes)) {
    if (!extractionReads(s.dict)) continue;
    try {
      used += await inflatedSize(bytes.subarray(s.start, s.end), "The PDF", maxBytes - used);
    } catch (err) {
      // The message names the whole file's cap, not what was left of it at this stream.
      if (err instanceof UnpackLimitError) throw new UnpackLimitError("The PDF", maxBytes, maxBytes + 1);
      throw err;
    }
  }
}
