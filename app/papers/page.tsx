import type { Metadata } from "next";
import { Suspense } from "react";
import { PaperBrowser } from "@/components/paper-browser";

export const metadata: Metadata = { title: "Browse the corpus" };

// The browser reads its state from the URL on the client (useSearchParams), so the static shell
// needs a Suspense boundary; the fallback is what shows before hydration.
export default function BrowsePage() {
  return (
    <Suspense fallback={<BrowserFallback />}>
      <PaperBrowser />
    </Suspense>
  );
}

function BrowserFallback() {
  return (
    <div aria-busy="true" aria-label="Loading">
      <div className="border-b border-line bg-surface">
        <div className="mx-auto max-w-6xl px-4 pb-6 pt-10 sm:px-6">
          <div className="h-3 w-16 animate-pulse rounded bg-line" />
          <div className="mt-3 h-7 w-56 animate-pulse rounded bg-line" />
          <div className="mt-3 h-4 w-96 max-w-full animate-pulse rounded bg-line/70" />
        </div>
      </div>
    </div>
  );
}
