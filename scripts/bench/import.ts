// npm run bench:import [-- --abstracts] [-- --pg <url>]
// Times `graft import` of the demo corpus into a fresh store (read + validate + write),
// then a re-import (which must write nothing). --abstracts also imports the 63,931-line
// ACL abstracts dump; --pg runs against a PostgreSQL server instead of a temp SQLite file.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { importCorpus } from "@/lib/corpus/import";
import { readCorpus } from "@/lib/corpus/read";
import { defaultCorpusPath, sharedDataDir } from "@/lib/paths";
import { createDb } from "@/lib/db";
import { migrateDeploy } from "@/lib/db/migrate";
import { type DbConfig, dbConfig } from "@/lib/db/config";

const args = process.argv.slice(2);
const pgUrl = args.includes("--pg") ? args[args.indexOf("--pg") + 1] : undefined;
const dir = mkdtempSync(path.join(os.tmpdir(), "graft-bench-"));
const config: DbConfig = pgUrl ? dbConfig(pgUrl) : dbConfig(`file:${path.join(dir, "bench.db")}`);

async function run(label: string, source: string, corpus: string, skipInvalid = false) {
  const t0 = performance.now();
  const input = await readCorpus(source, { skipInvalid });
  const readS = (performance.now() - t0) / 1000;
  const s = await importCorpus(db, input, { corpus });
  const total = (performance.now() - t0) / 1000;
  const n = input.papers.length + input.queries.length;
  console.log(
    `${label.padEnd(28)} ${String(n).padStart(7)} papers  read ${readS.toFixed(2)} s  write ${s.seconds.toFixed(2)} s  total ${total.toFixed(2)} s  ${(n / total).toFixed(0).padStart(6)} papers/s  (new ${s.papers.created + s.queries.created}, updated ${s.papers.updated + s.queries.updated}, items written ${s.facetItems.written}, citations new ${s.citations.created + s.queryGold.created})`,
  );
}

await migrateDeploy(config);
const db = createDb(config);
try {
  console.log(`store: ${config.provider}${pgUrl ? "" : ` (${config.file})`}; node ${process.version}; ${os.cpus().length} cores`);
  await run("demo corpus, first import", defaultCorpusPath(), "acl-citegraph");
  await run("demo corpus, re-import", defaultCorpusPath(), "acl-citegraph");
  if (args.includes("--abstracts")) {
    const file = path.join(sharedDataDir(), "acl-anthology-abstracts.jsonl.gz");
    await run("ACL abstracts, first import", file, "acl-anthology", true);
    await run("ACL abstracts, re-import", file, "acl-anthology", true);
  }
} finally {
  await db.$disconnect();
  rmSync(dir, { recursive: true, force: true });
}
