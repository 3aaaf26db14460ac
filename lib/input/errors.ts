import { CodedError, type ErrorCode } from "@/lib/errors";

/**
 * The one error type every input path throws. Its codes are lib/errors.ts's (lib/http maps each
 * to a status, so a route answers without knowing which reader failed), and each message is a
 * single sentence that tells the user what to do next (it is shown verbatim in the UI).
 */
export const INPUT_ERROR_CODES = [
  "empty",
  "too_short",
  "too_large",
  "too_many_pages",
  "not_pdf",
  "encrypted",
  "corrupt",
  "no_text",
  "invalid_json",
  "invalid_record",
] as const satisfies readonly ErrorCode[];

export type InputErrorCode = (typeof INPUT_ERROR_CODES)[number];

export class InputError extends CodedError {
  declare readonly code: InputErrorCode;

  constructor(code: InputErrorCode, message: string, options: { details?: string[]; cause?: unknown } = {}) {
    super(code, message, options);
    this.name = "InputError";
  }
}
