import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { Command } from "commander";
import { authenticate } from "@/lib/auth";
import { disconnectDb } from "@/lib/db";
import { repoRoot } from "@/lib/paths";
import { createTestDb, type TestDb } from "@/lib/db/testing";
import { UsageError } from "../output";
import { registerUser } from "./user";

// `graft user …` in process (against a test database), plus one subprocess for --password-stdin.

describe("graft user", { concurrency: false }, () => {
  let t: TestDb;
  const saved = { url: process.env.DATABASE_URL, rounds: process.env.GRAFT_BCRYPT_ROUNDS, pw: process.env.GRAFT_USER_PASSWORD };
  before(async () => {
    t = await createTestDb();
    process.env.DATABASE_URL = t.config.url;
    process.env.GRAFT_BCRYPT_ROUNDS = "4";
  });
  after(async () => {
    for (const [k, v] of [
      ["DATABASE_URL", saved.url],
      ["GRAFT_BCRYPT_ROUNDS", saved.rounds],
      ["GRAFT_USER_PASSWORD", saved.pw],
    ] as const)
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    await disconnectDb();
    await t.cleanup();
  });

  /** Runs `graft user <args>` and returns what it printed. */
  async function graftUser(...args: string[]): Promise<string> {
    const program = new Command("graft").exitOverride();
    registerUser(program);
    const write = process.stdout.write;
    let out = "";
    // Only the command's text is captured: node's test runner reports to its parent through
    // this same stdout (as binary frames), and those must pass.
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      if (typeof chunk !== "string") return (write as (...a: unknown[]) => boolean).call(process.stdout, chunk, ...rest);
      out += chunk;
      return true;
    }) as typeof process.stdout.write;
    try {
      await program.parseAsync(["user", ...args], { from: "user" });
    } finally {
      process.stdout.write = write;
    }
    return out;
  }

  test("user add --admin creates the first admin with a generated password shown once", async () => {
    delete process.env.GRAFT_USER_PASSWORD;
    const out = JSON.parse(await graftUser("add", "--email", "Root@Example.org", "--name", "Root", "--admin", "--json"));
    assert.equal(out.email, "root@example.org");
    assert.equal(out.role, "admin");
    assert.match(out.password, /^\w{4}(-\w{4}){3}$/);
    assert.equal((await authenticate(t.db, "root@example.org", out.password))?.role, "admin");
    const row = await t.db.user.findUniqueOrThrow({ where: { email: "root@example.org" } });
    assert.ok(!row.passwordHash.includes(out.password));
  });

  test("add takes GRAFT_USER_PASSWORD, refuses duplicates and weak passwords (exit 2)", async () => {
    process.env.GRAFT_USER_PASSWORD = "annotator-pass";
    const text = await graftUser("add", "--email", "ann@example.org");
    assert.match(text, /^created annotator ann@example.org \(id \d+\)\n$/);
    assert.ok(await authenticate(t.db, "ann@example.org", "annotator-pass"));
    await assert.rejects(graftUser("add", "--email", "ann@example.org"), (e) => e instanceof UsageError && /already exists/.test(e.message));
    process.env.GRAFT_USER_PASSWORD = "short";
    await assert.rejects(graftUser("add", "--email", "weak@example.org"), (e) => e instanceof UsageError && /at least 8/.test(e.message));
    delete process.env.GRAFT_USER_PASSWORD;
    await assert.rejects(graftUser("add", "--email", "not-an-email"), (e) => e instanceof UsageError && /email/.test(e.message));
  });

  test("list, disable, enable, passwd", async () => {
    const list = JSON.parse(await graftUser("list", "--json")) as { email: string; role: string; passwordHash?: string }[];
    assert.deepEqual(
      list.map((u) => [u.email, u.role]),
      [
        ["root@example.org", "admin"],
        ["ann@example.org", "annotator"],
      ],
    );
    assert.ok(
      list.every((u) => u.passwordHash === undefined),
      "no hashes in the listing",
    );
    await graftUser("disable", "ann@example.org");
    assert.equal(await authenticate(t.db, "ann@example.org", "annotator-pass"), null);
    await graftUser("enable", "ann@example.org");
    process.env.GRAFT_USER_PASSWORD = "a-new-password";
    await graftUser("passwd", "ann@example.org");
    delete process.env.GRAFT_USER_PASSWORD;
    assert.ok(await authenticate(t.db, "ann@example.org", "a-new-password"));
    await assert.rejects(graftUser("disable", "ghost@example.org"), (e) => e instanceof UsageError && /no account/.test(e.message));
  });

  test("--password-stdin reads the password from standard input", () => {
    const script = `
      import { Command } from "commander";
      import { registerUser } from "@/lib/cli/commands/user";
      import { disconnectDb } from "@/lib/db/client";
      const program = new Command("graft").exitOverride();
      registerUser(program);
      await program.parseAsync(["user", "add", "--email", "piped@example.org", "--password-stdin", "--json"], { from: "user" });
      await disconnectDb();`;
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: repoRoot,
      env: { ...process.env, GRAFT_USER_PASSWORD: "" },
      input: "piped-password\n",
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.email, "piped@example.org");
    assert.equal(out.password, undefined, "a given password is never echoed");
    return authenticate(t.db, "piped@example.org", "piped-password").then((u) => assert.ok(u));
  });
});
