/**
 * A one-line progress bar on stderr, drawn only on a terminal (CI logs and pipes get
 * nothing, so --json output stays clean). Redraws at most ~10 times a second.
 */
export class ProgressBar {
  private last = 0;
  private readonly started = performance.now();
  private readonly enabled: boolean;

  constructor(
    private readonly label: string,
    stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.enabled = Boolean(stream.isTTY) && !process.env.CI;
    this.stream = stream;
  }
  private readonly stream: NodeJS.WriteStream;

  update(done: number, total: number, phase = ""): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.last < 100 && done < total) return;
    this.last = now;
    const width = 30;
    const frac = total > 0 ? Math.min(1, done / total) : 0;
    const filled = Math.round(frac * width);
    const rate = done / Math.max(1e-3, (now - this.started) / 1000);
    const eta = rate > 0 && total > done ? `${Math.ceil((total - done) / rate)}s` : "";
    const text = `${this.label}${phase ? ` ${phase}` : ""} [${"█".repeat(filled)}${"░".repeat(width - filled)}] ${done}/${total} ${(frac * 100).toFixed(0)}% ${eta}`;
    this.stream.write(`\r\x1b[2K${text}`);
  }

  done(): void {
    if (this.enabled) this.stream.write("\r\x1b[2K");
  }
}
