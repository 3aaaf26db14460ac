import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { inspect } from "node:util";
import { config, ConfigError, configFrom, configTable, defaultOf, isSet, PAPER_DEFAULTS, parseConfig, Secret, SETTINGS } from "./config";
import { dataRoot, defaultCorpusPath, repoRoot, sharedDataDir } from "./paths";

/** Runs `fn` with some variables set (undefined: removed), then restores them. */
function withEnv<T>(vars: Record<string, string | undefined>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, value] of Object.entries(v)) {
      if (value === undefined) delete process.env[k];
      else process.env[k] = value;
    }
  };
  apply(vars);
  try {
    return fn();
  } finally {
    apply(saved);
  }
}

test("defaults: every setting has its documented value when the environment is empty", () => {
  const c = parseConfig({});
  assert.equal(c.GRAFT_DATA_ROOT, ".graft");
  assert.equal(c.GRAFT_SHARED_DATA, "../shared/data");
  assert.equal(c.GRAFT_BEAMS, 50);
  assert.equal(c.GRAFT_BEAMS, PAPER_DEFAULTS.beams);
  assert.equal(c.GRAFT_DECODE_THREADS, 1);
  assert.equal(c.GRAFT_EXTRACTOR, "offline");
  assert.equal(c.GRAFT_EMBEDDER, "use-lite");
  assert.equal(c.GRAFT_MAX_UPLOAD_MB, 20);
  assert.equal(c.GRAFT_MAX_PDF_PAGES, 100);
  assert.equal(c.GRAFT_BCRYPT_ROUNDS, 12);
  assert.equal(c.GRAFT_JOB_LEASE_S, 120);
  assert.equal(c.GRAFT_RATE_LIMITS, "on");
  assert.equal(c.GRAFT_HF_OFFLINE, false);
  assert.deepEqual(c.GRAFT_IMPORT_ROOTS, []);
  assert.equal(c.DATABASE_URL, undefined);
  assert.equal(c.GRAFT_LLM_MODEL, undefined);
  assert.equal(c.GRAFT_PROGRESS, undefined);
  assert.ok(Object.isFrozen(c));
  for (const name of Object.keys(SETTINGS) as (keyof typeof SETTINGS)[]) assert.equal(c[name], defaultOf(name), name);
});

test("overrides: values are trimmed and typed; blank counts as unset", () => {
  const c = parseConfig({
    GRAFT_BEAMS: " 8 ",
    GRAFT_MAX_UPLOAD_MB: "0.5",
    GRAFT_EXTRACTOR: "llm",
    GRAFT_HF_OFFLINE: "1",
    GRAFT_DEBUG: "false",
    GRAFT_ALLOWED_ORIGINS: "https://a.example, https://b.example,",
    GRAFT_IMPORT_ROOTS: ["/x", "/y"].join(path.delimiter),
    GRAFT_DATA_ROOT: "   ",
    GRAFT_LLM_MODEL: " llama3.1:8b ",
  });
  assert.equal(c.GRAFT_BEAMS, 8);
  assert.equal(c.GRAFT_MAX_UPLOAD_MB, 0.5);
  assert.equal(c.GRAFT_EXTRACTOR, "llm");
  assert.equal(c.GRAFT_HF_OFFLINE, true);
  assert.equal(c.GRAFT_DEBUG, false);
  assert.deepEqual(c.GRAFT_ALLOWED_ORIGINS, ["https://a.example", "https://b.example"]);
  assert.deepEqual(c.GRAFT_IMPORT_ROOTS, ["/x", "/y"]);
  assert.equal(c.GRAFT_DATA_ROOT, ".graft");
  assert.equal(c.GRAFT_LLM_MODEL, "llama3.1:8b");
  assert.equal(isSet("GRAFT_DATA_ROOT", { GRAFT_DATA_ROOT: "   " }), false);
  assert.equal(isSet("GRAFT_DATA_ROOT", { GRAFT_DATA_ROOT: "/d" }), true);
});

