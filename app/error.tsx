"use client";

import { useEffect } from "react";

// Server errors reach the client without their message in production (Next redacts it), so this
// page offers a retry and the digest an operator can match against the server log.
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <div className="mx-auto max-w-2xl px-4 py-20 text-center sm:px-6" role="alert">
      <h1 className="text-2xl font-semibold tracking-tight">Something went wrong</h1>
      <p className="mt-3 text-[0.9375rem] text-ink-muted">
        The page could not be loaded. If this keeps happening, check the server log
        {error.digest ? (
          <>
            {" "}
            for <code className="font-mono text-sm">{error.digest}</code>
          </>
        ) : null}
        .
      </p>
      <button
        type="button"
        onClick={reset}
        className="mt-6 inline-flex h-9 items-center rounded-md border border-line-strong bg-surface px-4 text-sm font-medium shadow-xs hover:bg-canvas"
      >
        Try again
      </button>
    </div>
  );
}
