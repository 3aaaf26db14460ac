import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { config as settings } from "@/lib/config";
import { createDb, type Db } from "./client";
import { type DbConfig, pgPoolConfig } from "./config";
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

export const testProvider = settings().GRAFT_TEST_PG_URL ? "postgresql" : "sqlite";

let checkedClients = false;

export async function createTestDb(): Promise<TestDb> {
  // A client older than the schema fails tests far from the cause (e.g. limits silently counted in memory).
  if (!checkedClients) assertGeneratedClientsFresh();
  checkedClients = true;
  const pgUrl = settings().GRAFT_TEST_PG_URL;
  if (pgUrl) {
    const name = `graft_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    const admin = new pg.Client(pgPoolConfig(pgUrl));
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const url = new URL(pgUrl);
    url.pathname = `/${name}`;
    const config: DbConfig = { provider: "postgresql", url: url.toString() };
    await migrateDeploy(config);
    const db = createDb(config);
    return {
      db,
      config,
      cleanup: async () => {
        await db.$disconnect();
        const c = new pg.Client(pgPoolConfig(pgUrl));
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-test-"));
  const file = path.join(dir, "test.db");
  const config: DbConfig = { provider: "sqlite", url: `file:${file}`, file };
  await migrateDeploy(config);
  const db = createDb(config);
  return {
    db,
    config,
    cleanup: async () => {
      await db.$disconnect();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
