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
