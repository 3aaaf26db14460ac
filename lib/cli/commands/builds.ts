import type { Command } from "commander";
import { z } from "zod";
import { pruneBuilds } from "@/lib/builds/prune";
import { corpusName } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import { emit, fmt, parseOptions, table } from "../output";

const pruneOptions = z
  .object({
    corpus: corpusName.optional(),
    dryRun: z.boolean().default(false),
    staleMinutes: z.coerce.number().positive().default(120),
    json: z.boolean().optional(),
  })
  .strict();

export function registerBuilds(program: Command): void {
  const builds = program.command("builds").description("manage the versioned builds of corpora");
  builds
    .command("prune")
    .description("remove failed builds, and running ones a killed process left, that no job owns: their rows and directories")
    .option("--corpus <name>", "only this corpus's builds (default: every corpus)")
    .option("--dry-run", "list what would be removed, remove nothing")
    .option("--stale-minutes <m>", "a running build unchanged this long was abandoned", "120")
    .option("--json", "machine-readable output")
    .action(async (raw: unknown) => {
      const opts = parseOptions(pruneOptions, raw);
      const pruned = await pruneBuilds(getDb(), opts);
      emit(opts, { removed: opts.dryRun ? [] : pruned, wouldRemove: opts.dryRun ? pruned : [] }, () => {
        if (pruned.length === 0) return "no failed or abandoned builds to remove";
        const rows = pruned.map((b) => [b.id, b.corpus, b.status, `${fmt(Math.round(b.bytes / 1024))} KB`, b.dir]);
        return `${opts.dryRun ? "would remove" : "removed"} ${pruned.length} build${pruned.length === 1 ? "" : "s"}:\n${table(["build", "corpus", "status", "size", "directory"], rows)}`;
      });
    });
}
