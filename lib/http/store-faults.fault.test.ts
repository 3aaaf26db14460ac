import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { listCorpora } from "@/lib/corpus";
import { createDb, pgPoolConfig, storeFault, StoreUnavailableError } from "@/lib/db";
import { createTestDb, testProvider, type TestDb } from "@/lib/db/testing";
import { handleRoute } from "./respond";
import type { ApiErrorBody } from "./types";

// Issue 28, finding 6: a store that is busy, full or gone answers 503 `store_unavailable` with a
// plain message and Retry-After, writes nothing half-way, and serves again once the fault is gone
// (no restart). The lock test holds SQLite's exclusive lock from a second connection.

const corporaRoute = (db: TestDb["db"]) => handleRoute(async (_req: Request) => ({ corpora: await listCorpora(db) }));
const createRoute = (db: TestDb["db"]) =>
  handleRoute(async (_req: Request) => db.$transaction(async (tx) => tx.corpus.create({ data: { name: `c${await tx.corpus.count()}` } })));
const get = () => new Request("http://graft.test/api/corpora");

describe("store faults map to 503 store_unavailable with Retry-After", () => {
  const cases: [string, unknown, "busy" | "full" | "gone"][] = [
    [
      "SQLite lock past the busy timeout (Prisma P1008 over SQLITE_BUSY)",
      { code: "P1008", meta: { driverAdapterError: { cause: { originalCode: "SQLITE_BUSY", kind: "SocketTimeout" } } } },
      "busy",
    ],
    ["SQLite disk full", { code: "P2010", meta: { driverAdapterError: { cause: { originalCode: "SQLITE_FULL" } } } }, "full"],
    ["SQLite file moved away (raw driver error)", { code: "SQLITE_CANTOPEN" }, "gone"],
    ["SQLite file read-only", { code: "SQLITE_READONLY_DBMOVED" }, "gone"],
    ["PostgreSQL disk full", { code: "P2010", meta: { driverAdapterError: { cause: { originalCode: "53100" } } } }, "full"],
    ["PostgreSQL shut down by an administrator", { code: "57P01" }, "gone"],
    ["PostgreSQL unreachable", { name: "PrismaClientInitializationError", errorCode: "P1001" }, "gone"],
    ["PostgreSQL closed the connection", { code: "P1017" }, "gone"],
    ["connection pool exhausted", { code: "P2024" }, "busy"],
  ];
  for (const [what, err, fault] of cases) {
    test(what, () => {
      assert.equal(storeFault(err)?.fault, fault);
    });
  }
  test("other errors are not store faults (a unique-key conflict, a socket error of an LLM call, a plain error)", () => {
    assert.equal(storeFault({ code: "P2002" }), null);
    assert.equal(storeFault(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })), null);
    assert.equal(storeFault(new Error("boom")), null);
  });
});

