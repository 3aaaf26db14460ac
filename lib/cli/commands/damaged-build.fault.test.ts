import assert from "node:assert/strict";
import { readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { registerBuild } from "./build";
import { disconnectDb } from "@/lib/db";
import { testProvider } from "@/lib/db/testing";
import { buildGraphStage } from "@/lib/graph/build";
import { paperNeighbours } from "@/lib/graph/neighbours";
import { useMiniCorpusStore } from "@/lib/graph/testing";
import { knownErrorBody } from "@/lib/http";
import { dataRoot } from "@/lib/paths";
import { clearGraphCache, loadGraph } from "@/lib/retrieve";
import { buildDamage, DamagedBuildError } from "@/lib/builds";
import { runGraft } from "@/lib/cli/testing";

// Issue 28, finding 7: a damaged build (graph.csr truncated, or changed in place) is found at
// load from the manifest's sizes and sha256; serving falls back to the newest intact build, the
// message names the command that rebuilds it, and `build --if-missing` rebuilds a damaged build.

const graftBuild = async (...argv: string[]): Promise<string> => (await runGraft(registerBuild, ["build", ...argv])).out;

/** Runs `fn` collecting console.warn lines. */
async function warnings<T>(fn: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const lines: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    return { value: await fn(), lines };
  } finally {
    console.warn = warn;
  }
}

describe(`damaged builds are detected, skipped and rebuilt (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-damaged-build-");
  const saved = { url: process.env.DATABASE_URL, progress: process.env.GRAFT_PROGRESS };
  let older: number;
  let newer: number;
  const csrOf = async (id: number) => path.join(dataRoot(), (await t.db.build.findUniqueOrThrow({ where: { id } })).dir, "graph.csr");

  before(async () => {
    await disconnectDb();
    process.env.DATABASE_URL = t.databaseUrl;
    process.env.GRAFT_PROGRESS = "off";
    older = (await buildGraphStage(t.db, { corpus: "mini", k: 3, workers: 1 })).build;
    newer = (await buildGraphStage(t.db, { corpus: "mini", k: 2, workers: 1 })).build;
    clearGraphCache();
  });
  after(async () => {
    await disconnectDb();
    process.env.DATABASE_URL = saved.url;
    process.env.GRAFT_PROGRESS = saved.progress;
  });

  test("intact builds are served as before: the newest one", async () => {
    assert.ok(newer > older);
    assert.equal((await loadGraph(t.db, "mini")).build, newer);
  });

  test("a truncated graph.csr: the newest intact build is served and the log names `build --stage graph`", async () => {
    const csr = await csrOf(newer);
    truncateSync(csr, Math.floor(statSync(csr).size / 2));
    clearGraphCache();
    const { value: g, lines } = await warnings(() => loadGraph(t.db, "mini"));
    assert.equal(g.build, older, "fell back to the older, intact build");
    assert.equal(lines.length, 1);
    assert.match(lines[0], new RegExp(`build ${newer} of corpus "mini" is damaged: graph\\.csr is truncated \\(\\d+ of \\d+ bytes\\); serving build ${older}`));
    assert.match(lines[0], /Rebuild with: npm run graft -- build --stage graph --corpus mini/);
    // The paper page's neighbours come from the same intact build.
    const paper = await t.db.paper.findFirstOrThrow({ where: { corpus: { name: "mini" } } });
    assert.equal((await paperNeighbours(t.db, paper.id))?.build, older);
  });

  test("a file changed in place (same size) is caught by its sha256, and no intact build left is a clear 409", async () => {
    const csr = await csrOf(older);
    const bytes = readFileSync(csr);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(csr, bytes);
    assert.match(
      (await buildDamage(path.dirname(csr), (await t.db.build.findUniqueOrThrow({ where: { id: older } })).manifest)) ?? "",
      /graph\.csr does not match the sha256/,
    );
    clearGraphCache();
    const err = await loadGraph(t.db, "mini").then(
      () => assert.fail("a damaged build was served"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof DamagedBuildError);
    assert.match(err.message, /No intact graph build is left: rebuild it with `npm run graft -- build --stage graph --corpus mini`/);
    assert.equal(knownErrorBody(err)?.status, 409);
    // The paper page still opens, without neighbours.
    const paper = await t.db.paper.findFirstOrThrow({ where: { corpus: { name: "mini" } } });
    const { value } = await warnings(() => paperNeighbours(t.db, paper.id));
    assert.equal(value, null);
  });

  test("`build --if-missing` rebuilds a damaged build, which is then served", async () => {
    const report = JSON.parse(await graftBuild("--stage", "graph", "--corpus", "mini", "--k", "2", "--workers", "1", "--if-missing", "--json")) as {
      build: number;
    };
    const rebuilt = report.build;
    assert.ok(rebuilt > newer, `a new build, got ${rebuilt}`);
    clearGraphCache();
    assert.equal((await loadGraph(t.db, "mini")).build, rebuilt);
    // And with an intact build, --if-missing skips the stage again.
    assert.equal(await graftBuild("--stage", "graph", "--corpus", "mini", "--if-missing", "--json"), "");
    assert.equal(await t.db.build.count(), 3);
  });
});
