import assert from "node:assert/strict";
import { test } from "node:test";
import { CodedError, ERROR_CODES, type ErrorCode } from "@/lib/errors";
import { errorResponse } from "./respond";
import { STATUS_OF_CODE } from "./status";
import type { ApiErrorBody } from "./types";

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

test("the status table has a client or server error status for every code of lib/errors.ts", () => {
  for (const code of CODES) {
    const status: number | undefined = (STATUS_OF_CODE as Record<string, number>)[code];
    assert.ok(status !== undefined && status >= 400 && status < 600, `${code}: ${status}`);
  }
});

test("a coded error answers its table status and its code, with its message", async () => {
  for (const code of CODES) {
    const res = errorResponse(new CodedError(code, `because of ${code}`));
    assert.equal(res.status, STATUS_OF_CODE[code], code);
    const body = (await res.json()) as ApiErrorBody;
    assert.equal(body.error.message, `because of ${code}`);
    // An unreachable extractor keeps the API's older name; 502 tells it from a 422 failed extraction.
    assert.equal(body.error.code, code === "extractor_unreachable" ? "extraction_failed" : code);
  }
});

test("the statuses clients saw before the table: a few pinned", () => {
  assert.deepEqual(
    [STATUS_OF_CODE.too_short, STATUS_OF_CODE.not_pdf, STATUS_OF_CODE.too_many_pages, STATUS_OF_CODE.extraction_failed, STATUS_OF_CODE.extractor_unreachable],
    [422, 400, 413, 422, 502],
  );
  assert.deepEqual([STATUS_OF_CODE.unauthorized, STATUS_OF_CODE.forbidden, STATUS_OF_CODE.not_ready, STATUS_OF_CODE.store_unavailable], [401, 403, 409, 503]);
});

test("a coded error's details become issues at (input)", async () => {
  const res = errorResponse(new CodedError("invalid_record", "The paper record is invalid.", { details: ["title is missing"] }));
  assert.equal(res.status, 422);
  assert.deepEqual(((await res.json()) as ApiErrorBody).error.issues, [{ path: "(input)", message: "title is missing" }]);
});
