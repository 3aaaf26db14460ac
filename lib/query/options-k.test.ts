import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { relatedOptions } from "./options";

// Issue 28, finding 8: k is a number or digits (query strings, forms), never a coerced boolean.

describe("k takes numbers only", () => {
  test("true, false, null and non-digit strings are refused, not read as 1 or 0", () => {
    for (const k of [true, false, null, "true", "1e1", "2.5", " "]) assert.equal(relatedOptions.safeParse({ k }).success, false, JSON.stringify(k));
  });
  test("a number and a string of digits are taken", () => {
    assert.equal(relatedOptions.parse({ k: 7 }).k, 7);
    assert.equal(relatedOptions.parse({ k: "12" }).k, 12);
    assert.throws(() => relatedOptions.parse({ k: 2.5 }), /k must be an integer/);
  });
});
