/**
 * Errors of the query pipeline (POST /api/related, its streaming form, GET
 * /api/papers/:corpus/:id/related, `graft query`). They carry a code only: lib/http's one table
 * gives the status, lib/cli's the exit code.
 */
import { CodedError, type ErrorCode } from "@/lib/errors";

/** A request the pipeline cannot serve. */
export class QueryError extends CodedError {
  constructor(code: ErrorCode, message: string) {
    super(code, message);
    this.name = "QueryError";
  }
}
