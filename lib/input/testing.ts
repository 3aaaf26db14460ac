import assert from "node:assert/strict";
import { InputError } from "./errors";

function asInputError(err: unknown): InputError {
  assert.ok(err instanceof InputError, `expected InputError, got ${String(err)}`);
  return err;
}

/** The InputError that `fn` must throw. */
export function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (err) {
    return asInputError(err);
  }
  assert.fail("expected an InputError");
}

/** The InputError that `fn`'s promise must reject with. */
export async function inputRejection(fn: () => Promise<unknown>): Promise<InputError> {
  try {
    await fn();
  } catch (err) {
    return asInputError(err);
  }
  assert.fail("expected an InputError");
}
