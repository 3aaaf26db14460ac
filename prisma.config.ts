import { existsSync } from "node:fs";
import path from "node:path";
import { defineConfig } from "prisma/config";
import { config } from "./lib/config";

// The Prisma CLI downloads a native schema engine at start-up, which fails offline.
// `prisma generate` needs no engine, so point the CLI at a stub that explains what to
// run instead; Graft applies migrations with the WASM engine (`npm run db:migrate`).
if (!process.env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const stub = path.resolve("scripts/db/no-schema-engine.sh");
  if (existsSync(stub)) process.env.PRISMA_SCHEMA_ENGINE_BINARY = stub;
}

export default defineConfig({
  schema: config().GRAFT_PRISMA_SCHEMA,
  migrations: { path: config().GRAFT_PRISMA_MIGRATIONS },
});
