import { z } from "zod";

/** An error the user caused (bad flags, bad input): exit code 2, no stack trace. */
export class UsageError extends Error {
  readonly exitCode = 2;
}

export interface OutputOptions {
  json?: boolean;
}

/** Parses a command's options with zod; a failure becomes a UsageError naming each flag. */
export function parseOptions<T extends z.ZodType>(schema: T, raw: unknown): z.infer<T> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => {
    const flag = i.path.length ? `--${String(i.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` : "input";
    return `${flag}: ${i.message}`;
  });
  throw new UsageError(`invalid options:\n  ${lines.join("\n  ")}`);
}

/** Prints a result: JSON on --json, else the human rendering. */
export function emit(opts: OutputOptions, value: unknown, human: () => string): void {
  if (opts.json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  else process.stdout.write(`${human()}\n`);
}

/** A fixed-width text table for terminal output. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(cells[0]), widths.map((w) => "─".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

export function fmt(n: number): string {
  return n.toLocaleString("en-US");
}