test("a bad value is an error naming its variable and value; every bad variable at once", () => {
  assert.throws(
    () => parseConfig({ GRAFT_BEAMS: "many" }),
    (e: Error) => e instanceof ConfigError && e.message === 'GRAFT_BEAMS="many": expected a whole number ≥ 1',
  );
  assert.throws(
    () => parseConfig({ GRAFT_BEAMS: "0", GRAFT_EXTRACTOR: "LLM!", GRAFT_TRUSTED_PROXIES: "11", GRAFT_MAX_UPLOAD_MB: "-2", GRAFT_RATE_QUERY: "lots" }),
    (e: Error) => {
      assert.ok(e instanceof ConfigError);
      assert.deepEqual(
        e.issues.map((i) => i.variable),
        ["GRAFT_BEAMS", "GRAFT_EXTRACTOR", "GRAFT_MAX_UPLOAD_MB", "GRAFT_RATE_QUERY", "GRAFT_TRUSTED_PROXIES"],
      );
      assert.match(e.message, /^invalid settings:\n/);
      assert.match(e.message, /GRAFT_EXTRACTOR="LLM!": expected offline or llm/);
      assert.match(e.message, /GRAFT_TRUSTED_PROXIES="11": expected the proxies' addresses or CIDRs/);
      assert.match(e.message, /GRAFT_MAX_UPLOAD_MB="-2": expected a positive number/);
      return true;
    },
  );
});

test("secrets never print", () => {
  const c = parseConfig({ GRAFT_LLM_API_KEY: "sk-secret-123" });
  assert.ok(c.GRAFT_LLM_API_KEY instanceof Secret);
  assert.equal(c.GRAFT_LLM_API_KEY.reveal(), "sk-secret-123");
  for (const shown of [JSON.stringify(c), inspect(c, { depth: 5 }), String(c.GRAFT_LLM_API_KEY)]) assert.doesNotMatch(shown, /sk-secret-123/);
  // A password keeps its spaces.
  assert.equal(parseConfig({ GRAFT_USER_PASSWORD: " pass word " }).GRAFT_USER_PASSWORD?.reveal(), " pass word ");
});

test("config() reads process.env once, and again after a setting changed (tests set it between cases)", () => {
  withEnv({ GRAFT_BEAMS: "7", GRAFT_DATA_ROOT: "/tmp/graft-config-test" }, () => {
    const first = config();
    assert.equal(first.GRAFT_BEAMS, 7);
    assert.equal(config(), first, "unchanged environment: the same object");
    assert.equal(dataRoot(), "/tmp/graft-config-test");
    process.env.GRAFT_BEAMS = "9";
    assert.equal(config().GRAFT_BEAMS, 9);
    process.env.GRAFT_BEAMS = "nine";
    assert.throws(() => config(), /GRAFT_BEAMS="nine"/);
  });
  assert.equal(configFrom({ GRAFT_BEAMS: "3" }).GRAFT_BEAMS, 3);
  assert.equal(configFrom(), config());
});

test("paths resolve against the repository root", () => {
  withEnv({ GRAFT_DATA_ROOT: undefined, GRAFT_SHARED_DATA: "data/shared", GRAFT_DEMO_CORPUS: undefined }, () => {
    assert.equal(dataRoot(), path.join(repoRoot, ".graft"));
    assert.equal(sharedDataDir(), path.join(repoRoot, "data/shared"));
    assert.equal(defaultCorpusPath(), path.join(repoRoot, "data/shared/acl-citegraph"));
  });
});

// ── one module reads the environment ─────────────────────────────────────────────────────

/**
 * Files that still read settings from the environment themselves, with the variables they read
 * and why. Each goes when its file moves to lib/config.ts; an entry whose file no longer reads
 * them fails the test below, so the list only shrinks.
 */
const NOT_YET_MIGRATED: Record<string, { reads: string[]; why: string }> = {
  "scripts/server.mjs": {
    reads: ["GRAFT_MAX_QUEUE_MS"],
    why: "plain Node in front of Next, without a TypeScript loader: it reads the one setting it needs; lib/config.ts defines and documents it",
  },
};

/** Variables of other programs that Graft's code may read or set directly. */
// NEXT_RUNTIME and NEXT_PHASE: what Next tells instrumentation.ts about the process it runs in.
const NOT_SETTINGS = new Set(["NODE_ENV", "NEXT_RUNTIME", "NEXT_PHASE", "PRISMA_SCHEMA_ENGINE_BINARY", "OPENBLAS_NUM_THREADS"]);

const SCANNED_DIRS = ["lib", "app", "components", "workers", "scripts", "e2e"];
const SKIPPED = new Set(["node_modules", "generated", ".next"]);

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name) && !entry.name.startsWith(".")) walk(rel);
      } else if (/\.(ts|tsx|mjs|js)$/.test(entry.name)) out.push(rel);
    }
  };
  for (const dir of SCANNED_DIRS) walk(dir);
  for (const entry of readdirSync(repoRoot)) if (/\.(ts|mjs)$/.test(entry) && !entry.endsWith(".d.ts")) out.push(entry);
  // Tests and test helpers set variables for the code under test (and save and restore them).
  return out.filter((f) => !/\.(test|spec)\.tsx?$/.test(f) && !/(^|\/)testing\.ts$/.test(f) && f !== path.join("lib", "config.ts")).sort();
}

