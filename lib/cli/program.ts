// The `graft` command: parses flags, calls lib/, prints. Each command group lives in
// commands/<group>.ts; later stages (extract, audit, build, train, query, eval) add theirs.
// main.ts runs it; tests call main() in process (lib/cli/testing.ts) to skip a process start.
import { Command, CommanderError } from "commander";
import { config } from "@/lib/config";
import { CorpusFormatError } from "@/lib/corpus/read";
import { disconnectDb } from "@/lib/db/client";
import { exitCodeOf, isUsageError } from "./exit-codes";

type Register = (program: Command) => void;

// Each command group, loaded only when it runs (or for help): a group's modules (models,
// retrievers, evaluation) cost a process start seconds on 2 cores, and every `graft` line,
// worker and test that spawns one pays it. Listed in help order.
const GROUPS: Record<string, () => Promise<Register>> = {
  db: async () => (await import("./commands/db")).registerDb,
  import: async () => (await import("./commands/import")).registerImport,
  corpus: async () => (await import("./commands/corpus")).registerCorpus,
  papers: async () => (await import("./commands/papers")).registerPapers,
  extract: async () => (await import("./commands/extract")).registerExtract,
  audit: async () => (await import("./commands/audit")).registerAudit,
  "fit-encoder": async () => (await import("./commands/fit-encoder")).registerFitEncoder,
  build: async () => (await import("./commands/build")).registerBuild,
  builds: async () => (await import("./commands/builds")).registerBuilds,
  jobs: async () => (await import("./commands/jobs")).registerJobs,
  query: async () => (await import("./commands/query")).registerQuery,
  user: async () => (await import("./commands/user")).registerUser,
  eval: async () => (await import("./commands/eval")).registerEval,
};

/** The program with the group `argv` names, or every group (help, a flag, an unknown or misspelt command). */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command("graft")
    .description("Graft: facet-aware exploration of scientific literature")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  const named = argv[0] !== undefined && Object.hasOwn(GROUPS, argv[0]) ? [argv[0]] : Object.keys(GROUPS);
  for (const register of await Promise.all(named.map((g) => GROUPS[g]()))) register(program);
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
    await (await buildProgram(argv)).parseAsync(argv, { from: "user" });
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
