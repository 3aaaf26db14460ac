import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createTestDb, type TestDb } from "@/lib/db/testing";
import { CodedError } from "@/lib/errors";
import { STATUS_OF_CODE } from "@/lib/http";
import { isLocalPath, loginPath, requireApiUser } from "./guard";
import { verifyPassword } from "./password";
import {
  clearedSessionCookie,
  createSession,
  deleteSession,
  hashToken,
  isSecureRequest,
  readCookie,
  resolveSession,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  sessionCookie,
} from "./session";
import { authenticate, createUser, generatePassword, listUsers, updateUser, UserExistsError } from "./users";

const ROUNDS = 4; // bcrypt's minimum cost: these tests check behaviour, not hashing strength

describe("accounts and sessions", { concurrency: false }, () => {
  let t: TestDb;
  let savedUrl: string | undefined;
  before(async () => {
    t = await createTestDb();
    // requireApiUser reads the process-wide store (getDb), so point it at the test database.
    savedUrl = process.env.DATABASE_URL;
    process.env.DATABASE_URL = t.config.url;
  });
  after(async () => {
    process.env.DATABASE_URL = savedUrl;
    if (savedUrl === undefined) delete process.env.DATABASE_URL;
    const { disconnectDb } = await import("@/lib/db");
    await disconnectDb();
    await t.cleanup();
  });

  test("createUser normalises the email, hashes the password and refuses duplicates", async () => {
    const u = await createUser(t.db, { email: "  Ada@Example.org ", name: "Ada", password: "correct horse", role: "admin" }, { rounds: ROUNDS });
    assert.equal(u.email, "ada@example.org");
    assert.equal(u.role, "admin");
    const row = await t.db.user.findUniqueOrThrow({ where: { id: u.id } });
    assert.notEqual(row.passwordHash, "correct horse");
    assert.match(row.passwordHash, /^\$2[aby]\$04\$/);
    assert.ok(await verifyPassword("correct horse", row.passwordHash));
    await assert.rejects(createUser(t.db, { email: "ADA@example.org", password: "another one" }, { rounds: ROUNDS }), UserExistsError);
    await assert.rejects(createUser(t.db, { email: "short@example.org", password: "short" }, { rounds: ROUNDS }), /at least 8 characters/);
    await assert.rejects(createUser(t.db, { email: "not-an-email", password: "long enough" }, { rounds: ROUNDS }), /email/);
    await assert.rejects(createUser(t.db, { email: "long@example.org", password: "é".repeat(40) }, { rounds: ROUNDS }), /72 bytes/);
  });

  test("authenticate accepts the right password only, and never a disabled account", async () => {
    const u = await createUser(t.db, { email: "bob@example.org", name: "Bob", password: "s3cret-pass" }, { rounds: ROUNDS });
    assert.equal(u.role, "annotator");
    assert.deepEqual(await authenticate(t.db, "BOB@example.org", "s3cret-pass"), { id: u.id, email: "bob@example.org", name: "Bob", role: "annotator" });
    assert.equal(await authenticate(t.db, "bob@example.org", "wrong-pass"), null);
    assert.equal(await authenticate(t.db, "nobody@example.org", "s3cret-pass"), null);
    assert.equal(await authenticate(t.db, "not an email", "s3cret-pass"), null);
    await updateUser(t.db, u.id, { disabled: true });
    assert.equal(await authenticate(t.db, "bob@example.org", "s3cret-pass"), null);
    await updateUser(t.db, u.id, { disabled: false });
    assert.ok(await authenticate(t.db, "bob@example.org", "s3cret-pass"));
    assert.deepEqual(
      (await listUsers(t.db, "annotator")).map((x) => x.email),
      ["bob@example.org"],
    );
  });

  test("sessions store only the token's hash, expire, and end on sign-out, disable or new password", async () => {
    const u = await createUser(t.db, { email: "cy@example.org", password: "first-password" }, { rounds: ROUNDS });
    const now = new Date("2026-01-01T00:00:00Z");
    const s = await createSession(t.db, u.id, now);
    assert.equal(s.expiresAt.getTime(), now.getTime() + SESSION_TTL_MS);
    const stored = await t.db.session.findMany({ where: { userId: u.id } });
    assert.deepEqual(
      stored.map((r) => r.id),
      [hashToken(s.token)],
    );
    assert.ok(!stored.some((r) => r.id === s.token));
    assert.equal((await resolveSession(t.db, s.token, now))?.email, "cy@example.org");
    assert.equal(await resolveSession(t.db, "x".repeat(43), now), null);
    assert.equal(await resolveSession(t.db, "bad token; with spaces", now), null);
    // Past its expiry the session is refused and removed.
    assert.equal(await resolveSession(t.db, s.token, new Date(s.expiresAt.getTime() + 1)), null);
    assert.equal(await t.db.session.count({ where: { userId: u.id } }), 0);

    const s2 = await createSession(t.db, u.id);
    await deleteSession(t.db, s2.token);
    assert.equal(await resolveSession(t.db, s2.token), null);

    const s3 = await createSession(t.db, u.id);
    await updateUser(t.db, u.id, { password: "second-password" }, { rounds: ROUNDS });
    assert.equal(await resolveSession(t.db, s3.token), null, "a new password signs out everywhere");
    assert.ok(await authenticate(t.db, "cy@example.org", "second-password"));

    const s4 = await createSession(t.db, u.id);
    await updateUser(t.db, u.id, { disabled: true });
    assert.equal(await resolveSession(t.db, s4.token), null, "disabling signs out");
  });

  test("requireApiUser answers 401 signed out and 403 for the wrong role", async () => {
    const admin = await createUser(t.db, { email: "root@example.org", password: "admin-password", role: "admin" }, { rounds: ROUNDS });
    const annotator = await createUser(t.db, { email: "ann@example.org", password: "annotator-pw" }, { rounds: ROUNDS });
    const req = (token?: string) =>
      new Request("http://localhost/api/admin/users", { headers: token ? { cookie: `other=1; ${SESSION_COOKIE}=${token}` } : {} });
    const status = async (p: Promise<unknown>) => {
      try {
        await p;
        return 200;
      } catch (err) {
        assert.ok(err instanceof CodedError);
        return STATUS_OF_CODE[err.code];
      }
    };
    const a = await createSession(t.db, admin.id);
    const b = await createSession(t.db, annotator.id);
    assert.equal(await status(requireApiUser(req())), 401);
    assert.equal(await status(requireApiUser(req("forged-token-forged-token-forged"))), 401);
    assert.equal(await status(requireApiUser(req(b.token), "admin")), 403);
    assert.equal(await status(requireApiUser(req(b.token), "annotator")), 200);
    assert.equal(await status(requireApiUser(req(b.token))), 200);
    assert.equal((await requireApiUser(req(a.token), "admin")).id, admin.id);
  });
});

