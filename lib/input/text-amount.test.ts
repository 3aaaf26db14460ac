import assert from "node:assert/strict";
import { test } from "node:test";
import { InputError } from "./errors";
import { DEFAULT_MIN_CHARS as SERVER_MIN, resolveLimits } from "./limits";
import { paperFromText } from "./text";
import { countedChars, DEFAULT_MIN_CHARS } from "./text-amount";

test("the paste box's minimum is the server's, counted the same way", () => {
  assert.equal(SERVER_MIN, DEFAULT_MIN_CHARS);
  assert.equal(resolveLimits().minChars, DEFAULT_MIN_CHARS);
  assert.equal(countedChars("  a \n\n b\t"), 3);
  const words = "words ".repeat(40);
  const justEnough = words.slice(0, DEFAULT_MIN_CHARS);
  assert.equal(countedChars(justEnough), DEFAULT_MIN_CHARS);
  assert.doesNotThrow(() => paperFromText(justEnough));
  // One character fewer, or padded only with white space: refused by the server too.
  const short = justEnough.slice(0, DEFAULT_MIN_CHARS - 1);
  assert.equal(countedChars(`${short}\n\n\n   `), DEFAULT_MIN_CHARS - 1);
  assert.throws(
    () => paperFromText(`${short}\n\n\n   `),
    (e: unknown) => e instanceof InputError && e.code === "too_short",
  );
});
