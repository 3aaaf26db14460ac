// Writes prisma/postgres/schema.prisma from the canonical SQLite schema: a generated
// Prisma client is tied to one provider, so PostgreSQL needs its own copy.
// With --check it only verifies the copy is current (npm test runs that).
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { postgresSchemaFrom } from "../../lib/db/schemas";
import { repoRoot } from "../../lib/paths";

const source = readFileSync(path.join(repoRoot, "prisma/schema.prisma"), "utf8");
const target = path.join(repoRoot, "prisma/postgres/schema.prisma");
const want = postgresSchemaFrom(source);
if (process.argv.includes("--check")) {
  let have = "";
  try {
    have = readFileSync(target, "utf8");
  } catch {
    /* missing counts as stale */
  }
  if (have !== want) {
    console.error("prisma/postgres/schema.prisma is stale: run `npm run db:sync-schemas` and add a PostgreSQL migration");
    process.exit(1);
  }
  console.log("prisma/postgres/schema.prisma is in sync");
} else {
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, want);
  console.log("wrote prisma/postgres/schema.prisma");
}
