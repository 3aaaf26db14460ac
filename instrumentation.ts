// Next calls register() once per server process and serves no request before it returns: the
// served build and models load here (lib/query/warm-up.ts), not on the first reader's paper.
export async function register(): Promise<void> {
  // Not in the Edge runtime (no native addons there), not while `next build` collects pages.
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build") return;
  const { getDb } = await import("@/lib/db/client");
  const { warmUp } = await import("@/lib/query/warm-up");
  await warmUp(getDb());
}