describe("cookies and redirects", () => {
  test("the session cookie is HttpOnly, SameSite=Lax, expiring, and Secure only over HTTPS", () => {
    const expires = new Date(Date.now() + 3600_000);
    const plain = sessionCookie("tok", expires, { secure: false });
    assert.match(plain, /^graft_session=tok; Path=\//);
    assert.match(plain, /; HttpOnly/);
    assert.match(plain, /; SameSite=Lax/);
    assert.match(plain, new RegExp(`; Expires=${expires.toUTCString()}`));
    assert.match(plain, /; Max-Age=3[56]\d\d/);
    assert.doesNotMatch(plain, /Secure/);
    assert.match(sessionCookie("tok", expires, { secure: true }), /; Secure$/);
    assert.match(clearedSessionCookie({ secure: false }), /^graft_session=; .*Max-Age=0/);
    assert.ok(isSecureRequest(new Request("https://graft.example/api/auth/login")));
    assert.ok(!isSecureRequest(new Request("http://127.0.0.1:3000/api/auth/login")));
    assert.ok(isSecureRequest(new Request("http://127.0.0.1:3000/x", { headers: { "x-forwarded-proto": "https" } })));
    assert.equal(readCookie("a=1; graft_session=abc; b=2", "graft_session"), "abc");
    assert.equal(readCookie("a=1", "graft_session"), undefined);
  });

  test("only local paths are followed after sign-in", () => {
    assert.equal(loginPath("/admin/studies/3"), "/login?next=%2Fadmin%2Fstudies%2F3");
    for (const bad of ["//evil.example", "https://evil.example", "/\\evil.example", "admin"]) {
      assert.equal(isLocalPath(bad), false, bad);
      assert.equal(loginPath(bad), "/login");
    }
    assert.match(generatePassword(), /^[A-Za-z0-9x]{4}(-[A-Za-z0-9x]{4}){3}$/);
  });
});