/** The settings a file reads from an environment object itself: `env.NAME`, `process.env.NAME`, `env[expr]`. */
function envReads(source: string): string[] {
  const reads = new Set<string>();
  for (const m of source.matchAll(/(delete\s+(?:process\.)?)?\benv\s*(?:\.\s*([A-Z][A-Z0-9_]*)|\[([^\]]+)\])(\s*=(?!=))?/g)) {
    const [, deleted, name, expr, assigned] = m;
    if (deleted || assigned) continue; // setting one (for a child process, a test) is not reading it
    if (name !== undefined) {
      if (!NOT_SETTINGS.has(name)) reads.add(name);
    } else reads.add(`env[${expr.trim()}]`);
  }
  return [...reads];
}

test("every setting is read through lib/config.ts: no other file reads one from the environment", () => {
  const found: Record<string, string[]> = {};
  for (const file of sourceFiles()) {
    const reads = envReads(readFileSync(path.join(repoRoot, file), "utf8"));
    if (reads.length > 0) found[file] = reads;
  }
  const problems: string[] = [];
  for (const [file, reads] of Object.entries(found)) {
    const allowed = NOT_YET_MIGRATED[file]?.reads ?? [];
    const extra = reads.filter((r) => !allowed.includes(r));
    if (extra.length > 0) problems.push(`${file} reads ${extra.join(", ")} from the environment: use config() from lib/config.ts (defining the setting there)`);
  }
  for (const [file, { reads }] of Object.entries(NOT_YET_MIGRATED)) {
    const gone = reads.filter((r) => !(found[file] ?? []).includes(r));
    if (gone.length > 0) problems.push(`${file} no longer reads ${gone.join(", ")}: take it out of NOT_YET_MIGRATED in lib/config.test.ts`);
  }
  assert.deepEqual(problems, []);
  // What those files still read is defined here all the same (defaults and docs in one place).
  for (const { reads } of Object.values(NOT_YET_MIGRATED))
    for (const r of reads) if (!r.startsWith("env[")) assert.ok(r in SETTINGS, `${r} is not in SETTINGS`);
});

test("dataRoot and repoRoot come from lib/paths.ts alone", () => {
  const importers = sourceFiles().filter((file) =>
    /import\s*\{[^}]*\b(dataRoot|repoRoot)\b[^}]*\}\s*from\s*"@\/lib\/db\/config"/.test(readFileSync(path.join(repoRoot, file), "utf8")),
  );
  assert.deepEqual(importers, []);
});

test("the scan sees reads and skips writes", () => {
  assert.deepEqual(envReads("const a = process.env.GRAFT_X ?? 1; f(env.GRAFT_Y); g(process.env[NAME]);"), ["GRAFT_X", "GRAFT_Y", "env[NAME]"]);
  assert.deepEqual(
    envReads(
      "process.env.GRAFT_X = '1'; delete process.env.GRAFT_Y; spawn(p, { env: { ...process.env, GRAFT_Z: '1' } }); if (process.env.NODE_ENV === 'x') {}",
    ),
    [],
  );
  assert.deepEqual(envReads("if (process.env.GRAFT_X == null) {}"), ["GRAFT_X"]);
});

test("the README's configuration table is lib/config.ts's (npm run config:readme rewrites it)", () => {
  const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const block = /<!-- config:begin[^>]*-->\n([\s\S]*?)\n<!-- config:end -->/.exec(readme);
  assert.ok(block, "README.md has no config:begin … config:end block");
  assert.equal(block[1], configTable(), "README.md's configuration table is stale: run `npm run config:readme`");
  // One row per setting, each with a description.
  const rows = block[1].split("\n").slice(2);
  assert.deepEqual(
    rows.map((r) => /^\| `([A-Z0-9_]+)` \|/.exec(r)?.[1]),
    Object.keys(SETTINGS),
  );
  for (const [name, s] of Object.entries(SETTINGS)) assert.ok(s.doc.length > 10, `${name} needs a description`);
});
