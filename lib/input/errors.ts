/**
 * The one error type every input path throws. Each code maps to a fixed HTTP status so a route
 * can answer without knowing which reader failed, and each message is a single sentence that
 * tells the user what to do next (it is shown verbatim in the UI).
 */
export const INPUT_ERROR_STATUS = {
  empty: 400,
  too_short: 422,
  too_large: 413,
  too_many_pages: 413,
  not_pdf: 400,
  encrypted: 422,
  corrupt: 422,
  no_text: 422,
  invalid_json: 400,
  invalid_record: 422,
} as const satisfies Record<string, 400 | 413 | 422>;

export type InputErrorCode = keyof typeof INPUT_ERROR_STATUS;
export type InputErrorStatus = (typeof INPUT_ERROR_STATUS)[InputErrorCode];

export class InputError extends Error {
  readonly code: InputErrorCode;
  readonly status: InputErrorStatus;
  /** Individual problems behind the message (the schema's sentences for invalid_record). */
  readonly details: string[];

  constructor(code: InputErrorCode, message: string, options: { details?: string[]; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "InputError";
    this.code = code;
    this.status = INPUT_ERROR_STATUS[code];
    this.details = options.details ?? [];
  }
}
