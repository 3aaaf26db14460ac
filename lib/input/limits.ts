/**
 * Size limits for user input. Defaults come from the environment so an operator can raise them
 * without a rebuild; callers (and tests) may override any of them per call.
 */
import { InputError } from "./errors";
import { DEFAULT_MIN_CHARS } from "./text-amount";

export { DEFAULT_MIN_CHARS };

export interface InputLimits {
  /** Largest accepted input in bytes (env GRAFT_MAX_UPLOAD_MB, default 20 MB). */
  maxBytes: number;
  /** Most pages a PDF may have (env GRAFT_MAX_PDF_PAGES, default 100). */
  maxPages: number;
  /** Fewest characters of text a paper must have to be worth analysing. */
  minChars: number;
}

export const DEFAULT_MAX_UPLOAD_MB = 20;
export const DEFAULT_MAX_PDF_PAGES = 100;

const MB = 1024 * 1024;

/**
 * A positive number from the environment, or the default when unset. A set but invalid value
 * throws: silently falling back would hide a typo in a deployment's configuration.
 */
function envNumber(name: string, fallback: number, integer: boolean): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new Error(`${name} must be a positive ${integer ? "integer" : "number"}, got "${raw}"`);
  }
  return n;
}

/** The limits in force: environment defaults, then any per-call overrides. */
export function resolveLimits(overrides: Partial<InputLimits> = {}): InputLimits {
  return {
    maxBytes: overrides.maxBytes ?? Math.floor(envNumber("GRAFT_MAX_UPLOAD_MB", DEFAULT_MAX_UPLOAD_MB, false) * MB),
    maxPages: overrides.maxPages ?? envNumber("GRAFT_MAX_PDF_PAGES", DEFAULT_MAX_PDF_PAGES, true),
    minChars: overrides.minChars ?? DEFAULT_MIN_CHARS,
  };
}

/** "20 MB", "1.5 MB", "512 bytes": precise enough to compare a file with the limit. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} byte${n === 1 ? "" : "s"}`;
  if (n < MB) return `${trimNumber(n / 1024)} KB`;
  return `${trimNumber(n / MB)} MB`;
}

function trimNumber(x: number): string {
  return String(Math.round(x * 10) / 10);
}

/** Throws too_large before any parsing, so an oversized upload costs no more than its length. */
export function checkSize(byteLength: number, limits: InputLimits, what: string): void {
  if (byteLength <= limits.maxBytes) return;
  let size = formatBytes(byteLength);
  let limit = formatBytes(limits.maxBytes);
  // Rounding can make a file just over the limit read as equal to it; then show exact bytes.
  if (size === limit) [size, limit] = [`${byteLength} bytes`, `${limits.maxBytes} bytes`];
  throw new InputError(
    "too_large",
    `The ${what} is ${size}, more than the ${limit} limit; upload a smaller file or paste only the paper's text.`,
  );
}
