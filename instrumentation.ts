// Next calls register() once per server process, before it serves requests; under `next start`
// and `next dev` the warm-up query (lib/query/warm-up.ts) is sent from here without waiting for it
// (it waits for this to return), so the route has loaded the served build and models before a
// reader's first paper. scripts/server.mjs sets no origin: its front process warms the backend up
// itself and only then listens.
export async function register(): Promise<void> {
  // Not in the Edge runtime, not while `next build` collects pages, and only with an address to
  // send it to (`next start` and `next dev` set it before this runs).
  const origin = process.env.__NEXT_PRIVATE_ORIGIN;
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build" || !origin) return;
  const { warmUp } = await import("@/lib/query/warm-up");
  void warmUp(origin);
}