describe(`the store's own faults answer 503 + Retry-After, write nothing, recover (${testProvider})`, { concurrency: false }, () => {
  let t: TestDb;
  const saved = process.env.GRAFT_DB_BUSY_MS;
  before(async () => {
    // A short busy timeout keeps the SQLite test quick; the default (5 s) behaves the same, later.
    process.env.GRAFT_DB_BUSY_MS = "100";
    t = await createTestDb();
  });
  after(async () => {
    await t.cleanup();
    process.env.GRAFT_DB_BUSY_MS = saved;
  });

  const sqliteLock = async () => {
    assert.equal((await corporaRoute(t.db)(get())).status, 200, "the store answers before the lock");
    const other = new Database(t.config.file as string);
    other.exec("BEGIN EXCLUSIVE");
    try {
      for (const route of [corporaRoute, createRoute]) {
        const res = await route(t.db)(get());
        assert.equal(res.status, 503);
        assert.equal(res.headers.get("retry-after"), "5");
        const body = (await res.json()) as ApiErrorBody;
        assert.equal(body.error.code, "store_unavailable");
        assert.match(body.error.message, /database is busy/);
      }
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    assert.equal(await t.db.corpus.count(), 0, "the refused write left nothing behind");
    assert.equal((await createRoute(t.db)(get())).status, 200, "writes again without a restart");
    assert.equal((await corporaRoute(t.db)(get())).status, 200);
    assert.equal(await t.db.corpus.count(), 1);
  };

  // A full disk, for real: SQLite refuses to grow the file past max_page_count with SQLITE_FULL.
  const sqliteFull = async () => {
    const before = await t.db.corpus.count();
    const pages = Number((await t.db.$queryRawUnsafe<{ page_count: bigint }[]>("PRAGMA page_count"))[0].page_count);
    await t.db.$queryRawUnsafe(`PRAGMA max_page_count = ${pages + 2}`);
    const fill = handleRoute(async (_req: Request) =>
      t.db.$transaction(async (tx) => {
        for (let i = 0; i < 50; i++) await tx.corpus.create({ data: { name: `full-${i}`, description: "x".repeat(4000) } });
        return { created: 50 };
      }),
    );
    try {
      const res = await fill(get());
      assert.equal(res.status, 503);
      assert.equal(res.headers.get("retry-after"), "60");
      assert.match(((await res.json()) as ApiErrorBody).error.message, /disk is full/);
      assert.equal(await t.db.corpus.count(), before, "the transaction wrote nothing");
    } finally {
      await t.db.$queryRawUnsafe("PRAGMA max_page_count = 1073741823");
    }
    assert.equal((await fill(get())).status, 200, "space freed: the same write succeeds without a restart");
    assert.equal(await t.db.corpus.count(), before + 50);
  };

  const pgTerminated = async () => {
    const admin = new pg.Client(pgPoolConfig(t.config.url));
    await admin.connect();
    try {
      const slow = handleRoute(async (_req: Request) => t.db.$queryRaw`SELECT pg_sleep(30) AS graft_fault_test`)(get());
      // Wait for the statement to be running, then end its connection as an administrator would.
      let ended = 0;
      while (ended === 0) {
        const r = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%graft_fault_test%' AND pid <> pg_backend_pid()");
        ended = r.rowCount ?? 0;
      }
      const res = await slow;
      assert.equal(res.status, 503);
      assert.equal(res.headers.get("retry-after"), "30");
      assert.match(((await res.json()) as ApiErrorBody).error.message, /cannot be reached/);
    } finally {
      await admin.end();
    }
    assert.equal((await createRoute(t.db)(get())).status, 200, "the pool reconnects: served again without a restart");
    assert.equal(await t.db.corpus.count(), 1);
  };

  if (testProvider === "sqlite") {
    test("SQLite held by BEGIN EXCLUSIVE from another connection: reads and writes get 503 busy; released, both succeed", sqliteLock);
    test("SQLite out of space (SQLITE_FULL): 503 full, the transaction wrote nothing; with space, the write succeeds", sqliteFull);
  } else test("PostgreSQL ends the connection mid-statement (57P01): 503 gone; the next request is served", pgTerminated);
});

describe("a store that is gone answers 503 and is never created by accident", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-store-gone-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("a missing SQLite file: the error names `graft db migrate`, and no empty file is left", async () => {
    const file = path.join(dir, "missing.db");
    const err = (() => {
      try {
        createDb({ provider: "sqlite", url: `file:${file}`, file });
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof StoreUnavailableError);
    assert.match(err.message, /does not exist: create it with `npm run graft -- db migrate`/);
    assert.equal(existsSync(file), false);
    const res = await handleRoute(async (_req: Request) => {
      throw err;
    })(get());
    assert.equal(res.status, 503);
    assert.ok(res.headers.get("retry-after"));
  });

  test("an unreachable PostgreSQL server: 503 gone with Retry-After", async () => {
    const db = createDb({ provider: "postgresql", url: "postgresql://graft:graft@127.0.0.1:1/graft" });
    try {
      const res = await corporaRoute(db)(get());
      assert.equal(res.status, 503);
      assert.equal(res.headers.get("retry-after"), "30");
      assert.match(((await res.json()) as ApiErrorBody).error.message, /cannot be reached/);
    } finally {
      await db.$disconnect();
    }
  });
});
