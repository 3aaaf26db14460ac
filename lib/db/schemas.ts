/** The PostgreSQL schema is the SQLite one with another provider and client output. */
export function postgresSchemaFrom(sqliteSchema: string): string {
  const out = sqliteSchema
    .replace('output       = "../lib/generated/sqlite"', 'output       = "../../lib/generated/postgres"')
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace(/^\/\/ Graft's store\.[\s\S]*?edit this file only\.\n/m, "// GENERATED from prisma/schema.prisma by `npm run db:sync-schemas`: do not edit.\n");
  if (out === sqliteSchema || !out.includes('"postgresql"') || !out.includes("lib/generated/postgres"))
    throw new Error("prisma/schema.prisma no longer has the expected generator/datasource lines");
  return out;
}
