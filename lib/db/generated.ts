import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "@/lib/paths";

// The Prisma clients under lib/generated are made by `npm run db:generate` (npm ci's postinstall),
// not kept in git: a checkout that pulls a schema change keeps the old ones until someone
// regenerates. Such a client lacks the new models, and code that degrades gracefully without
// them (the rate limits' memory fallback) hides it: tests then fail far from the cause.

const CLIENTS = [
  { client: "lib/generated/sqlite", schema: "prisma/schema.prisma" },
  { client: "lib/generated/postgres", schema: "prisma/postgres/schema.prisma" },
] as const;

/** The schema a generated client was made from (Prisma inlines it), or null if there is none. */
function inlinedSchema(clientDir: string): string | null {
  const file = path.join(repoRoot, clientDir, "internal", "class.ts");
  if (!existsSync(file)) return null;
  const m = /"inlineSchema": ("(?:[^"\\]|\\.)*")/.exec(readFileSync(file, "utf8"));
  return m ? (JSON.parse(m[1]) as string) : null;
}

// Prisma re-aligns columns when it inlines the schema: compare the text with spacing folded.
const folded = (s: string) => s.replace(/\s+/g, " ").trim();

/** The generated clients that are missing or were made from another version of their schema. */
export function staleGeneratedClients(): string[] {
  return CLIENTS.filter(({ client, schema }) => {
    const inlined = inlinedSchema(client);
    return inlined === null || folded(inlined) !== folded(readFileSync(path.join(repoRoot, schema), "utf8"));
  }).map(({ client, schema }) => `${client} (from ${schema})`);
}

/** Throws, naming the remedy, when a generated client does not match its schema. */
export function assertGeneratedClientsFresh(): void {
  const stale = staleGeneratedClients();
  if (stale.length > 0) throw new Error(`The generated Prisma client is out of date with the schema: ${stale.join(", ")}. Run \`npm run db:generate\`.`);
}
