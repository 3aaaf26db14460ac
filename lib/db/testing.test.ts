import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { test } from "node:test";
import { migrationsDir } from "./config";
import { staleGeneratedClients } from "./generated";
import { createTestDb, testProvider } from "./testing";

// Test databases are copies of one migrated template: each must be fully migrated and its own.

test(`test databases: every migration applied, and no two share their rows (${testProvider})`, async () => {
  const [a, b] = [await createTestDb(), await createTestDb()];
  try {
    const migrations = readdirSync(migrationsDir(a.config.provider), { withFileTypes: true }).filter((e) => e.isDirectory()).length;
    for (const t of [a, b]) {
      const rows = await t.db.$queryRawUnsafe<{ migration_name: string }[]>(`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL`);
      assert.equal(rows.length, migrations);
    }
    await a.db.corpus.create({ data: { name: "only-in-a" } });
    assert.equal(await a.db.corpus.count(), 1);
    assert.equal(await b.db.corpus.count(), 0);
    assert.notEqual(a.config.url, b.config.url);
  } finally {
    await a.cleanup();
    await b.cleanup();
  }
});

test("the generated Prisma clients match their schemas (else: npm run db:generate)", () => {
  assert.deepEqual(staleGeneratedClients(), []);
});
