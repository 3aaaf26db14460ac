import { config } from "@/lib/config";
import { EtaTracker, phaseOf, ProgressLines, progressText } from "@/lib/progress";

export type ProgressMode = "bar" | "lines" | "off";

/**
 * How progress shows on `stream`: a redrawn bar on a terminal, plain lines (counts, elapsed,
 * ETA; at least one every 10 s) in logs, pipes and CI, nothing with GRAFT_PROGRESS=off.
 * GRAFT_PROGRESS=bar|lines forces a mode.
 */
export function progressMode(stream: { isTTY?: boolean } = process.stderr): ProgressMode {
  const { GRAFT_PROGRESS: forced, CI } = config();
  if (forced) return forced;
  return stream.isTTY && !CI ? "bar" : "lines";
}

/**
 * A long stage's progress on stderr (stdout stays clean for --json): a one-line bar redrawn at
 * most ~10 times a second on a terminal, plain progress lines elsewhere.
 */
export class ProgressBar {
  private last = 0;
  private readonly mode: ProgressMode;
  private readonly eta = new EtaTracker();
  private readonly lines: ProgressLines | null;

  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
    mode: ProgressMode = progressMode(stream),
  ) {
    this.mode = mode;
    this.lines = mode === "lines" ? new ProgressLines(label, (line) => stream.write(`${line}\n`)) : null;
  }

  update(done: number, total: number, phase = ""): void {
    if (this.lines) return this.lines.update(done, total, phase);
    if (this.mode !== "bar") return;
    const eta = this.eta.observe(phaseOf(phase), done, total);
    const now = performance.now();
    if (now - this.last < 100 && done < total) return;
    this.last = now;
    const width = 30;
    const frac = total > 0 ? Math.min(1, done / total) : 0;
    const filled = Math.round(frac * width);
    const bar = `[${"█".repeat(filled)}${"░".repeat(width - filled)}]`;
    const text = `${this.label} ${bar} ${progressText({ phase, done, total }, eta)}`;
    const columns = (this.stream as { columns?: number }).columns ?? 120;
    this.stream.write(`\r\x1b[2K${text.slice(0, Math.max(20, columns - 1))}`);
  }

  done(): void {
    this.lines?.done();
    if (this.mode === "bar") this.stream.write("\r\x1b[2K");
  }
}
