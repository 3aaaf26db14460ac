/**
 * Test helper: one command group of `graft` run in process, as the CLI's tests call it. Returns
 * what the command wrote to stdout (strings; the test runner's own messages there are buffers
 * and pass through) and the exit code it set.
 */
import { Command } from "commander";

export async function runGraft(register: (program: Command) => void, argv: readonly string[]): Promise<{ out: string; code: number }> {
  const program = new Command("graft").exitOverride();
  register(program);
  let out = "";
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (typeof chunk !== "string") return (write as (c: Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
    out += chunk;
    return true;
  }) as typeof process.stdout.write;
  const savedCode = process.exitCode;
  process.exitCode = undefined;
  try {
    await program.parseAsync([...argv], { from: "user" });
    return { out, code: typeof process.exitCode === "number" ? process.exitCode : 0 };
  } finally {
    process.stdout.write = write;
    process.exitCode = savedCode;
  }
}

/**
 * Test helper: `graft <argv>` through main() in this process, as a user's shell would see it:
 * exit code, stdout and stderr (strings; the runner's own buffer writes pass through). It reads
 * the store and settings of this process's environment, so a test sets DATABASE_URL and the
 * like before; what is about the process itself (standard input, its own settings) needs a spawn.
 */
export async function runMain(argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { main } = await import("./program");
  const captured = { stdout: "", stderr: "" };
  const saved = { stdout: process.stdout.write, stderr: process.stderr.write };
  for (const stream of ["stdout", "stderr"] as const) {
    const write = saved[stream].bind(process[stream]);
    process[stream].write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      if (typeof chunk !== "string") return (write as (c: Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
      captured[stream] += chunk;
      return true;
    }) as typeof process.stdout.write;
  }
  const savedCode = process.exitCode;
  process.exitCode = undefined;
  try {
    const code = await main([...argv]);
    return { code, ...captured };
  } finally {
    process.stdout.write = saved.stdout;
    process.stderr.write = saved.stderr;
    process.exitCode = savedCode;
  }
}
