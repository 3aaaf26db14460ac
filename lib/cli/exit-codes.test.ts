import assert from "node:assert/strict";
import { test } from "node:test";
import { NotFoundError } from "@/lib/corpus";
import { StoreUnavailableError } from "@/lib/db/faults";
import { CodedError, ERROR_CODES, type ErrorCode } from "@/lib/errors";
import { InputError } from "@/lib/input";
import { NoGraphBuildError } from "@/lib/retrieve";
import { EXIT, EXIT_OF_CODE, exitCodeOf } from "./exit-codes";
import { UsageError } from "./output";

test("the exit table has one of the documented exit codes for every code of lib/errors.ts", () => {
  const documented = new Set<number>(Object.values(EXIT));
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    const exit: number | undefined = (EXIT_OF_CODE as Record<string, number>)[code];
    assert.ok(exit !== undefined && documented.has(exit), `${code}: ${exit}`);
    assert.equal(exitCodeOf(new CodedError(code, code)), exit, code);
  }
});

test("the caller's mistakes exit 2, temporary failures 75, anything else 1", () => {
  assert.equal(exitCodeOf(new UsageError("bad flag")), 2);
  assert.equal(exitCodeOf(new NotFoundError('no corpus named "x"')), 2);
  assert.equal(exitCodeOf(new NoGraphBuildError("no graph build yet")), 2);
  assert.equal(exitCodeOf(new InputError("too_short", "too short")), 2);
  assert.equal(exitCodeOf(new CodedError("extractor_unreachable", "no answer")), 75);
  assert.equal(exitCodeOf(new StoreUnavailableError("busy")), 75);
  // A driver's fault wrapped in another coded error is still temporary.
  const locked = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
  assert.equal(exitCodeOf(new CodedError("not_ready", "could not load the graph", { cause: locked })), 75);
  assert.equal(exitCodeOf(new Error("a bug")), 1);
  assert.equal(exitCodeOf("thrown string"), 1);
});
