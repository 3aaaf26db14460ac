import { PrismaClient } from "@/lib/generated/sqlite/client";
import { PrismaClient as PgPrismaClient } from "@/lib/generated/postgres/client";
import { adapterFactory } from "./adapter";
import { existsSync } from "node:fs";
import { type DbConfig, type DbProvider, dbConfig } from "./config";
import { StoreUnavailableError } from "./faults";

/**
 * Both generated clients expose the same model API (they come from one schema); the
 * SQLite client's type stands for both so callers write provider-agnostic code.
 */
export type Db = PrismaClient;

// On globalThis, like the cached client below: Next bundles this module into each route
// separately, and a client cached by one route's copy must be known to every other copy.
const providers: WeakMap<object, DbProvider> = ((globalThis as unknown as { graftDbProviders?: WeakMap<object, DbProvider> }).graftDbProviders ??=
  new WeakMap());

/**
 * A client for the configured store. A SQLite file that does not exist is not created (that is
 * `graft db migrate`'s job): the error says so, and a request gets 503 until it exists.
 */
export function createDb(config: DbConfig = dbConfig()): Db {
  if (config.provider === "sqlite" && config.file && config.file !== ":memory:" && !existsSync(config.file))
    throw new StoreUnavailableError("gone", {
      message: `The SQLite store ${config.file} does not exist: create it with \`npm run graft -- db migrate\` (or point DATABASE_URL at an existing store).`,
    });
  const adapter = adapterFactory(config);
  const db = config.provider === "sqlite" ? new PrismaClient({ adapter }) : (new PgPrismaClient({ adapter }) as unknown as Db);
  providers.set(db, config.provider);
  return db;
}

/** Which provider a client talks to (for the few provider-specific SQL paths, e.g. bulk inserts). */
export function dbProvider(db: Db): DbProvider {
  const p = providers.get(db);
  if (!p) throw new Error("dbProvider: this client was not made by createDb()");
  return p;
}

// One client per process: Next's dev server re-evaluates modules on every change, and
// each client holds a connection pool (or an open SQLite file), so cache it on globalThis.
const globalForDb = globalThis as unknown as { graftDb?: { db: Db; url: string } };

export function getDb(): Db {
  const config = dbConfig();
  const cached = globalForDb.graftDb;
  if (cached && cached.url === config.url) return cached.db;
  const db = createDb(config);
  globalForDb.graftDb = { db, url: config.url };
  return db;
}

export async function disconnectDb(): Promise<void> {
  const cached = globalForDb.graftDb;
  globalForDb.graftDb = undefined;
  if (cached) await cached.db.$disconnect();
}
