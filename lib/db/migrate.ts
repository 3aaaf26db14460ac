import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import type { MigrationList, SchemaEngine } from "@prisma/schema-engine-wasm";
import { adapterFactory, migrationSafe } from "./adapter";
import { type DbConfig, dbConfig, migrationsDir, schemaPath } from "./config";
import { loadSchemaEngine } from "./schema-engine";

// Graft applies migrations with Prisma's own WASM schema engine through the driver
// adapters, because the Prisma CLI's native engine is a download that fails offline.
// The folders keep the standard layout, so `prisma migrate deploy` works where it can.

const NO_FILTER = { externalTables: [], externalEnums: [] };

export async function loadMigrationsList(dir: string): Promise<MigrationList> {
  const lockPath = "migration_lock.toml";
  const lock = await readFile(path.join(dir, lockPath), "utf8").catch(() => null);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const migrationDirectories = await Promise.all(
    entries
      .filter((e) => e.isDirectory())
      .map(async (e) => ({
        path: e.name,
        migrationFile: {
          path: "migration.sql",
          content: await readFile(path.join(dir, e.name, "migration.sql"), "utf8").then(
            (value) => ({ tag: "ok" as const, value }),
            (err: Error) => ({ tag: "error" as const, value: err.message }),
          ),
        },
      })),
  );
  migrationDirectories.sort((a, b) => a.path.localeCompare(b.path));
  return { baseDir: dir, lockfile: { path: lockPath, content: lock }, migrationDirectories, shadowDbInitScript: "" };
}

async function withEngine<T>(config: DbConfig, fn: (engine: SchemaEngine, schema: string) => Promise<T>): Promise<T> {
  const file = schemaPath(config.provider);
  const schema = await readFile(file, "utf8");
  const logs: string[] = [];
  const safe = migrationSafe(adapterFactory(config, { create: true }));
  const factory = bindMigrationAwareSqlAdapterFactory(safe);
  // The engine's own timers do not hold the process open (schema-engine.ts): this does, while it works.
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    const Engine = await loadSchemaEngine();
    const engine = await Engine.new({ datamodels: [[file, schema]] }, (line: string) => logs.push(line), factory);
    try {
      return await fn(engine, schema);
    } catch (err) {
      throw new Error(`schema engine: ${engineMessage(err)}`, { cause: err });
    } finally {
      engine.free();
      await safe.dispose();
    }
  } finally {
    clearInterval(keepAlive);
  }
}

function engineMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === "object" && err && "message" in err) return String((err as { message: unknown }).message);
  return String(err);
}

/** Apply every migration not yet applied (like `prisma migrate deploy`). */
export async function migrateDeploy(config: DbConfig = dbConfig()): Promise<string[]> {
  const list = await loadMigrationsList(migrationsDir(config.provider));
  if (list.migrationDirectories.length === 0) throw new Error(`no migrations in ${list.baseDir}`);
  return withEngine(config, async (engine) => {
    const out = await engine.applyMigrations({ migrationsList: list, filters: NO_FILTER });
    return out.appliedMigrationNames;
  });
}

export interface MigrationStatus {
  applied: boolean;
  pending: string[];
  failed: string[];
  edited: string[];
}

export async function migrationStatus(config: DbConfig = dbConfig()): Promise<MigrationStatus> {
  const list = await loadMigrationsList(migrationsDir(config.provider));
  return withEngine(config, async (engine) => {
    try {
      const out = await engine.diagnoseMigrationHistory({ migrationsList: list, optInToShadowDatabase: false, filters: NO_FILTER });
      const pending =
        out.history?.diagnostic === "databaseIsBehind" || out.history?.diagnostic === "historiesDiverge" ? out.history.unappliedMigrationNames : [];
      return { applied: out.hasMigrationsTable && pending.length === 0, pending, failed: out.failedMigrationNames, edited: out.editedMigrationNames };
    } catch (err) {
      // P1014: an empty database has no _prisma_migrations table yet.
      if (/P1014|does not exist|no such table/i.test(engineMessage(err)))
        return { applied: false, pending: list.migrationDirectories.map((d) => d.path), failed: [], edited: [] };
      throw err;
    }
  });
}

/**
 * Write a new migration from the difference between the migrations folder and the schema
 * (what `prisma migrate dev --create-only` does). Development only; returns null when the
 * schema has no changes. `scratch` must be an empty throwaway database of the provider:
 * the WASM engine has no shadow database of its own for SQLite, so the existing migrations
 * are applied to `scratch` and the schema is diffed against what that database holds.
 */
export async function createMigration(name: string, scratch: DbConfig): Promise<string | null> {
  const dir = migrationsDir(scratch.provider);
  const list = await loadMigrationsList(dir);
  const hasMigrations = list.migrationDirectories.length > 0;
  if (hasMigrations) await migrateDeploy(scratch);
  return withEngine(scratch, async (engine, schema) => {
    const file = schemaPath(scratch.provider);
    const out = await engine.diff({
      from: hasMigrations ? { tag: "schemaDatasource", files: [{ path: file, content: schema }], configDir: path.dirname(file) } : { tag: "empty" },
      to: { tag: "schemaDatamodel", files: [{ path: file, content: schema }] },
      script: true,
      exitCode: true,
      filters: NO_FILTER,
    });
    const script = out.stdout ?? "";
    if (out.exitCode === 0 || !/\b(CREATE|ALTER|DROP)\b/i.test(script)) return null;
    const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
    const folder = `${stamp}_${name.replace(/[^a-z0-9_]+/gi, "_").toLowerCase()}`;
    await mkdir(path.join(dir, folder), { recursive: true });
    await writeFile(path.join(dir, folder, "migration.sql"), script);
    await writeFile(
      path.join(dir, "migration_lock.toml"),
      `# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "${scratch.provider}"\n`,
    );
    return folder;
  });
}
