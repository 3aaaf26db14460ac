// Progress of long stages (import, extract, audit, graph and genret builds) as people read it:
// counts, percentage, elapsed time and an ETA. One formatter for the CLI (a bar on a terminal,
// plain lines in logs and pipes), the worker's log and the job message the admin jobs page shows.
// Framework-free; the default interval of plain lines comes from lib/config.ts.

import { config } from "./config";

/** "45 s", "3 min 20 s", "2 h 05 min". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ""}`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
}

const count = new Intl.NumberFormat("en-US");

/** The phase of a progress message: its first word ("embed" of "embed problems 1,024/17,213"). */
export function phaseOf(message: string): string {
  return message.trim().split(/\s+/, 1)[0] ?? "";
}

/** Whether a stage's message already carries its own estimate (the trainer reports one). */
export function hasEta(message: string): boolean {
  return /\bETA\b/.test(message);
}

/**
 * Estimates the time left in the current phase from its rate since the phase began. A phase
 * starts when the message's first word or the total changes, or when `done` goes backwards.
 */
export class EtaTracker {
  private key = "";
  private startedAt = 0;
  private startDone = 0;
  private lastDone = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Seconds left in the phase, or null while the rate is unknown (or nothing is left). */
  observe(phase: string, done: number, total: number | null): number | null {
    const t = this.now();
    const key = `${phase}\u0000${total ?? ""}`;
    if (key !== this.key || done < this.lastDone) {
      this.key = key;
      this.startedAt = t;
      this.startDone = done;
    }
    this.lastDone = done;
    if (!total || done >= total) return null;
    const seconds = (t - this.startedAt) / 1000;
    const rate = (done - this.startDone) / seconds;
    // A second of history and one unit of work at least, so the first estimate is not noise.
    if (!(seconds >= 1) || !(rate > 0)) return null;
    return (total - done) / rate;
  }
}

export interface ProgressState {
  /** What the stage says it is doing ("embed", "train loss 2.1 · …"). */
  phase: string;
  done: number;
  total: number | null;
}

/** "embed 4,096/17,213 (24%) · ETA 3 min 20 s" (no count when the total is unknown). */
export function progressText(p: ProgressState, etaSeconds: number | null): string {
  const parts = [p.phase.trim()];
  if (p.total) parts.push(`${count.format(p.done)}/${count.format(p.total)} (${Math.floor((100 * Math.min(p.done, p.total)) / p.total)}%)`);
  else if (p.done > 0) parts.push(count.format(p.done));
  // A phase that carries its own details ("train loss 2.1 · 300 ex/s") gets its counts after a separator.
  const head = parts.filter(Boolean).join(p.phase.includes("·") ? " · " : " ");
  return etaSeconds !== null && !hasEta(p.phase) ? `${head} · ETA ${formatDuration(etaSeconds)}` : head;
}

/** Default interval of plain progress lines: GRAFT_PROGRESS_INTERVAL_S (lib/config.ts, 10 s). */
export function progressIntervalMs(): number {
  return config().GRAFT_PROGRESS_INTERVAL_S * 1000;
}

export interface ProgressLinesOptions {
  /** Least time between two lines of the same phase (default progressIntervalMs()). */
  intervalMs?: number;
  /** Clock in ms (tests). */
  now?: () => number;
  /** Repeat the latest state on a timer when the stage reports nothing for an interval (default true). */
  timer?: boolean;
}

/**
 * Plain progress lines for logs and pipes: one when a phase starts, then at most one per
 * interval and at least one per interval while the phase runs (a timer repeats the latest
 * state, so a slow step still shows it is alive), each with counts, elapsed time and an ETA.
 */
export class ProgressLines {
  private readonly eta: EtaTracker;
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly started: number;
  private lastLine = -Infinity;
  private phase: string | null = null;
  private latest: ProgressState | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly label: string,
    private readonly write: (line: string) => void,
    options: ProgressLinesOptions = {},
  ) {
    this.now = options.now ?? (() => performance.now());
    this.eta = new EtaTracker(this.now);
    this.intervalMs = options.intervalMs ?? progressIntervalMs();
    this.started = this.now();
    if (options.timer !== false) {
      this.timer = setInterval(() => this.tick(), Math.max(250, Math.min(this.intervalMs, 1000)));
      this.timer.unref?.();
    }
  }

  update(done: number, total: number | null, phase = ""): void {
    const key = phaseOf(phase);
    const eta = this.eta.observe(key, done, total);
    this.latest = { phase, done, total };
    const t = this.now();
    if (key !== this.phase || t - this.lastLine >= this.intervalMs) {
      this.phase = key;
      this.print(eta);
    }
  }

  /** The timer: repeats the latest state when no line was printed for an interval. */
  tick(): void {
    if (!this.latest || this.now() - this.lastLine < this.intervalMs) return;
    this.print(this.eta.observe(phaseOf(this.latest.phase), this.latest.done, this.latest.total));
  }

  done(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // A run that printed anything ends with its total time, so a log says how long it took.
    if (this.phase !== null) this.write(`${this.label}: finished in ${formatDuration((this.now() - this.started) / 1000)}`);
  }

  private print(eta: number | null): void {
    if (!this.latest) return;
    this.lastLine = this.now();
    const elapsed = formatDuration((this.lastLine - this.started) / 1000);
    this.write(`${this.label}: ${progressText(this.latest, eta)} · ${elapsed} elapsed`);
  }
}
