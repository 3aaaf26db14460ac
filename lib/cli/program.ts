// The `graft` command: parses flags, calls lib/, prints. Each command group lives in
// commands/<group>.ts; later stages (extract, audit, build, train, query, eval) add theirs.
// main.ts runs it; tests call main() in process (lib/cli/testing.ts) to skip a process start.
import { Command, CommanderError } from "commander";
import { config } from "@/lib/config";
import { CorpusFormatError } from "@/lib/corpus";
import { disconnectDb } from "@/lib/db";
import { registerBuild } from "./commands/build";
import { registerBuilds } from "./commands/builds";
import { registerCorpus } from "./commands/corpus";
import { registerAudit } from "./commands/audit";
import { registerDb } from "./commands/db";
import { registerEval } from "./commands/eval";
import { registerExtract } from "./commands/extract";
import { registerFitEncoder } from "./commands/fit-encoder";
import { registerImport } from "./commands/import";
import { registerJobs } from "./commands/jobs";
import { registerPapers } from "./commands/papers";
import { registerQuery } from "./commands/query";
import { registerUser } from "./commands/user";
import { exitCodeOf, isUsageError } from "./exit-codes";

export function buildProgram(): Command {
  const program = new Command("graft")
    .description("Graft: facet-aware exploration of scientific literature")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  registerDb(program);
  registerImport(program);
  registerCorpus(program);
  registerPapers(program);
  registerExtract(program);
  registerAudit(program);
  registerFitEncoder(program);
  registerBuild(program);
  registerBuilds(program);
  registerJobs(program);
  registerQuery(program);
  registerUser(program);
  registerEval(program);
  return program;
}

/** GRAFT_DEBUG, false when the configuration itself is what failed. */
function debug(): boolean {
  try {
    return config().GRAFT_DEBUG;
  } catch {
    return false;
  }
}

export async function main(argv: string[]): Promise<number> {
  const json = argv.includes("--json");
  try {
    // Inside the try: building the commands reads settings (option defaults), and a bad one exits 2.
    await buildProgram().parseAsync(argv, { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2; // commander already printed it
    const message = err instanceof Error ? err.message : String(err);
    if (json) {
      const issues = err instanceof CorpusFormatError ? err.issues : undefined;
      process.stdout.write(`${JSON.stringify({ error: { message, ...(issues ? { issues } : {}) } }, null, 2)}\n`);
    } else {
      process.stderr.write(`graft: ${message}\n`);
      // The caller's own mistakes (exit 2) are one line; a stack helps with the rest.
      if (err instanceof Error && !isUsageError(err) && debug()) process.stderr.write(`${err.stack}\n`);
    }
    return exitCodeOf(err);
  } finally {
    await disconnectDb();
  }
}
