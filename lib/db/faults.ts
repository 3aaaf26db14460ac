/**
 * The store's transient faults told apart from bugs (issue 28: a locked SQLite file or a full
 * disk answered a bare 500). A driver or Prisma error that means "busy", "full" or "gone" becomes
 * a StoreUnavailableError (code store_unavailable: 503 with Retry-After at the HTTP edge); the
 * failed statement or transaction wrote nothing (each is atomic), and the next request tries
 * the store again, so it recovers without a restart.
 *
 * Errors are matched by duck typing (no Prisma import), through Prisma's own codes, the driver
 * adapter's wrapped cause, and raw better-sqlite3 / pg errors (a socket error alone is not
 * matched: an LLM request's ECONNRESET says nothing about the store).
 */
import { CodedError } from "@/lib/errors";

export type StoreFault = "busy" | "full" | "gone";

/** Seconds a client should wait before retrying, by fault: a lock passes quickly, space and outages take a person. */
const RETRY_AFTER: Record<StoreFault, number> = { busy: 5, full: 60, gone: 30 };

const MESSAGE: Record<StoreFault, string> = {
  busy: "The database is busy (another process holds a lock on it); try again in a few seconds.",
  full: "The database cannot write: its disk is full (or its quota is used up). Nothing was changed; an operator must free space.",
  gone: "The database cannot be reached or opened (moved, removed, read-only or restarting). Nothing was changed; try again shortly.",
};

export class StoreUnavailableError extends CodedError {
  readonly retryAfterSeconds: number;

  constructor(
    readonly fault: StoreFault,
    options: { cause?: unknown; message?: string } = {},
  ) {
    super("store_unavailable", options.message ?? MESSAGE[fault], { cause: options.cause });
    this.name = "StoreUnavailableError";
    this.retryAfterSeconds = RETRY_AFTER[fault];
  }
}

/** Prisma's codes for a store that cannot be reached or answered in time. */
const PRISMA_CODES: Record<string, StoreFault> = {
  P1001: "gone", // cannot reach the database server
  P1002: "gone", // reached, but timed out
  P1003: "gone", // the database does not exist
  P1008: "busy", // operation timed out (SQLite: a lock held past the busy timeout)
  P1017: "gone", // the server closed the connection
  P2024: "busy", // timed out waiting for a connection from the pool
  P2034: "busy", // write conflict or deadlock: retry the transaction
};

/** SQLite result codes (extended ones start with the primary, e.g. SQLITE_IOERR_WRITE). */
function sqliteFault(code: string): StoreFault | null {
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return "busy";
  if (/^SQLITE_FULL/.test(code)) return "full";
  if (/^SQLITE_(CANTOPEN|READONLY|IOERR|NOTADB)/.test(code)) return "gone";
  return null;
}

/** PostgreSQL SQLSTATEs: class 53 (resources), 57P (operator intervention), 08 (connection). */
function pgFault(code: string): StoreFault | null {
  if (code === "53100") return "full"; // disk_full
  if (code === "53300" || code === "55P03" || code === "40P01" || code === "40001") return "busy"; // too many connections, lock not available, deadlock, serialization
  if (/^57P0[1-3]$/.test(code) || /^08\d{3}$/.test(code) || code === "3D000") return "gone";
  return null;
}

/** Driver adapter error kinds (Prisma's MappedError) that mean the store is out of reach. */
const ADAPTER_KINDS: Record<string, StoreFault> = {
  DatabaseNotReachable: "gone",
  DatabaseDoesNotExist: "gone",
  DatabaseAccessDenied: "gone",
  ConnectionClosed: "gone",
  TooManyConnections: "busy",
  SocketTimeout: "busy",
  TransactionWriteConflict: "busy",
};

function faultOf(err: unknown, depth: number): StoreFault | null {
  if (typeof err !== "object" || err === null || depth > 4) return null;
  const e = err as { code?: unknown; errorCode?: unknown; originalCode?: unknown; kind?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
  // The adapter's own cause is the most specific: SQLITE_FULL under a generic Prisma code.
  const inner = faultOf(e.meta?.driverAdapterError, depth + 1) ?? faultOf(e.cause, depth + 1);
  if (inner) return inner;
  for (const c of [e.originalCode, e.code, e.errorCode]) {
    if (typeof c !== "string") continue;
    const f = sqliteFault(c) ?? pgFault(c) ?? PRISMA_CODES[c] ?? null;
    if (f) return f;
  }
  return typeof e.kind === "string" ? (ADAPTER_KINDS[e.kind] ?? null) : null;
}

/** The store fault behind an error, as a StoreUnavailableError, or null when it is something else. */
export function storeFault(err: unknown): StoreUnavailableError | null {
  if (err instanceof StoreUnavailableError) return err;
  const fault = faultOf(err, 0);
  return fault ? new StoreUnavailableError(fault, { cause: err }) : null;
}
