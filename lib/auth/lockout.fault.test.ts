import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createDb, type Db } from "@/lib/db";
import { Limit } from "@/lib/db/rate-limits";
import { createTestDb, type TestDb } from "@/lib/db/testing";
import { errorResponse } from "@/lib/http";
import { signIn } from "./sign-in";
import { createUser } from "./users";

// Issue 28: limits and lockouts hold per account, whatever address and whichever instance the
// attempts come from. Two "instances" are two Prisma clients on one store, as two processes would be.

let t: TestDb;
let second: Db;
before(async () => {
  t = await createTestDb();
  second = createDb(t.config);
});
after(async () => {
  await second.$disconnect();
  await t.cleanup();
});

describe("the account lockout, shared by all instances and addresses", () => {
  const login = (email: string, password: string, from: string) =>
    new Request("http://127.0.0.1/api/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": from },
      body: JSON.stringify({ email, password }),
    });
  /** The login route's handling: signIn, errors as the route's handleRoute answers them. */
  const attempt = (db: Db, accounts: Limit, password: string, from: string) =>
    signIn(db, login("ada@example.org", password, from), accounts).catch((err: unknown) => errorResponse(err));

  test("guesses spread over two instances and many addresses stop at the account's limit; the answer says so and when to retry", async () => {
    await createUser(t.db, { email: "ada@example.org", password: "correct horse", role: "annotator" }, { rounds: 4 });
    const spec = { perMinute: 1, burst: 4 };
    const [a, b] = [new Limit("account", spec, t.db), new Limit("account", spec, second)];
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await attempt(i % 2 ? second : t.db, i % 2 ? b : a, "wrong guess", `10.88.${i}.1`)).status);
    assert.deepEqual(statuses, [401, 401, 401, 401, 429, 429]);
    const locked = await attempt(t.db, a, "correct horse", "198.51.100.30");
    assert.equal(locked.status, 429, "even the right password, from a fresh address");
    assert.ok(Number(locked.headers.get("retry-after")) >= 1);
    assert.match(((await locked.json()) as { error: { message: string } }).error.message, /for this account.*from every network address/);
  });

  test("a successful sign-in clears the account's count", async () => {
    await createUser(t.db, { email: "bob@example.org", password: "correct horse", role: "annotator" }, { rounds: 4 });
    const accounts = new Limit("account-reset", { perMinute: 1, burst: 3 }, t.db);
    const as = (password: string) => signIn(t.db, login("bob@example.org", password, "198.51.100.31"), accounts).catch((err: unknown) => errorResponse(err));
    assert.equal((await as("wrong guess")).status, 401);
    assert.equal((await as("wrong guess")).status, 401);
    assert.equal((await as("correct horse")).status, 200);
    assert.equal((await as("wrong guess")).status, 401);
    assert.equal((await as("wrong guess")).status, 401);
    assert.equal((await as("correct horse")).status, 200, "the two earlier failures were forgotten");
  });
});
