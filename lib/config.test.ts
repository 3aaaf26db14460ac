import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { inspect } from "node:util";
import { config, ConfigError, configFrom, defaultOf, isSet, PAPER_DEFAULTS, parseConfig, Secret, SETTINGS } from "./config";
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
      assert.match(e.message, /GRAFT_TRUSTED_PROXIES="11": expected a whole number from 0 to 10/);
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
