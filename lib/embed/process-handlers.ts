/**
 * Keeps a dependency from installing process-wide error handlers. The tfjs WebAssembly backend
 * bundled in @energetic-ai/core (an Emscripten module) registers, when its module factory runs,
 *   process.on("uncaughtException", (ex) => { if (!(ex instanceof ExitStatus)) throw ex; })
 *   process.on("unhandledRejection", (reason) => { throw reason; })
 * Throwing from such a listener kills the process, so in a server (where Next logs these
 * events instead) one aborted request would take the whole server down.
 */

const EVENTS = ["uncaughtException", "unhandledRejection"] as const;
type ErrorEvent = (typeof EVENTS)[number];

/** Next's own unhandled-rejection logger, shared through this global symbol by all its bundles: never ours to remove. */
const NEXT_LISTENER = Symbol.for("next.unhandledRejectionListener");

// Through the plain EventEmitter signature: process's own overloads take one event name at a time.
const emitter: NodeJS.EventEmitter = process;

function snapshot(): Map<ErrorEvent, Set<unknown>> {
  return new Map(EVENTS.map((e) => [e, new Set<unknown>(emitter.listeners(e))]));
}

/** Runs `load`, then removes every uncaughtException / unhandledRejection listener added meanwhile. */
export async function withoutAddedErrorHandlers<T>(load: () => Promise<T>): Promise<T> {
  const before = snapshot();
  try {
    return await load();
  } finally {
    removeAddedSince(before);
  }
}

function removeAddedSince(before: Map<ErrorEvent, Set<unknown>>): void {
  const keep = (globalThis as Record<symbol, unknown>)[NEXT_LISTENER];
  for (const e of EVENTS)
    for (const l of emitter.listeners(e)) if (!before.get(e)!.has(l) && l !== keep) emitter.removeListener(e, l as (...args: unknown[]) => void);
}
