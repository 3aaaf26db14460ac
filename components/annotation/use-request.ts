import { useState } from "react";
import { ApiError } from "@/lib/http/client";

// The sign-in, new-study and study-status forms send one request each the same way: the button
// goes off while it runs, and a failure shows the server's message or a fallback of the form's.

export interface RequestOptions {
  /** The form's own words when the failure is not an API error (network, bug). */
  fallback: string;
  /** The request ends by leaving or reloading the page: stay pending until it does, so nothing is sent twice. */
  leavesPage?: boolean;
  /** Extra handling of a failure (after the message is set), e.g. a rate limit's pause. */
  onError?: (err: unknown) => void;
}

interface RequestState {
  setPending: (pending: boolean) => void;
  setError: (error: string | null) => void;
}

/** Runs `request` with the pending flag and error message kept in `state`. */
export async function runRequest(request: () => Promise<void>, state: RequestState, { fallback, leavesPage = false, onError }: RequestOptions): Promise<void> {
  state.setPending(true);
  state.setError(null);
  try {
    await request();
    if (!leavesPage) state.setPending(false);
  } catch (err) {
    state.setError(err instanceof ApiError ? err.message : fallback);
    onError?.(err);
    state.setPending(false);
  }
}

/** A form's request state: `pending`, `error`, and `run` to send a request (see RequestOptions). */
export function useRequest(options: RequestOptions) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = (request: () => Promise<void>) => runRequest(request, { setPending, setError }, options);
  return { pending, error, run };
}
