/**
 * Capped decompression for untrusted input (issue 28: a 614 KB gzip that unpacks to 600 MiB, a
 * PDF hiding a 300 MB stream). Every cap is checked while unpacking, so a bomb costs at most the
 * cap's worth of work and a chunk's worth of memory, never its full size. The cap comes from
 * GRAFT_MAX_UNPACKED_MB (lib/config.ts) unless a caller passes one.
 */
import { createGunzip, createInflate, gunzipSync, inflateSync, type Gunzip, type Inflate } from "node:zlib";
import { config } from "@/lib/config";
import { CodedError } from "@/lib/errors";

const MB = 1024 * 1024;
/** Larger output chunks than zlib's 16 KB default: a bomb's zeros are counted four times faster. */
const CHUNK = 256 * 1024;

/** The configured cap on unpacked bytes (GRAFT_MAX_UNPACKED_MB). */
export function maxUnpackedBytes(): number {
  return Math.floor(config().GRAFT_MAX_UNPACKED_MB * MB);
}

/** A compressed input that expands beyond the cap; `unpacked` is how far it got before being stopped. */
export class UnpackLimitError extends CodedError {
  constructor(
    what: string,
    readonly maxBytes: number,
    readonly unpacked: number,
  ) {
    super(
      "too_large",
      `${what} expands beyond ${Math.round((maxBytes / MB) * 10) / 10} MB when unpacked (GRAFT_MAX_UNPACKED_MB); it was refused before unpacking it whole.`,
    );
    this.name = "UnpackLimitError";
  }
}

/** True for data that starts with the gzip magic bytes 1f 8b. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * Unpacks `data` through `stream` keeping nothing but a count: resolves with the unpacked size,
 * rejects with UnpackLimitError as soon as the count passes `maxBytes` (the stream is destroyed
 * then, so no more is inflated), or with zlib's own error for corrupt data.
 */
function countThrough(stream: Gunzip | Inflate, data: Uint8Array, maxBytes: number, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let n = 0;
    stream.on("data", (chunk: Buffer) => {
      n += chunk.length;
      if (n <= maxBytes) return;
      stream.destroy();
      reject(new UnpackLimitError(what, maxBytes, n));
    });
    stream.on("end", () => resolve(n));
    stream.on("error", reject);
    stream.end(data);
  });
}

/** The unpacked size of gzip data, or UnpackLimitError once it passes `maxBytes`; plain data is its own size. */
export async function gzipUnpackedSize(data: Uint8Array, what: string, maxBytes = maxUnpackedBytes()): Promise<number> {
  if (!isGzip(data)) return data.length;
  return countThrough(createGunzip({ chunkSize: CHUNK }), data, maxBytes, what);
}

/**
 * gunzipSync with a cap: zlib stops at `maxBytes` (maxOutputLength) instead of allocating the
 * whole output. For readers that need the text whole; a file over the cap is UnpackLimitError.
 */
export function gunzipCapped(data: Uint8Array, what: string, maxBytes = maxUnpackedBytes()): Buffer {
  try {
    return gunzipSync(data, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw new UnpackLimitError(what, maxBytes, maxBytes + 1);
    throw err;
  }
}

/** Streams small enough to inflate in one synchronous call without a memory concern. */
const SYNC_INFLATE_BYTES = MB;

/**
 * The inflated size of a zlib (FlateDecode) stream within `maxBytes`: most streams are small and
 * inflate synchronously; one larger than a megabyte is counted through a stream instead, so a
 * bomb never sits in memory. Corrupt data counts as what it yields before the error (the PDF
 * reader reports corrupt files itself).
 */
export async function inflatedSize(data: Uint8Array, what: string, maxBytes: number): Promise<number> {
  try {
    return inflateSync(data, { maxOutputLength: Math.min(maxBytes, SYNC_INFLATE_BYTES) }).length;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ERR_BUFFER_TOO_LARGE") return 0;
  }
  if (maxBytes <= SYNC_INFLATE_BYTES) throw new UnpackLimitError(what, maxBytes, maxBytes + 1);
  try {
    return await countThrough(createInflate({ chunkSize: CHUNK }), data, maxBytes, what);
  } catch (err) {
    if (err instanceof UnpackLimitError) throw err;
    return 0;
  }
}
