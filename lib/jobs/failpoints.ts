import { config } from "@/lib/config";

// Failpoints: named places in a stage where a test can stop a worker on purpose. With
// GRAFT_FAILPOINT=<name>, the worker reaching that point logs it, waits until the log line is in
// the store, prints a banner on stdout and then waits forever, so the kill-and-resume test can
// SIGKILL it exactly there (from outside, as a crash would). Unset in production: one
// config() call per phase boundary.

/** What the job's log records when a worker reaches a failpoint. */
export function failpointLogLine(name: string): string {
  return `failpoint ${name} reached: pausing`;
}

/** The stdout line a paused worker prints (tests wait for it). */
export function failpointBanner(name: string): string {
  return `failpoint ${name}: paused, waiting to be killed`;
}

/** `announce` logs the line and resolves once it is stored (log lines are written in the background). */
export async function failpoint(name: string, announce: (line: string) => Promise<void>): Promise<void> {
  if (config().GRAFT_FAILPOINT !== name) return;
  await announce(failpointLogLine(name));
  process.stdout.write(`${failpointBanner(name)}\n`);
  await new Promise<never>(() => {
    // Keep the event loop alive: a pending promise alone would let the process exit.
    setInterval(() => {}, 60_000);
  });
}
