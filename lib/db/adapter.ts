import { mkdirSync } from "node:fs";
import path from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { config as settings } from "@/lib/config";
import { type DbConfig, pgPoolConfig } from "./config";

// The schema engine reads PostgreSQL catalog columns of type "char" (OID 18), which the
// Prisma pg adapter rejects as an unsupported type; pg already returns their values as
// strings, so report them as text (OID 25). Applied to every connection of the pool,
// the shadow database's included, through pg's `Client` option.
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

type QueryResultLike = { fields?: { dataTypeID: number }[] };

function charAsText<T>(result: T): T {
  for (const field of (result as QueryResultLike)?.fields ?? []) if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
  return result;
}

class CatalogFriendlyClient extends pg.Client {
  // pg's query() has many overloads; Pool.query calls the callback form, the adapter's
  // transactions the promise form: patch the result in both.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(...args: any[]): any {
    const last = args[args.length - 1];
    if (typeof last === "function") args[args.length - 1] = (err: unknown, res: unknown) => last(err, err ? res : charAsText(res));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const out = (super.query as (...a: any[]) => any)(...args);
    return out && typeof out.then === "function" ? out.then(charAsText) : out;
  }
}

/**
 * The Prisma driver-adapter factory for a configured store (shared by client and migrations).
 * Only migrations (`create`) may create a SQLite file: anything else opening a missing one
 * would leave an empty, table-less store behind.
 */
export function adapterFactory(config: DbConfig, options: { create?: boolean } = {}): SqlMigrationAwareDriverAdapterFactory {
  if (config.provider === "sqlite") {
    const file = config.file && config.file !== ":memory:" ? config.file : null;
    if (file && options.create) mkdirSync(path.dirname(file), { recursive: true });
    // The shadow database (for diffing migrations) is a throwaway in-memory one.
    return new PrismaBetterSqlite3(
      { url: config.file ?? ":memory:", timeout: settings().GRAFT_DB_BUSY_MS, fileMustExist: file !== null && !options.create },
      { shadowDatabaseUrl: ":memory:" },
    );
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg.PoolConfig types Client narrower than pg.Client
  return new PrismaPg({ ...pgPoolConfig(config.url), Client: CatalogFriendlyClient as any });
}

/**
 * A factory for the schema engine. The engine replays migration scripts through
 * `executeRaw` with no arguments; better-sqlite3 prepares a single statement only, so those
 * calls go to executeScript. `dispose` closes every connection it opened (the engine does
 * not), so a SQLite file is not left locked for the next engine.
 */
export function migrationSafe(factory: SqlMigrationAwareDriverAdapterFactory): SqlMigrationAwareDriverAdapterFactory & {
  dispose(): Promise<void>;
} {
  const opened: SqlDriverAdapter[] = [];
  const wrap = (adapter: SqlDriverAdapter): SqlDriverAdapter => {
    opened.push(adapter);
    const executeRaw = adapter.executeRaw.bind(adapter);
    adapter.executeRaw = async (query) => {
      if (query.args.length === 0 && adapter.provider === "sqlite") {
        await adapter.executeScript(query.sql);
        return 0;
      }
      return executeRaw(query);
    };
    return adapter;
  };
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => wrap(await factory.connect()),
    connectToShadowDb: async () => wrap(await factory.connectToShadowDb()),
    dispose: async () => {
      await Promise.allSettled(opened.splice(0).map((a) => a.dispose()));
    },
  };
}
