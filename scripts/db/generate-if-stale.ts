// Regenerates the Prisma clients under lib/generated when they no longer match their schemas (a
// checkout that pulled a schema change after its last `npm ci`); nothing to do otherwise. npm test runs it.
import { spawnSync } from "node:child_process";
import { staleGeneratedClients } from "../../lib/db/generated";
import { repoRoot } from "../../lib/paths";

const stale = staleGeneratedClients();
if (stale.length > 0) {
  console.log(`regenerating the Prisma clients: ${stale.join(", ")} out of date`);
  const r = spawnSync("npm", ["run", "--silent", "db:generate"], { cwd: repoRoot, stdio: "inherit" });
  process.exitCode = r.status ?? 1;
}
