import assert from "node:assert/strict";
import { existsSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { failBuild, startBuild } from "@/lib/builds";
import { disconnectDb } from "@/lib/db";
import { testProvider } from "@/lib/db/testing";
import { useMiniCorpusStore } from "@/lib/graph/testing";
import { registerBuilds } from "./builds";
import { runGraft } from "@/lib/cli/testing";

// Issue 28, finding 8: `graft builds prune` removes failed builds and those a killed process
// left running, that no job owns (rows and directories), and keeps everything else.

const graft = async (...argv: string[]): Promise<string> => (await runGraft(registerBuilds, argv)).out;

describe(`graft builds prune (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-builds-prune-");
  const saved = { url: process.env.DATABASE_URL };
  before(async () => {
    await disconnectDb();
    process.env.DATABASE_URL = t.databaseUrl;
  });
  after(async () => {
    await disconnectDb();
    process.env.DATABASE_URL = saved.url;
  });

  test("failed and abandoned builds go, with their files; a fresh running build, a job's build and a complete one stay", async () => {
    const make = async (status: "failed" | "running" | "complete", hoursOld = 0) => {
      const b = await startBuild(t.db, "mini", { test: status });
      writeFileSync(path.join(b.dir, "part.bin"), Buffer.alloc(4096));
      if (status === "failed") await failBuild(t.db, b, new Error("killed"));
      if (status === "complete") await t.db.build.update({ where: { id: b.id }, data: { status: "complete" } });
      if (hoursOld > 0) {
        const then = new Date(Date.now() - hoursOld * 3_600_000);
        await t.db.build.update({ where: { id: b.id }, data: { createdAt: then } });
        utimesSync(path.join(b.dir, "part.bin"), then, then);
        utimesSync(b.dir, then, then);
      }
      return b;
    };
    const failed = await make("failed");
    const abandoned = await make("running", 3);
    const fresh = await make("running");
    const complete = await make("complete", 3);
    const owned = await make("failed");
    await t.db.job.create({ data: { stage: "graph", status: "failed", buildId: owned.id } });

    const dry = JSON.parse(await graft("builds", "prune", "--dry-run", "--json")) as { wouldRemove: { id: number }[] };
    assert.deepEqual(
      dry.wouldRemove.map((b) => b.id),
      [failed.id, abandoned.id],
    );
    assert.equal(existsSync(failed.dir), true, "a dry run removes nothing");

    const run = JSON.parse(await graft("builds", "prune", "--json")) as { removed: { id: number; bytes: number }[] };
    assert.deepEqual(
      run.removed.map((b) => [b.id, b.bytes]),
      [
        [failed.id, 4096],
        [abandoned.id, 4096],
      ],
    );
    for (const b of [failed, abandoned]) {
      assert.equal(existsSync(b.dir), false);
      assert.equal(await t.db.build.findUnique({ where: { id: b.id } }), null);
    }
    for (const b of [fresh, complete, owned]) {
      assert.equal(existsSync(b.dir), true);
      assert.ok(await t.db.build.findUnique({ where: { id: b.id } }));
    }
    assert.match(await graft("builds", "prune"), /no failed or abandoned builds to remove/);
  });
});
