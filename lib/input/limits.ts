/**
 * Size limits for user input. Defaults come from the configuration (GRAFT_MAX_UPLOAD_MB,
 * GRAFT_MAX_PDF_PAGES in lib/config.ts) so an operator can raise them without a rebuild; callers
 * (and tests) may override any of them per call.
 */
import { type Config, config } from "@/lib/config";
import { InputError } from "./errors";
import { DEFAULT_MIN_CHARS } from "./text-amount";

export { DEFAULT_MIN_CHARS };

export interface InputLimits {
  /** Largest accepted input in bytes (GRAFT_MAX_UPLOAD_MB, default 20 MB). */
  maxBytes: number;
  /** Most pages a PDF may have (GRAFT_MAX_PDF_PAGES, default 100). */
  maxPages: number;
  /** Fewest characters of text a paper must have to be worth analysing. */
  minChars: number;
}

const MB = 1024 * 1024;

/**
 * The limits in force: the configured ones, then any per-call overrides. A set but invalid
 * setting throws (a ConfigError naming it): a silent default would hide a deployment's typo.
 */
export function resolveLimits(overrides: Partial<InputLimits> = {}, settings: Config = config()): InputLimits {
  return {
    maxBytes: overrides.maxBytes ?? Math.floor(settings.GRAFT_MAX_UPLOAD_MB * MB),
    maxPages: overrides.maxPages ?? settings.GRAFT_MAX_PDF_PAGES,
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
  throw new InputError("too_large", `The ${what} is ${size}, more than the ${limit} limit; upload a smaller file or paste only the paper's text.`);
}
