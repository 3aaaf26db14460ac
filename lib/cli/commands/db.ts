import type { Command } from "commander";
import { dbConfig } from "@/lib/db";
import { createMigration, migrateDeploy, migrationStatus } from "@/lib/db/migrate";
import { emit, UsageError } from "../output";

export function registerDb(program: Command): void {
  const db = program.command("db").description("database migrations (applied offline with Prisma's WASM schema engine)");

  db.command("migrate")
    .description("apply pending migrations to DATABASE_URL (SQLite file or PostgreSQL)")
    .option("--json", "machine-readable output")
    .action(async (opts: { json?: boolean }) => {
      const config = dbConfig();
      const applied = await migrateDeploy(config);
      emit(opts, { provider: config.provider, applied }, () =>
        applied.length ? `applied ${applied.length} migration(s): ${applied.join(", ")}` : "database is up to date",
      );
    });

  db.command("status")
    .description("show which migrations are applied")
    .option("--json", "machine-readable output")
    .action(async (opts: { json?: boolean }) => {
      const config = dbConfig();
      const status = await migrationStatus(config);
      emit(opts, { provider: config.provider, ...status }, () =>
        status.applied
          ? `${config.provider}: up to date`
          : `${config.provider}: pending ${status.pending.join(", ") || "(none)"}${status.failed.length ? `; failed ${status.failed.join(", ")}` : ""}`,
      );
      if (!status.applied) process.exitCode = 1;
    });

  db.command("create-migration")
    .description("development: write a new migration for schema changes (run `npm run db:sync-schemas` first)")
    .argument("<name>", "migration name, e.g. add_user_locale")
    .requiredOption("--scratch <url>", "an EMPTY throwaway database of the target provider (file:/tmp/x.db or postgresql://…)")
    .action(async (name: string, opts: { scratch: string }) => {
      if (!/^[a-z0-9_]+$/i.test(name)) throw new UsageError("migration name may contain letters, digits and '_' only");
      const folder = await createMigration(name, dbConfig(opts.scratch));
      console.log(folder ? `wrote migration ${folder}` : "no schema changes");
    });
}
