import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import pg from "pg";
import { writeFileAtomicWith } from "@/lib/atomic-write";
import { config as settings } from "@/lib/config";
import { createDb, type Db } from "./client";
import { type DbConfig, type DbProvider, migrationsDir, pgPoolConfig } from "./config";
import { assertGeneratedClientsFresh } from "./generated";
import { migrateDeploy } from "./migrate";

// Fresh, migrated databases for integration tests. GRAFT_TEST_PG_URL (a server the test
// run started, see scripts/db/pg-start.sh) switches them to PostgreSQL: each test database
// is then a new database on that server, so the same tests run on both providers.

export interface TestDb {
  db: Db;
  config: DbConfig;
  cleanup(): Promise<void>;
}

/** A test store hook's store, valid from the first test on. */
export interface TestStore {
  readonly db: Db;
  /** The store's URL, for code that opens it through DATABASE_URL (the CLI, worker processes). */
  readonly databaseUrl: string;
  /** The private GRAFT_DATA_ROOT for builds and vector caches. */
  readonly dataRoot: string;
}

/**
 * Registers before/after hooks (call it inside a describe): a fresh store and a private
 * GRAFT_DATA_ROOT (`prefix` names its folder), both removed afterwards. `setup` fills them
 * before the first test; `teardown` runs first after the last.
 */
export function useTestStore(prefix: string, hooks: { setup?: (db: Db) => Promise<unknown>; teardown?: () => void } = {}): TestStore {
  let store: TestDb | undefined;
  let root = "";
  const saved = process.env.GRAFT_DATA_ROOT;
  before(async () => {
    store = await createTestDb();
    root = mkdtempSync(path.join(os.tmpdir(), prefix));
    process.env.GRAFT_DATA_ROOT = root;
    await hooks.setup?.(store.db);
  });
  after(async () => {
    hooks.teardown?.();
    // Assigning undefined would set the string "undefined".
    if (saved === undefined) delete process.env.GRAFT_DATA_ROOT;
    else process.env.GRAFT_DATA_ROOT = saved;
    await store?.cleanup();
    rmSync(root, { recursive: true, force: true });
  });
  const held = (): TestDb => {
    if (!store) throw new Error(`the test store ${prefix}… exists only inside tests`);
    return store;
  };
  return {
    get db() {
      return held().db;
    },
    get databaseUrl() {
      return held().config.url;
    },
    get dataRoot() {
      return root;
    },
  };
}

export const testProvider = settings().GRAFT_TEST_PG_URL ? "postgresql" : "sqlite";

let checkedClients = false;

export async function createTestDb(): Promise<TestDb> {
  // A client older than the schema fails tests far from the cause (e.g. limits silently counted in memory).
  if (!checkedClients) assertGeneratedClientsFresh();
  checkedClients = true;
  const pgUrl = settings().GRAFT_TEST_PG_URL;
  if (pgUrl) {
    const name = uniqueName("graft_test");
    const template = await pgTemplate(pgUrl);
    await onPgServer(pgUrl, `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
    return openTestDb({ provider: "postgresql", url: pgDatabaseUrl(pgUrl, name) }, () => onPgServer(pgUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-test-"));
  const file = path.join(dir, "test.db");
  const config: DbConfig = { provider: "sqlite", url: `file:${file}`, file };
  copyFileSync(await sqliteTemplate(), file);
  return openTestDb(config, () => rmSync(dir, { recursive: true, force: true }));
}

/** A client on a fresh test database; `drop` removes the database once the client is closed. */
function openTestDb(config: DbConfig, drop: () => Promise<unknown> | void): TestDb {
  const db = createDb(config);
  return {
    db,
    config,
    cleanup: async () => {
      await db.$disconnect();
      await drop();
    },
  };
}

// Test databases are copies of one migrated template per version of the migrations: migrating
// costs ~0.6 s a database (the schema engine), a copy milliseconds. The template is made once
// per test run (a PostgreSQL server) or per machine (a file in the temp folder), atomically, so
// test processes running at once share it.

const uniqueName = (prefix: string) => `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;

/** The migrations' content, hashed: a new or edited migration makes a new template. */
function migrationsKey(provider: DbProvider): string {
  const dir = migrationsDir(provider);
  const hash = createHash("sha256");
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)))
    if (entry.isDirectory()) hash.update(entry.name).update(readFileSync(path.join(dir, entry.name, "migration.sql")));
  return hash.digest("hex").slice(0, 16);
}

let sqliteTemplateFile: string | undefined;

async function sqliteTemplate(): Promise<string> {
  if (sqliteTemplateFile) return sqliteTemplateFile;
  const file = path.join(os.tmpdir(), `graft-test-template-${migrationsKey("sqlite")}.db`);
  // Atomic: a process reading the name sees a whole store; one made at the same time is the same.
  if (!existsSync(file))
    await writeFileAtomicWith(file, async (tmp) => {
      await migrateDeploy({ provider: "sqlite", url: `file:${tmp}`, file: tmp });
    });
  sqliteTemplateFile = file;
  return file;
}

function pgDatabaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function onPgServer<T extends pg.QueryResultRow = pg.QueryResultRow>(serverUrl: string, sql: string, values?: unknown[]): Promise<T[]> {
  const c = new pg.Client(pgPoolConfig(serverUrl));
  await c.connect();
  try {
    return (await c.query<T>(sql, values)).rows;
  } finally {
    await c.end();
  }
}

let pgTemplateName: string | undefined;

async function pgTemplate(serverUrl: string): Promise<string> {
  if (pgTemplateName) return pgTemplateName;
  const name = `graft_template_${migrationsKey("postgresql")}`;
  if ((await onPgServer(serverUrl, "SELECT 1 FROM pg_database WHERE datname = $1", [name])).length === 0) {
    const fresh = uniqueName("graft_template_new");
    await onPgServer(serverUrl, `CREATE DATABASE "${fresh}"`);
    await migrateDeploy({ provider: "postgresql", url: pgDatabaseUrl(serverUrl, fresh) });
    // Renaming is atomic: copies are only ever made of a migrated template.
    try {
      await onPgServer(serverUrl, `ALTER DATABASE "${fresh}" RENAME TO "${name}"`);
    } catch (err) {
      if ((err as { code?: string }).code !== "42P04") throw err; // another test process made it first
      await onPgServer(serverUrl, `DROP DATABASE IF EXISTS "${fresh}" WITH (FORCE)`);
    }
  }
  pgTemplateName = name;
  return name;
}
