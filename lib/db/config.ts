import path from "node:path";
import { config } from "@/lib/config";
import { dataRoot, repoRoot } from "@/lib/paths";

export type DbProvider = "sqlite" | "postgresql";

export interface DbConfig {
  provider: DbProvider;
  url: string;
  /** Absolute path of the SQLite file (sqlite only). */
  file?: string;
}

/**
 * DATABASE_URL selects the store: `file:<path>` (SQLite, the embedded default) or
 * `postgres(ql)://…` (the server option). Relative SQLite paths resolve against the
 * repository root, not the process's cwd, so every entry point opens the same file.
 */
export function dbConfig(url = config().DATABASE_URL): DbConfig {
  const value = url && url.trim() !== "" ? url.trim() : `file:${path.join(dataRoot(), "graft.db")}`;
  if (value.startsWith("file:")) {
    const raw = value.slice("file:".length);
    const file = raw === ":memory:" ? raw : path.resolve(repoRoot, raw);
    return { provider: "sqlite", url: `file:${file}`, file };
  }
  if (/^postgres(ql)?:\/\//.test(value)) return { provider: "postgresql", url: value };
  throw new Error(`DATABASE_URL must start with "file:" (SQLite) or "postgresql://" (PostgreSQL); got "${value.replace(/\/\/[^@]*@/, "//…@")}"`);
}

/** pg pool fields from a URL. Discrete fields, not a connection string: with a string the
 * Prisma adapter's shadow-database pool connected to the main database (STACK.md). */
export function pgPoolConfig(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : 5432,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.replace(/^\//, "")) || "postgres",
  };
}

export function migrationsDir(provider: DbProvider): string {
  return provider === "sqlite" ? path.join(repoRoot, "prisma/migrations") : path.join(repoRoot, "prisma/postgres/migrations");
}

export function schemaPath(provider: DbProvider): string {
  return provider === "sqlite" ? path.join(repoRoot, "prisma/schema.prisma") : path.join(repoRoot, "prisma/postgres/schema.prisma");
}
