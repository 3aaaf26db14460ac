// Writes prisma/postgres/schema.prisma from the canonical SQLite schema: a generated
// Prisma client is tied to one provider, so PostgreSQL needs its own copy.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { postgresSchemaFrom } from "../../lib/db/schemas";
import { repoRoot } from "../../lib/db/config";

const source = readFileSync(path.join(repoRoot, "prisma/schema.prisma"), "utf8");
mkdirSync(path.join(repoRoot, "prisma/postgres"), { recursive: true });
writeFileSync(path.join(repoRoot, "prisma/postgres/schema.prisma"), postgresSchemaFrom(source));
console.log("wrote prisma/postgres/schema.prisma");
